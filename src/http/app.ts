import cors from "@koa/cors";
import Koa, { type Context } from "koa";
import type { Logger } from "../logger.js";
import { readJsonBody } from "./body.js";
import { HttpError } from "./errors.js";
import type { AnyReply, Router } from "./router.js";

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** `If-None-Match` matches when any listed tag equals the ETag, weakly compared (RFC 9110 §13.1.2). */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => opaque(tag) === opaque(etag));
}

function send(ctx: Context, reply: AnyReply): void {
  const headers: Record<string, string> = { ...(reply.headers as Record<string, string> | undefined) };
  const etag = headers.ETag;
  if (reply.status === 200 && etag && ifNoneMatchMatches(ctx.get("if-none-match"), etag)) {
    ctx.status = 304;
    ctx.set("ETag", etag);
    return;
  }
  const contentType = reply.contentType;
  ctx.status = reply.status;
  ctx.set(headers);
  const body = reply.body as unknown;
  if (body === undefined) return;
  if (typeof body === "string") {
    ctx.type = contentType ? `${contentType}; charset=utf-8` : "text/plain; charset=utf-8";
    ctx.body = body;
  } else if (typeof body === "object" && body !== null && "preRendered" in body) {
    ctx.type = contentType ?? JSON_CONTENT_TYPE;
    ctx.body = (body as { preRendered: Buffer }).preRendered;
  } else {
    ctx.type = contentType ?? JSON_CONTENT_TYPE;
    ctx.body = Buffer.from(JSON.stringify(body));
  }
}

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
}

/** The Koa adapter: body and errors in, openapi-backend dispatch, contract-shaped replies out. */
export function createApp({ router, logger, maxBodyBytes }: AppOptions): Koa {
  const app = new Koa();
  app.silent = true;

  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } catch (error) {
      if (error instanceof HttpError) {
        sendError(ctx, error);
      } else {
        logger.error({ err: error, method: ctx.method, path: ctx.path }, "unhandled error");
        sendError(ctx, new HttpError(500, "internal_error", "The server failed to answer this request; it has been logged."));
      }
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.debug({ method: ctx.method, path: ctx.path, status: ctx.status, ms }, "request");
    }
  });

  app.use(
    cors({
      origin: "*",
      allowMethods: ["GET", "HEAD", "POST", "OPTIONS"],
      allowHeaders: ["Content-Type", "PAYMENT-SIGNATURE", "X-PAYMENT", "If-None-Match", "Mcp-Protocol-Version", "Mcp-Session-Id"],
      exposeHeaders: ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "ETag", "Location", "Allow"],
      maxAge: 600,
    }),
  );

  app.use(async (ctx) => {
    const method = ctx.method === "HEAD" ? "GET" : ctx.method;
    const body = BODY_METHODS.has(method) ? await readJsonBody(ctx, maxBodyBytes) : undefined;
    const reply = await router.dispatch({
      method,
      path: ctx.path,
      query: ctx.querystring,
      headers: ctx.headers as Record<string, string | string[]>,
      body,
    });
    send(ctx, reply);
  });

  return app;
}
