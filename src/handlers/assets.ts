// The assets area (spec/assets.tsp): files browsers ask for by themselves.
import type { Handler } from "../services.js";
import { FAVICON_SVG } from "../web/favicon.js";
import type { AreaHandlers } from "./area-handlers.js";

/** `/favicon.ico` and `/favicon.svg`: the site icon, cacheable for a day. */
const getFavicon: Handler<"getFavicon"> = () => ({
  status: 200,
  headers: { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400" },
  contentType: "image/svg+xml",
  body: FAVICON_SVG,
});

export const assetsHandlers: AreaHandlers<"assets"> = { getFavicon };
