import { weakEtag } from "./etag.js";

/** Conditional documents are revalidated by their weak ETag on every use. */
const REVALIDATE = { "Cache-Control": "no-cache" };

/** A rendered JSON document with its weak ETag, reusable while the catalog freshness `token` holds. */
export function taggedJson(document: unknown, token: string) {
  const bytes = Buffer.from(JSON.stringify(document));
  return { status: 200 as const, headers: { ...REVALIDATE, ETag: weakEtag(bytes) }, body: { preRendered: bytes }, cacheToken: token };
}

/** A rendered text document (feeds) with its weak ETag. */
export function taggedText<T extends string>(text: string, contentType: T, token: string) {
  const bytes = Buffer.from(text);
  return {
    status: 200 as const,
    headers: { ...REVALIDATE, ETag: weakEtag(bytes) },
    body: { preRendered: bytes },
    contentType,
    cacheToken: token,
  };
}
