// The Bazaar list filters (type, payTo, network, scheme, extensions) and the trust filters (health,
// verified, minCalls) and order (sort) as the rows a read shows.
import { getAddress, isAddress } from "viem";
import { NETWORK } from "../../constants.js";
import type { CatalogSort, CatalogSource, CatalogView, HealthGroup } from "./catalog-sql.js";

/**
 * What every catalog item is: an HTTP resource paid by the `exact` scheme on the market's network
 * (listing refuses any other), with at most the `bazaar` extension (its seller declared one).
 */
export const ITEM_TYPE = "http";
export const ITEM_SCHEME = "exact";
export const BAZAAR_EXTENSION = "bazaar";

/** The filters as a read receives them (the contract's query parameters fit this). */
export interface CatalogFilters {
  type?: string | undefined;
  payTo?: string | undefined;
  network?: string | undefined;
  scheme?: string | undefined;
  extensions?: string | undefined;
  /** `any` (or absent) keeps every listing; `unknown` (not re-probed yet) is the web page's healthy-first grouping, not a contract value. */
  health?: "any" | HealthGroup | undefined;
  /** `true` keeps owner-verified listings only; `false` or absent keeps all. */
  verified?: boolean | undefined;
  minCalls?: number | undefined;
  sort?: CatalogSort | undefined;
  /** USDC decimal strings (at most 6 decimals): the price range, inclusive. */
  minPrice?: string | undefined;
  maxPrice?: string | undefined;
  /** Comma-separated tags, every one required (case-insensitive). */
  tags?: string | undefined;
  /** `listed` (or absent): paid listings; `indexed`: rows read from other catalogs; `all`: both. */
  source?: CatalogSource | undefined;
}

/** A USDC decimal string (the contract's pattern checked it) in micros. */
export function usdcMicros(decimal: string | undefined): number | undefined {
  if (decimal === undefined) return undefined;
  const [whole = "0", fraction = ""] = decimal.split(".");
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0").slice(0, 6));
}

/** The tags a filter asks for, lowercased, without blanks or duplicates. */
export function tagList(tags: string | undefined): string[] | undefined {
  const list = [
    ...new Set(
      (tags ?? "")
        .split(",")
        .map((tag) => tag.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  return list.length ? list : undefined;
}

/**
 * The rows a filtered read shows, or null when no item can pass the filters (an `mcp` type, another
 * scheme or network, an extension no item carries, a payTo that is no address): the read is then an
 * empty page without a query.
 */
export function catalogView(filters: CatalogFilters, includeSeed: boolean): CatalogView | null {
  if (filters.type !== undefined && filters.type !== ITEM_TYPE) return null;
  if (filters.scheme !== undefined && filters.scheme !== ITEM_SCHEME) return null;
  if (filters.network !== undefined && filters.network !== NETWORK) return null;
  if (filters.extensions !== undefined && filters.extensions !== BAZAAR_EXTENSION) return null;
  if (filters.payTo !== undefined && !isAddress(filters.payTo, { strict: false })) return null;
  return {
    includeSeed,
    payTo: filters.payTo === undefined ? undefined : getAddress(filters.payTo.toLowerCase()),
    extensionKey: filters.extensions,
    health: filters.health === "any" ? undefined : filters.health,
    verified: filters.verified === true ? true : undefined,
    minCalls: filters.minCalls !== undefined && filters.minCalls > 0 ? filters.minCalls : undefined,
    sort: filters.sort,
    minPriceMicros: usdcMicros(filters.minPrice),
    maxPriceMicros: usdcMicros(filters.maxPrice),
    tags: tagList(filters.tags),
    source: filters.source === "listed" ? undefined : filters.source,
  };
}
