// A Listing row, column by column, in one place: which columns the raw read path selects, how a
// raw row (better-sqlite3 or $queryRaw: JSON as text, booleans as 0/1, dates as text, bigints as
// numbers) becomes the Listing Prisma returns, and which columns a renewal copies from the payment's
// pending row. Each table below is typed against the Prisma model: a field added to Listing in
// prisma/schema*.prisma fails `npm run typecheck` here until it is given a decoder and a renewal rule.
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import { toDate, toDateOrNull, type SqlRow } from "../catalog-reader.js";
import type { Listing } from "../listing-types.js";

type Decoders = { [K in keyof Listing]-?: (value: unknown) => Listing[K] };

const asIs = <T>(value: unknown) => value as T;
const json = (value: unknown) =>
  (typeof value === "string" ? (JSON.parse(value) as unknown) : (value ?? null)) as Prisma.JsonValue;
const flag = (value: unknown) => value === true || value === 1;

const DECODERS: Decoders = {
  id: asIs<string>,
  resource: asIs<string>,
  method: asIs<string>,
  priceUsdc: asIs<string>,
  priceAtomic: asIs<string>,
  description: asIs<string>,
  sellerPayTo: asIs<string>,
  inputSchema: json,
  network: asIs<string>,
  state: asIs<string>,
  leftoverSeed: flag,
  mimeType: asIs<string | null>,
  serviceName: asIs<string | null>,
  tags: asIs<string | null>,
  iconUrl: asIs<string | null>,
  bazaar: json,
  extensionKeys: asIs<string>,
  listedAt: toDate,
  expiresAt: toDate,
  updatedAt: toDate,
  priceMicros: (value) => BigInt(value as number | bigint | string),
  healthStatus: asIs<string>,
  healthSummary: json,
  ownerVerified: flag,
  calls30d: Number,
  usageSummary: json,
  sellerUsage: json,
  delistedAt: toDateOrNull,
  indexedKey: asIs<string | null>,
  indexedSource: asIs<string | null>,
  provenance: json,
  uptime7d: Number,
};

/** Every Listing column, as the Prisma model declares them: what the raw read path selects. */
export const LISTING_COLUMNS = Object.values(Prisma.ListingScalarFieldEnum) as readonly (keyof Listing)[];

/** A raw row of LISTING_COLUMNS as the Listing Prisma would return. */
export function toListing(row: SqlRow): Listing {
  const listing: Record<string, unknown> = {};
  for (const column of LISTING_COLUMNS) listing[column] = DECODERS[column](row[column]);
  return listing as Listing;
}

/**
 * What a renewal does with each column of the live listing it renews (ListingStore.activateListing):
 * `copied` from the paid pending row (what the seller submitted and its probe read), or `kept`.
 */
const ON_RENEWAL: { [K in keyof Listing]-?: "copied" | "kept" } = {
  id: "kept",
  // resource, method and sellerPayTo are equal: they are what found the listing to renew.
  resource: "kept",
  method: "kept",
  sellerPayTo: "kept",
  priceUsdc: "copied",
  priceAtomic: "copied",
  priceMicros: "copied",
  description: "copied",
  inputSchema: "copied",
  network: "copied",
  mimeType: "copied",
  serviceName: "copied",
  tags: "copied",
  iconUrl: "copied",
  bazaar: "copied",
  extensionKeys: "copied",
  state: "kept",
  leftoverSeed: "kept",
  listedAt: "kept",
  // Extended by one TTL, and verified if either payment proves the owner: the store computes them.
  expiresAt: "kept",
  ownerVerified: "kept",
  updatedAt: "kept",
  healthStatus: "kept",
  healthSummary: "kept",
  uptime7d: "kept",
  calls30d: "kept",
  usageSummary: "kept",
  sellerUsage: "kept",
  delistedAt: "kept",
  // A paid listing never carries them (an indexed row is replaced by the listing of its resource).
  indexedKey: "kept",
  indexedSource: "kept",
  provenance: "kept",
};

/** The JSON columns, whose null Prisma writes as Prisma.DbNull. */
export const JSON_COLUMNS = new Set(LISTING_COLUMNS.filter((column) => DECODERS[column] === json));

/** The columns a renewal copies from the pending row (paid-listing-sql.ts renewListingRow). */
export const RENEWED_COLUMNS = LISTING_COLUMNS.filter((column) => ON_RENEWAL[column] === "copied");
