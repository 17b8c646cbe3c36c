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
/** Quality 4 of 11: most of brotli's gain at a few milliseconds for a 365 KB openapi.json. */
const BROTLI_QUALITY = 4;

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
    ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipSync(body);
}

/** The Koa middleware; first in the app, so error replies are compressed too. */
export function compression(): Middleware {
  return compress({
    threshold: COMPRESSION_THRESHOLD,
    filter: isCompressible,
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
    gzip: {},
    // Only what the response cache can reproduce: Node 20 has no zstd, and deflate is redundant with gzip.
    deflate: false,
    zstd: false,
  });
}
