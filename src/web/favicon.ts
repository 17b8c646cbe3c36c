/**
 * The site icon: the accent blue of the pages' stylesheet (src/web/assets.ts), a rounded square
 * with "402" in white. SVG, so one small file is sharp at every size.
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">' +
  '<rect width="64" height="64" rx="14" fill="#0b57d0"/>' +
  '<text x="32" y="41" font-family="system-ui,Segoe UI,Roboto,sans-serif" font-size="24" font-weight="700" fill="#fff" text-anchor="middle">402</text>' +
  "</svg>\n";
