import type { Middleware } from "koa";
import { LRUCache } from "lru-cache";
import { ifNoneMatchMatches } from "./conditional.js";

export interface CachedResponse {
  /** The freshness token the document was rendered at. */
  token: string;
  etag: string;
  contentType: string;
  body: Buffer;
  /** The reply's own headers (the ETag apart); CORS headers are the pipeline's, set on every answer. */
  headers: Record<string, string>;
}

export interface FreshnessSource {
  peek(): { token: string } | undefined;
  current(): Promise<{ token: string }>;
}

/**
 * Rendered catalog documents by request URL, answered again while their freshness token is
 * current: a repeated read or a 304 revalidation then costs neither routing, validation nor a
 * rebuild. Only URLs whose identical request was already validated and answered 200 by the
 * handler are ever stored, so nothing bypasses validation. It is a Koa middleware, after the
 * access log and CORS: a cached answer is logged and carries the same headers as the first.
 */
export class ResponseCache {
  private readonly entries: LRUCache<string, CachedResponse>;

  constructor(
    private readonly freshness: FreshnessSource,
    options: { maxEntries?: number; maxBytes?: number } = {},
  ) {
    this.entries = new LRUCache({
      max: options.maxEntries ?? 5_000,
      maxSize: options.maxBytes ?? 4 * 1024 * 1024,
      sizeCalculation: (entry) => entry.body.length + 512,
    });
  }

  remember(url: string, response: CachedResponse): void {
    this.entries.set(url, response);
  }

  /** The current freshness token: known in memory (SQLite) or read (PostgreSQL); undefined when unreadable. */
  private token(): string | Promise<string | undefined> {
    const known = this.freshness.peek();
    if (known) return known.token;
    return this.freshness.current().then(
      (current) => current.token,
      () => undefined,
    );
  }

  middleware(): Middleware {
    return async (ctx, next) => {
      const entry = ctx.method === "GET" || ctx.method === "HEAD" ? this.entries.get(ctx.url) : undefined;
      if (!entry) return next();
      const token = await this.token();
      if (token !== entry.token) {
        if (token !== undefined) this.entries.delete(ctx.url);
        return next();
      }
      ctx.set(entry.headers);
      ctx.set("ETag", entry.etag);
      if (ifNoneMatchMatches(ctx.get("if-none-match"), entry.etag)) {
        ctx.status = 304;
        return;
      }
      ctx.status = 200;
      ctx.type = entry.contentType;
      ctx.body = entry.body;
    };
  }
}
