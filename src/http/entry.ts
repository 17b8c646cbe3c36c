import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Logger } from "../logger.js";
import { metrics, secondsSince } from "../metrics.js";
import { requestIdFrom, runInRequest, type RequestContext } from "../request-context.js";
import type { RefusedClients } from "./refused-clients.js";
import type { ResponseCache } from "./response-cache.js";

export interface EntryOptions {
  logger: Logger;
  responseCache: ResponseCache;
  app: RequestListener;
  /** Share of requests written to the access log, 0 to 1; a 5xx answer is always written. */
  accessLogSample?: number;
  /** Clients the query budget refused, answered 429 here until their Retry-After is over. */
  refused?: RefusedClients;
}

/** The label of a request no route matched (404, 405, framing refusals answered by the app). */
const UNROUTED = "none";

/**
 * The one entry of every request, cached or not:
 *   1. the request context: its id (X-Request-Id, echoed) for every log line made on its behalf
 *   2. the response cache: a repeated catalog read, or its 304, is answered here
 *   3. a client the query budget refused, still within its Retry-After: 429 (refused-clients.ts)
 *   4. the Koa app (src/http/app.ts): errors, CORS, @koa/router, validation, the handler
 * and, once the response is done, the access log line and the request metrics (operation, status,
 * cached, latency). Anything that must see every request (logging, counting, tracing) belongs
 * here, not in Koa: a cached answer never reaches Koa.
 */
export function createEntry(options: EntryOptions): RequestListener {
  const { logger, responseCache, app, refused } = options;
  const sample = options.accessLogSample ?? 1;
  const uncached = (req: IncomingMessage, res: ServerResponse, context: RequestContext) => {
    const operation = refused?.tryRefuse(req, res);
    if (operation) context.operation = operation;
    else void app(req, res);
  };
  /** True when the cache answered; the app answers otherwise. */
  const answer = (req: IncomingMessage, res: ServerResponse, context: RequestContext): boolean | Promise<boolean> => {
    const served = responseCache.tryServe(req, res);
    if (served === false) uncached(req, res, context);
    if (typeof served === "boolean") return served;
    return served.then((done) => {
      if (!done) uncached(req, res, context);
      return done;
    });
  };
  return (req, res) => {
    const started = process.hrtime.bigint();
    const context: RequestContext = { id: requestIdFrom(req.headers["x-request-id"]) };
    res.setHeader("X-Request-Id", context.id);
    let cached = false;
    res.once("close", () => {
      const seconds = secondsSince(started);
      const operation = context.operation ?? UNROUTED;
      const status = res.statusCode;
      metrics.httpRequests.inc({ operation, status, cached: String(cached) });
      metrics.httpDuration.observe({ operation, cached: String(cached) }, seconds);
      if (status >= 500 || sample >= 1 || (sample > 0 && Math.random() < sample)) {
        const line = {
          requestId: context.id,
          method: req.method,
          path: req.url?.split("?")[0],
          operation,
          status,
          ms: Math.round(seconds * 1e6) / 1e3,
          cached,
          ...(!res.writableFinished && { aborted: true }),
        };
        if (status >= 500) logger.warn(line, "request");
        else logger.info(line, "request");
      }
    });
    runInRequest(context, () => {
      const answered = answer(req, res, context);
      if (answered === true) cached = true;
      else if (answered !== false) void answered.then((done) => (cached = done));
    });
  };
}
