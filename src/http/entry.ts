import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "../logger.js";
import type { ResponseCache } from "./response-cache.js";

/**
 * The one entry of every request, cached or not:
 *   1. the access log (every answer, `cached: true` when the response cache gave it)
 *   2. the response cache: a repeated catalog read, or its 304, is answered here
 *   3. the Koa app (src/http/app.ts): errors, CORS, @koa/router, validation, the handler
 * Anything that must see every request (logging, counting, tracing) belongs here, not in Koa:
 * a cached answer never reaches Koa.
 */
export function createEntry(options: { logger: Logger; responseCache: ResponseCache; app: RequestListener }): RequestListener {
  const { logger, responseCache, app } = options;
  /** True when the cache answered; the app answers otherwise. */
  const answer = (req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> => {
    const served = responseCache.tryServe(req, res);
    if (served === false) void app(req, res);
    if (typeof served === "boolean") return served;
    return served.then((done) => {
      if (!done) void app(req, res);
      return done;
    });
  };
  if (!logger.isLevelEnabled("debug")) return (req, res) => void answer(req, res);
  return (req, res) => {
    const started = process.hrtime.bigint();
    let cached = false;
    res.once("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.debug({ method: req.method, path: req.url?.split("?")[0], status: res.statusCode, ms, ...(cached && { cached }) }, "request");
    });
    const answered = answer(req, res);
    if (answered === true) cached = true;
    else if (answered !== false) void answered.then((done) => (cached = done));
  };
}
