import type { Middleware } from "koa";
import compress from "koa-compress";
import Negotiator from "negotiator";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/**
 * gzip and brotli for answers of at least COMPRESSION_THRESHOLD bytes whose type is text, JSON or
 * XML. Koa's answers go through koa-compress; the response cache (src/http/response-cache.ts),
 * which answers before Koa, makes the same choice with preferredEncoding and compressBody, so a
 * repeated read arrives encoded exactly as the first one did. ETags are weak (src/contract/etag.ts),
 * so every encoding of a document keeps its ETag and a 304 revalidates any of them.
 */
export const COMPRESSION_THRESHOLD = 1024;

export type ContentEncoding = "br" | "gzip";

const OFFERED = ["br", "gzip", "identity"];
/**
 * Fast settings: most answers (a search page, a distinct catalog page) are encoded once and never
 * again, so the request thread pays for each. A 48 KB search page: brotli 1 in 0.15 ms to 4.9 KB
 * (quality 4: 0.5 ms, 4.5 KB), gzip 3 in 0.27 ms to 5.4 KB (level 6, zlib's default: 0.5 ms, 4.8
 * KB). The 365 KB openapi.json, kept encoded by the response cache: brotli 1 in 1 ms to 42 KB.
 */
const BROTLI_QUALITY = 1;
const GZIP_LEVEL = 3;

/** Text, JSON and XML compress well; a stream (text/event-stream) must not be held back by a compressor. */
export function isCompressible(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "text/event-stream") return false;
  return type.startsWith("text/") || /[/+](json|xml|javascript)$/.test(type);
}

/** negotiator 1.x breaks ties by a preference list; @types/negotiator 0.6 predates it. */
interface NegotiatorWithPreference {
  encoding(available: string[], options: { preferred: string[] }): string | undefined;
}

/** The encoding koa-compress would pick for this Accept-Encoding (none when absent; gzip for "*"). */
export function preferredEncoding(acceptEncoding: string | string[] | undefined): ContentEncoding | undefined {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(",") : acceptEncoding;
  if (!header) return undefined;
  if (header.trim() === "*") return "gzip";
  const negotiator = new Negotiator({ headers: { "accept-encoding": header } }) as unknown as NegotiatorWithPreference;
  const chosen = negotiator.encoding(OFFERED, { preferred: OFFERED });
  return chosen === "br" || chosen === "gzip" ? chosen : undefined;
}

export function compressBody(body: Buffer, encoding: ContentEncoding): Buffer {
  return encoding === "br"
    ? brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      })
    : gzipSync(body, { level: GZIP_LEVEL });
}

/** The Koa middleware; first in the app, so error replies are compressed too. */
export function compression(): Middleware {
  return compress({
    threshold: COMPRESSION_THRESHOLD,
    filter: isCompressible,
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
    gzip: { level: GZIP_LEVEL },
    // Only what the response cache can reproduce: Node 20 has no zstd, and deflate is redundant with gzip.
    deflate: false,
    zstd: false,
  });
}
