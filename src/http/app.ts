import cors from "@koa/cors";
import Koa, { type Context, type Middleware } from "koa";
import { canonicalOf, type CanonicalOperationId, type RoutedOperationId } from "../../generated/operations.js";
import type { Logger } from "../logger.js";
import { currentRequest } from "../request-context.js";
import { readBodyText, readJsonBody } from "./body.js";
import {
  compressBody,
  compression,
  COMPRESSION_THRESHOLD,
  isCompressible,
  preferredEncoding,
  type ContentEncoding,
} from "./compression.js";
import { ifNoneMatchMatches } from "./conditional.js";
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS } from "./cors.js";
import { HttpError } from "../contract/errors.js";
import type { PreRendered } from "../contract/typed-handlers.js";
import type { ResponseCache } from "./response-cache.js";
import { logUnexpected, replyFor } from "../contract/unexpected-errors.js";
import type { AnyReply, Router } from "./router.js";
import { mountRoutes, type RouteMiddleware } from "./routes.js";

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** HEAD is answered as GET without a body; it must never spend a payment, so it never carries one. */
function withoutPayment(headers: Context["headers"]): Context["headers"] {
  const { "payment-signature": _signature, "x-payment": _legacy, ...rest } = headers;
  return rest;
}

function send(ctx: Context, reply: AnyReply, cache: ResponseCache | undefined): void {
  const headers: Record<string, string> = { ...(reply.headers as Record<string, string> | undefined) };
  const etag = headers.ETag;
  if (reply.status === 200 && etag && ifNoneMatchMatches(ctx.get("if-none-match"), etag)) {
    // A 304 carries the validators and caching headers the 200 would have (RFC 9110 §15.4.5).
    ctx.status = 304;
    ctx.set(headers);
    return;
  }
  const contentType = reply.contentType && `${reply.contentType}; charset=utf-8`;
  ctx.status = reply.status;
  ctx.set(headers);
  const body = reply.body as unknown;
  if (body === undefined) {
    // An explicit null keeps Koa from writing the status text as a body (202 has none); it resets the status.
    ctx.body = null;
    ctx.status = reply.status;
    return;
  }
  if (typeof body === "string") {
    ctx.type = contentType ?? "text/plain; charset=utf-8";
    ctx.body = encoded(ctx, Buffer.from(body)).body;
  } else if (typeof body === "object" && body !== null && "preRendered" in body) {
    ctx.type = contentType ?? JSON_CONTENT_TYPE;
    const { preRendered: bytes, reused } = body as PreRendered;
    const answer = encoded(ctx, bytes, reused);
    ctx.body = answer.body;
    if (cache && reply.cacheToken && etag && reply.status === 200) {
      delete headers.ETag;
      const operation = canonicalOf[reply.operationId as RoutedOperationId];
      cache.remember(
        ctx.url,
        {
          token: reply.cacheToken,
          until: reply.cacheUntil,
          etag,
          contentType: ctx.response.get("Content-Type"),
          body: bytes,
          headers,
          operation,
        },
        answer,
      );
    }
  } else {
    ctx.type = contentType ?? JSON_CONTENT_TYPE;
    ctx.body = encoded(ctx, Buffer.from(JSON.stringify(body))).body;
  }
}

/**
 * A handler's whole answer, encoded here rather than streamed through koa-compress: it keeps its
 * Content-Length, HEAD reports the GET's headers, and the response cache gets the encoded bytes.
 */
function encoded(ctx: Context, bytes: Buffer, reused = false): { body: Buffer; encoding?: ContentEncoding } {
  if (bytes.length < COMPRESSION_THRESHOLD || !isCompressible(ctx.response.get("Content-Type"))) return { body: bytes };
  const encoding = preferredEncoding(ctx.get("accept-encoding"));
  if (!encoding) return { body: bytes };
  ctx.set("Content-Encoding", encoding);
  if (!reused) return { body: compressBody(bytes, encoding), encoding };
  let kept = keptEncodings.get(bytes);
  if (!kept) keptEncodings.set(bytes, (kept = {}));
  return { body: (kept[encoding] ??= compressBody(bytes, encoding)), encoding };
}

/** The compressed forms of bodies sent again and again (PreRendered.reused), kept as long as the body itself. */
const keptEncodings = new WeakMap<Buffer, Partial<Record<ContentEncoding, Buffer>>>();

function sendError(ctx: Context, error: HttpError): void {
  ctx.status = error.status;
  ctx.set(error.headers);
  ctx.type = JSON_CONTENT_TYPE;
  ctx.body = Buffer.from(JSON.stringify(error.toBody()));
}

export interface AppOptions {
  router: Router;
  logger: Logger;
  maxBodyBytes: number;
  /** Where replies marked with a freshness token are kept; the entry (src/http/entry.ts) answers from it. */
  responseCache?: ResponseCache;
  /** Middleware of particular operations, run before their handler. */
  routeMiddleware?: RouteMiddleware;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy). */
  trustProxy?: boolean;
  /**
   * The bound on uncached catalog work: these operations' handlers run under the gate, after their
   * body is read (a slow sender holds no turn). Cached answers never reach the app.
   */
  uncachedWork?: {
    gate: { run<T>(work: () => Promise<T>): Promise<T> };
    operations: ReadonlySet<CanonicalOperationId>;
  };
}

/**
 * The Koa app, after the entry's access log and response cache (src/http/entry.ts):
 *   0. gzip/brotli of answers over a threshold (src/http/compression.ts)
 *   1. errors: an HttpError or an unexpected failure becomes a JSON reply
 *   2. CORS
 *   3. @koa/router: the contract's routes, each with its own middleware, then openapi-backend's
 *      validation and the operation's handler; 405 with Allow, OPTIONS, 404
 * Middleware that must see every request, a cached one too, goes in the entry, not here.
 */
/** Names the routed operation in the request context, for the access log and metrics (src/http/entry.ts). */
function nameOperation(operation: string): void {
  const request = currentRequest();
  if (request) request.operation = operation;
}

/** A route's own middleware, after naming its operation, so a refusal there (429) is named too. */
function namedMiddleware(routeMiddleware: RouteMiddleware | undefined): RouteMiddleware | undefined {
  if (!routeMiddleware) return undefined;
  const named: RouteMiddleware = {};
  for (const [operation, list] of Object.entries(routeMiddleware) as Array<[keyof RouteMiddleware, Middleware[]]>) {
    named[operation] = [(_ctx, next) => (nameOperation(operation), next()), ...list];
  }
  return named;
}

export function createApp({
  router,
  logger,
  maxBodyBytes,
  responseCache,
  routeMiddleware: ownMiddleware,
  trustProxy = false,
  uncachedWork,
}: AppOptions): Koa {
  const routeMiddleware = namedMiddleware(ownMiddleware);
  const app = new Koa({ proxy: trustProxy });
  app.silent = true;

  app.use(compression());
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof HttpError) {
        sendError(ctx, error);
      } else {
        const reply = replyFor(error);
        logUnexpected(logger, error, { method: ctx.method, path: ctx.path, status: reply.status }, "unhandled error");
        sendError(ctx, reply);
      }
    }
  });

  app.use(
    cors({
      origin: "*",
      allowMethods: CORS_ALLOW_METHODS,
      allowHeaders: CORS_ALLOW_HEADERS,
      exposeHeaders: CORS_EXPOSE_HEADERS,
      maxAge: 600,
    }),
  );

  const answer =
    (operationId: RoutedOperationId): Middleware =>
    async (ctx) => {
      nameOperation(canonicalOf[operationId]);
      const method = ctx.method === "HEAD" ? "GET" : ctx.method;
      // POST /mcp takes its body unparsed: the MCP SDK answers malformed JSON itself (-32700), not 400.
      const raw = BODY_METHODS.has(method) && router.takesRawBody(operationId);
      const body = BODY_METHODS.has(method) && !raw ? await readJsonBody(ctx, maxBodyBytes) : undefined;
      const rawBody = raw ? await readBodyText(ctx, maxBodyBytes) : undefined;
      const dispatch = () =>
        router.dispatch(operationId, {
          method,
          path: ctx.path,
          query: ctx.querystring,
          headers: (ctx.method === "HEAD" ? withoutPayment(ctx.headers) : ctx.headers) as Record<
            string,
            string | string[]
          >,
          body,
          rawBody,
          clientIp: ctx.ip,
        });
      const gated = uncachedWork?.operations.has(canonicalOf[operationId]);
      const reply = gated ? await uncachedWork!.gate.run(dispatch) : await dispatch();
      send(ctx, reply, responseCache);
    };
  for (const middleware of mountRoutes(answer, routeMiddleware)) app.use(middleware);

  return app;
}
