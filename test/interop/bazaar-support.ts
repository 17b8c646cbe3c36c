// Shared by the Bazaar interop suites: a catalog of several sellers, some declaring extensions.bazaar,
// and the published discovery conformance check (x402 specs/extensions/run_bazaar_discovery_vectors.sh,
// its `evaluate`), ported line for line so our routes are judged as that script judges them.
import { readFileSync } from "node:fs";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { SellerMetadata } from "../../src/storage/listing-types.js";
import { getAddress } from "viem";
import type { CatalogServer } from "../support/catalog.js";

export interface Item {
  type: string;
  resource: string;
  description: string;
  accepts: Array<{ scheme: string; network: string; payTo: string }>;
  extensions?: Record<string, unknown>;
  metadata: { listingId: string; leftoverSeed: boolean };
}

export interface ListBody {
  items: Item[];
  pagination: { limit: number; offset: number; total: number; cursor?: string | null; nextCursor?: string | null };
  unappliedFilters?: unknown;
  error?: unknown;
  fields?: Array<{ in: string; field: string; message: string }>;
}

const aliases = JSON.parse(readFileSync(new URL("../../spec/aliases.json", import.meta.url), "utf8")) as {
  catalog: Record<string, string[]>;
};
/** Every path of the catalog lists: `/discovery/resources`, its aliases, and `/bazaar.json` and its aliases. */
export const LIST_ROUTES = [...aliases.catalog.listResources!, ...aliases.catalog.getCatalog!];
/** Every path of the catalog searches. */
export const SEARCH_ROUTES = [...aliases.catalog.searchResources!, ...aliases.catalog.searchCatalog!];

/** A word in every description of the fixture catalog (and in no seed row), so searches see all of it. */
export const WORD = "quokka";

const seller = (hex: string) => getAddress(`0x${hex.repeat(20)}`);
/** Three sellers, mixed-case (checksummed) as the catalog shows them. */
export const SELLER = { a: seller("a1"), b: seller("b2"), c: seller("c3") };

/** What a seller's 402 would declare, built by the SDK's own declaration helper. */
export const BAZAAR = declareDiscoveryExtension({
  bodyType: "json",
  input: { text: "hello" },
  output: { example: { ok: true } },
} as never).bazaar as unknown as NonNullable<SellerMetadata["bazaar"]>;

/**
 * Seller a: three listings, one with extensions.bazaar; b: two, both with it; c: two, neither.
 * Every listing is on eip155:8453 (the only network a listing can be on), paid by `exact`.
 */
export async function listFixtureCatalog(
  market: Pick<CatalogServer, "list">,
  perSeller = { a: 3, b: 2, c: 2 },
): Promise<void> {
  const plan: Array<[keyof typeof SELLER, number, (i: number) => boolean]> = [
    ["a", perSeller.a, (i) => i === 0],
    ["b", perSeller.b, () => true],
    ["c", perSeller.c, () => false],
  ];
  for (const [seller, count, declares] of plan) {
    for (let i = 0; i < count; i++) {
      await market.list({
        resource: `https://${seller}${i}.sellers.example.com/api`,
        description: `The ${WORD} service ${seller}${i}`,
        sellerPayTo: SELLER[seller],
        ...(declares(i) && { metadata: { serviceName: `Seller ${seller} ${i}`, bazaar: BAZAAR } }),
      });
    }
  }
}

export type Verdict = "ok" | "fail" | "incomplete";
export type ValueKind = "well-formed" | "malformed" | "positive";

/** The published vectors V1..V6; V0 is the baseline `?limit=50`. */
export const VECTORS: Array<[id: string, param: string, kind: ValueKind, value: string]> = [
  ["V1", "type", "well-formed", "mcp"],
  ["V2", "payTo", "well-formed", "0x0000000000000000000000000000000000000001"],
  ["V3", "scheme", "well-formed", "batch-settlement"],
  ["V4", "network", "well-formed", "eip155:999999999"],
  ["V5", "extensions", "well-formed", "payment-identifier"],
  ["V6", "network", "malformed", "!!!"],
];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function itemsOf(body: unknown): unknown[] | null {
  return isObject(body) && Array.isArray(body.items) ? body.items : null;
}

export function resourcesAreUsable(rows: unknown[]): rows is Item[] {
  return rows.every(
    (r) =>
      isObject(r) &&
      typeof r.type === "string" &&
      Array.isArray(r.accepts) &&
      r.accepts.every(isObject) &&
      (r.extensions === undefined || r.extensions === null || isObject(r.extensions)),
  );
}

function unapplied(body: unknown): string[] | null {
  const value = isObject(body) ? body.unappliedFilters : undefined;
  if (value === undefined || value === null) return [];
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : null;
}

export function satisfies(resource: Item, param: string, value: string): boolean {
  const accepts = resource.accepts as unknown as Array<Record<string, unknown>>;
  if (param === "network" || param === "scheme") return accepts.some((a) => String(a[param]) === value);
  if (param === "payTo") return accepts.some((a) => String(a.payTo).toLowerCase() === value.toLowerCase());
  if (param === "type") return resource.type === value;
  if (param === "extensions") return isObject(resource.extensions) && value in resource.extensions;
  return false;
}

/** The script's `evaluate`: [verdict, note]. */
export function evaluate(
  param: string,
  kind: ValueKind,
  value: string,
  response: { status: number; body: unknown },
  baseline?: unknown[],
): [Verdict, string] {
  const { status, body } = response;
  if (status === 400) {
    if (kind !== "malformed") return ["fail", "400 is allowed only for malformed input"];
    const error = isObject(body) ? body.error : undefined;
    if (!(typeof error === "string" && error.trim() !== ""))
      return ["fail", "400 body needs a non-empty JSON string field named error"];
    return ["ok", "rejected malformed input with a JSON error"];
  }
  if (status !== 200) return ["incomplete", `unexpected HTTP status ${status}`];
  const rows = itemsOf(body);
  if (rows === null) return ["incomplete", "response has no items array"];
  if (!resourcesAreUsable(rows)) return ["incomplete", "items contains an unusable resource shape"];
  const declared = unapplied(body);
  if (declared === null) return ["incomplete", "unappliedFilters is not an array of strings"];
  if (declared.includes(param)) return ["ok", "declared in unappliedFilters"];
  const bad = rows.filter((r) => !satisfies(r, param, value));
  if (kind === "positive") {
    if (rows.length === 0) return ["fail", "empty although the baseline contains this value"];
    if (bad.length > 0) return ["fail", `${bad.length} of ${rows.length} items do not satisfy the filter`];
    if (baseline !== undefined && JSON.stringify(rows) === JSON.stringify(baseline)) {
      return ["fail", "all items match, but the response did not exclude known non-matches"];
    }
    return ["ok", `${rows.length} items; all satisfy the filter`];
  }
  if (rows.length === 0) {
    const pagination = isObject(body) ? body.pagination : undefined;
    if (isObject(pagination) && "total" in pagination && pagination.total !== 0)
      return ["fail", "items is empty but pagination.total is not zero"];
    return ["ok", "empty result set"];
  }
  if (bad.length === 0) return ["ok", `${rows.length} items; all satisfy the filter`];
  return ["fail", `${bad.length} of ${rows.length} items do not satisfy the filter and it is not declared unapplied`];
}

/** `path` with `params` appended (after any query it already has). */
export function withQuery(path: string, params: Record<string, string | number | boolean>): string {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  if (!query) return path;
  return `${path}${path.includes("?") ? "&" : "?"}${query}`;
}

export const idsOf = (items: Item[]): string[] => items.map((item) => item.metadata.listingId).sort();
