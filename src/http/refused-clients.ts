import type { IncomingMessage, ServerResponse } from "node:http";
import type { CanonicalOperationId } from "../../generated/operations.js";
import { routeTable } from "../../generated/operations.js";
import { CORS_RESPONSE_HEADERS } from "./cors.js";

/** The most clients remembered at once; past it the oldest refusals are forgotten (the limiter still refuses them). */
const MAX_CLIENTS = 50_000;

/** The refusal's text: the same as the route's query limit gives (src/handlers/route-middleware.ts). */
export const queryRefusal = (ip: string, seconds: number): string =>
  `too many uncached catalog reads, searches and agent requests (MCP, A2A) from ${ip}; retry in ${seconds} s (answers already given are cached and free).`;

/**
 * Clients the query budget (QUERY_RATE_PER_CLIENT, QUERY_BURST_PER_CLIENT) refused one unit, until
 * the time their `Retry-After` named: until then every catalog-work request of theirs would be
 * refused again, so the entry answers it with the same 429 before Koa, the router and the limiter.
 * A flood of refusals then costs about what a flood of 404s does: through the app, a refusal cost
 * 15% more request-thread CPU than a 404, and with a flood holding most of the thread that halved
 * the cached reads beside it. Per instance; cached answers are sent before this is looked at.
 */
export class RefusedClients {
  private readonly until = new Map<string, number>();
  /** "METHOD /path" of each catalog-work route without path parameters -> its operation (for the access log). */
  private readonly routes = new Map<string, CanonicalOperationId>();

  constructor(
    operations: ReadonlySet<CanonicalOperationId>,
    private readonly trustProxy: boolean,
    private readonly now: () => number = Date.now,
  ) {
    for (const route of routeTable)
      if (operations.has(route.canonical) && !route.path.includes("{"))
        this.routes.set(`${route.method} ${route.path}`, route.canonical);
  }

  /** Remembers that `ip` was refused for `seconds` (its Retry-After). */
  refuse(ip: string, seconds: number): void {
    this.until.delete(ip);
    this.until.set(ip, this.now() + seconds * 1000);
    if (this.until.size > MAX_CLIENTS) this.until.delete(this.until.keys().next().value!);
  }

  /**
   * Answers a catalog-work request of a client still refused with 429 and returns its operation,
   * or returns undefined (the app answers).
   */
  tryRefuse(req: IncomingMessage, res: ServerResponse): CanonicalOperationId | undefined {
    if (this.until.size === 0) return undefined;
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query < 0 ? url : url.slice(0, query);
    const method = req.method === "HEAD" ? "GET" : req.method;
    const operation = this.routes.get(`${method} ${path.length > 1 ? path.replace(/\/+$/, "") : path}`);
    if (!operation) return undefined;
    const ip = this.clientIp(req);
    const until = ip === undefined ? undefined : this.until.get(ip);
    if (until === undefined) return undefined;
    const left = until - this.now();
    if (left <= 0) {
      this.until.delete(ip!);
      return undefined;
    }
    const seconds = Math.ceil(left / 1000);
    const body = JSON.stringify({ error: "rate_limited", message: queryRefusal(ip!, seconds) });
    res.writeHead(429, {
      ...CORS_RESPONSE_HEADERS,
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      "Retry-After": String(seconds),
    });
    res.end(req.method === "HEAD" ? undefined : body);
    return operation;
  }

  /** The client's address as Koa's `ctx.ip` reads it (src/http/app.ts: `proxy: trustProxy`). */
  private clientIp(req: IncomingMessage): string | undefined {
    if (this.trustProxy) {
      const forwarded = req.headers["x-forwarded-for"];
      const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
      if (first) return first;
    }
    return req.socket.remoteAddress;
  }
}
