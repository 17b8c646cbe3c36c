// The Bazaar list filters (type, payTo, network, scheme, extensions) and the trust filters (health,
// verified, minCalls) and order (sort) as the rows a read shows.
import { getAddress, isAddress } from "viem";
import { NETWORK } from "../constants.js";
import type { CatalogSort, CatalogView } from "./catalog-sql.js";

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
  /** `any` (or absent) keeps every listing. */
  health?: "any" | "healthy" | "unhealthy" | "drifted" | undefined;
  /** `true` keeps owner-verified listings only; `false` or absent keeps all. */
  verified?: boolean | undefined;
  minCalls?: number | undefined;
  sort?: CatalogSort | undefined;
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
  };
}
