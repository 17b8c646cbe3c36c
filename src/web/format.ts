// Small formatting of document values for the pages. Nothing here escapes: preact escapes every
// text and attribute it renders.

/** `2030-01-01T00:00:00.000Z` -> `2030-01-01 00:00 UTC`. */
export function formatInstant(iso: string | undefined): string {
  if (!iso) return "never";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A share 0..1 as a percentage, or a dash when unknown. */
export function formatShare(share: number | undefined): string {
  return share === undefined ? "–" : `${(share * 100).toFixed(share === 1 || share === 0 ? 0 : 1)}%`;
}

/** `0x1234…abcd`: long addresses in cards (the listing page shows them whole). */
export function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 8)}…${address.slice(-6)}` : address;
}

/** A POSIX shell word: single-quoted, a single quote inside written as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A path with its query string; parameters whose value is undefined or empty are left out. */
export function pathWithQuery(path: string, query: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== "") params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** Text cut to at most `max` characters at a word boundary, with an ellipsis when it was cut. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}
