import { createHash } from "node:crypto";
import { HttpError } from "../contract/errors.js";

/**
 * Opaque search cursors: the next offset, bound to the search it continues. A cursor of another
 * search (other text, filters or seed view) is refused rather than silently paging something else.
 */
export interface CursorScope {
  query: string | null;
  includeSeed: boolean;
  type?: string | undefined;
  payTo?: string | undefined;
  network?: string | undefined;
  scheme?: string | undefined;
  extensions?: string | undefined;
  /** The mode and the price and tag filters: another ranking is another search. */
  ranking?: unknown[] | undefined;
}

function fingerprint(scope: CursorScope): string {
  const canonical = JSON.stringify([
    scope.query,
    scope.includeSeed,
    scope.type ?? null,
    scope.payTo?.toLowerCase() ?? null,
    scope.network ?? null,
    scope.scheme ?? null,
    scope.extensions ?? null,
    ...(scope.ranking ?? []),
  ]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 12);
}

export function encodeCursor(offset: number, scope: CursorScope): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint(scope) })).toString("base64url");
}

/** The contract's offsets are int32 (the `offset` parameter, `pagination.offset`): no cursor we issue goes further. */
const LARGEST_OFFSET = 2 ** 31 - 1;

const invalid = (message: string) =>
  new HttpError(400, "invalid_request", `Invalid request: query cursor ${message}.`, [
    { in: "query", field: "cursor", message },
  ]);

/** The offset a cursor continues from; 400 naming `cursor` when it is malformed or from another search. */
export function decodeCursor(cursor: string, scope: CursorScope): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid("is not a cursor returned by this service");
  }
  const { o, f } = (parsed ?? {}) as { o?: unknown; f?: unknown };
  if (typeof o !== "number" || !Number.isInteger(o) || o < 0 || o > LARGEST_OFFSET || typeof f !== "string") {
    throw invalid("is not a cursor returned by this service");
  }
  if (f !== fingerprint(scope)) throw invalid("belongs to another search (query, filters or seed view changed)");
  return o;
}
