import type { IncomingMessage, ServerResponse } from "node:http";
import { LRUCache } from "lru-cache";
import { ifNoneMatchMatches } from "./conditional.js";
import { CORS_RESPONSE_HEADERS } from "./cors.js";

export interface CachedResponse {
  /** The freshness token the document was rendered at. */
  token: string;
  etag: string;
  contentType: string;
  body: Buffer;
  headers: Record<string, string>;
}

export interface FreshnessSource {
  peek(): { token: string } | undefined;
  current(): Promise<{ token: string }>;
}

/**
 * Rendered catalog documents by request URL, served straight from node:http while their
 * freshness token is current: a repeated read or a 304 revalidation then costs neither Koa,
 * routing, validation nor a rebuild. Only URLs whose identical request was already validated and
 * answered 200 by the handler are ever stored, so nothing bypasses validation.
 */
export class ResponseCache {
  private readonly entries: LRUCache<string, CachedResponse>;

  constructor(
    private readonly freshness: FreshnessSource,
    options: { maxEntries?: number; maxBytes?: number } = {},
  ) {
    this.entries = new LRUCache({
      max: options.maxEntries ?? 5_000,
      maxSize: options.maxBytes ?? 16 * 1024 * 1024,
      sizeCalculation: (entry) => entry.body.length + 256,
    });
  }

  remember(url: string, entry: CachedResponse): void {
    this.entries.set(url, entry);
  }

  /** Answers a GET or HEAD from the cache when its document is still current; false otherwise. */
  async tryServe(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if ((req.method !== "GET" && req.method !== "HEAD") || !req.url) return false;
    const entry = this.entries.get(req.url);
    if (!entry) return false;
    const freshness = this.freshness.peek() ?? (await this.freshness.current().catch(() => undefined));
    if (freshness?.token !== entry.token) {
      this.entries.delete(req.url);
      return false;
    }
    const headers: Record<string, string | number> = { ...CORS_RESPONSE_HEADERS, ...entry.headers, ETag: entry.etag };
    if (ifNoneMatchMatches(req.headers["if-none-match"], entry.etag)) {
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    res.writeHead(200, { ...headers, "Content-Type": entry.contentType, "Content-Length": entry.body.length });
    res.end(req.method === "HEAD" ? undefined : entry.body);
    return true;
  }
}
