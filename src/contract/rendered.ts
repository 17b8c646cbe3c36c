import { weakEtag } from "./etag.js";

/** Conditional documents are revalidated by their weak ETag on every use. */
const REVALIDATE = { "Cache-Control": "no-cache" };

/**
 * A rendered JSON document with its weak ETag, reusable while the catalog freshness `token` holds.
 * `token` null: a document that can change without a catalog write, never kept by the response cache
 * (its ETag, from its bytes, still answers 304). `stringify` must write what JSON.stringify would.
 */
export function taggedJson<T>(document: T, token: string | null, stringify: (document: T) => string = JSON.stringify) {
  const bytes = Buffer.from(stringify(document));
  return {
    status: 200 as const,
    headers: { ...REVALIDATE, ETag: weakEtag(bytes) },
    body: { preRendered: bytes },
    ...(token !== null && { cacheToken: token }),
  };
}

/** A rendered text document (feeds) with its weak ETag; `token` as for taggedJson. */
export function taggedText<T extends string>(text: string, contentType: T, token: string | null) {
  const bytes = Buffer.from(text);
  return {
    status: 200 as const,
    headers: { ...REVALIDATE, ETag: weakEtag(bytes) },
    body: { preRendered: bytes },
    contentType,
    ...(token !== null && { cacheToken: token }),
  };
}
