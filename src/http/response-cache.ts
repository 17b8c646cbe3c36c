import type { IncomingMessage, ServerResponse } from "node:http";
import { LRUCache } from "lru-cache";
import { currentRequest } from "../request-context.js";
import {
  compressBody,
  COMPRESSION_THRESHOLD,
  isCompressible,
  preferredEncoding,
  type ContentEncoding,
} from "./compression.js";
import { ifNoneMatchMatches } from "./conditional.js";
import { CORS_RESPONSE_HEADERS } from "./cors.js";

export interface CachedResponse {
  /** The freshness token the document was rendered at. */
  token: string;
  /** The clock's time (ms) from which it is not served again even while the token holds (a listing document: see listingDocumentOf). */
  until?: number | undefined;
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
  until: number | undefined;
  etag: string;
  body: Buffer;
  /** Complete header sets, merged once when the entry is stored. */
  ok: Record<string, string | number>;
  notModified: Record<string, string>;
  operation?: string;
  /** Whether the body is sent gzip/brotli-encoded to clients that accept it (src/http/compression.ts). */
  compressible: boolean;
  /** Encoded bodies with their headers, made on the first request that asks for each encoding. */
  encoded: Partial<Record<ContentEncoding, { body: Buffer; ok: Record<string, string | number> }>>;
}

/** Every cached answer varies by Accept-Encoding and Origin (CORS), named in the order the app's do. */
const VARY = { Vary: `Accept-Encoding, ${CORS_RESPONSE_HEADERS.Vary}` };

export class ResponseCache {
  private readonly entries: LRUCache<string, Entry>;
  private readonly now: () => Date;

  constructor(
    private readonly freshness: FreshnessSource,
    options: { maxEntries?: number; maxBytes?: number; now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.entries = new LRUCache({
      max: options.maxEntries ?? 5_000,
      maxSize: options.maxBytes ?? 4 * 1024 * 1024,
      // Room for the encoded variants too, which come later and are much smaller than the body.
      sizeCalculation: (entry) => Math.ceil(entry.body.length * (entry.compressible ? 1.5 : 1)) + 512,
    });
  }

  /** `sent`: the body as the app just sent it, kept when encoded so the next such request need not encode it again. */
  remember(url: string, response: CachedResponse, sent?: { body: Buffer; encoding?: ContentEncoding }): void {
    const notModified = { ...CORS_RESPONSE_HEADERS, ...response.headers, ...VARY, ETag: response.etag };
    const entry: Entry = {
      token: response.token,
      until: response.until,
      etag: response.etag,
      body: response.body,
      operation: response.operation,
      notModified,
      ok: { ...notModified, "Content-Type": response.contentType, "Content-Length": response.body.length },
      compressible: response.body.length >= COMPRESSION_THRESHOLD && isCompressible(response.contentType),
      encoded: {},
    };
    if (sent?.encoding) entry.encoded[sent.encoding] = this.variant(entry, sent.encoding, sent.body);
    this.entries.set(url, entry);
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
    if (token !== entry.token || (entry.until !== undefined && this.now().getTime() >= entry.until)) {
      this.entries.delete(req.url!);
      return false;
    }
    const request = currentRequest();
    if (request && entry.operation) request.operation = entry.operation;
    if (ifNoneMatchMatches(req.headers["if-none-match"], entry.etag)) {
      res.writeHead(304, entry.notModified);
      res.end();
    } else {
      const encoding = entry.compressible ? preferredEncoding(req.headers["accept-encoding"]) : undefined;
      const { body, ok } = encoding ? this.encoded(entry, encoding) : entry;
      res.writeHead(200, ok);
      res.end(req.method === "HEAD" ? undefined : body);
    }
    return true;
  }

  private encoded(entry: Entry, encoding: ContentEncoding): { body: Buffer; ok: Record<string, string | number> } {
    return (entry.encoded[encoding] ??= this.variant(entry, encoding, compressBody(entry.body, encoding)));
  }

  private variant(
    entry: Entry,
    encoding: ContentEncoding,
    body: Buffer,
  ): { body: Buffer; ok: Record<string, string | number> } {
    return { body, ok: { ...entry.ok, "Content-Encoding": encoding, "Content-Length": body.length } };
  }
}
