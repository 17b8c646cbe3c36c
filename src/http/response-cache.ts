import type { IncomingMessage, ServerResponse } from "node:http";
import { LRUCache } from "lru-cache";
import { currentRequest } from "../request-context.js";
import { ifNoneMatchMatches } from "./conditional.js";
import { CORS_RESPONSE_HEADERS } from "./cors.js";

export interface CachedResponse {
  /** The freshness token the document was rendered at. */
  token: string;
  etag: string;
  contentType: string;
  body: Buffer;
  headers: Record<string, string>;
  /** The canonical operation that rendered it, named in the access log and metrics of repeats. */
  operation?: string;
}

export interface FreshnessSource {
  peek(): { token: string } | undefined;
  current(): Promise<{ token: string }>;
}

/**
 * Rendered catalog documents by request URL, served at the service's entry (src/http/entry.ts),
 * before Koa, while their freshness token is current: a repeated read or a 304 revalidation then
 * costs neither Koa, routing, validation nor a rebuild (inside Koa it cost 30-45% of cached
 * throughput: README, "One pipeline"). Only URLs whose identical request was already validated
 * and answered 200 by the handler are ever stored, so nothing bypasses validation.
 */
interface Entry {
  token: string;
  etag: string;
  body: Buffer;
  /** Complete header sets, merged once when the entry is stored. */
  ok: Record<string, string | number>;
  notModified: Record<string, string>;
  operation?: string;
}

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry>;

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
    const notModified = { ...CORS_RESPONSE_HEADERS, ...response.headers, ETag: response.etag };
    this.entries.set(url, {
      token: response.token,
      etag: response.etag,
      body: response.body,
      operation: response.operation,
      notModified,
      ok: { ...notModified, "Content-Type": response.contentType, "Content-Length": response.body.length },
    });
  }

  /**
   * Answers a GET or HEAD from the cache when its document is still current. Synchronous when the
   * freshness is known in memory (SQLite); a promise when it must be read (PostgreSQL). False: the
   * app must answer.
   */
  tryServe(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    if ((req.method !== "GET" && req.method !== "HEAD") || !req.url) return false;
    const entry = this.entries.get(req.url);
    if (!entry) return false;
    const known = this.freshness.peek();
    if (known) return this.answer(entry, known.token, req, res);
    return this.freshness.current().then(
      (current) => this.answer(entry, current.token, req, res),
      () => false,
    );
  }

  private answer(entry: Entry, token: string, req: IncomingMessage, res: ServerResponse): boolean {
    if (token !== entry.token) {
      this.entries.delete(req.url!);
      return false;
    }
    const request = currentRequest();
    if (request && entry.operation) request.operation = entry.operation;
    if (ifNoneMatchMatches(req.headers["if-none-match"], entry.etag)) {
      res.writeHead(304, entry.notModified);
      res.end();
    } else {
      res.writeHead(200, entry.ok);
      res.end(req.method === "HEAD" ? undefined : entry.body);
    }
    return true;
  }
}
