import { getAddress } from "viem";
import type { operations } from "../../generated/openapi.js";
import { NETWORK } from "../constants.js";
import type { CatalogView } from "../storage/listing-store.js";

/** The Bazaar list filters, as the contract declares them on the catalog lists and searches. */
export type ListFilterQuery = Pick<NonNullable<operations["listResources"]["parameters"]["query"]>, "type" | "payTo" | "network" | "scheme" | "extensions">;

/**
 * What every catalog item is: an HTTP resource paid by the `exact` scheme on the market's network
 * (listing refuses any other), with at most the `bazaar` extension.
 */
const ITEM_TYPE = "http";
const ITEM_SCHEME = "exact";
const STORED_EXTENSION_KEYS = new Set(["bazaar"]);

/**
 * The rows a filtered read shows, or null when no item can pass the filters (an `mcp` type, another
 * scheme, an extension no item carries): the read is then an empty page without a query.
 * The contract has already refused malformed values with a 400 naming them.
 */
export function catalogView(query: ListFilterQuery, includeSeed: boolean): CatalogView | null {
  if (query.type !== undefined && query.type !== ITEM_TYPE) return null;
  if (query.scheme !== undefined && query.scheme !== ITEM_SCHEME) return null;
  if (query.network !== undefined && query.network !== NETWORK) return null;
  if (query.extensions !== undefined && !STORED_EXTENSION_KEYS.has(query.extensions)) return null;
  return {
    includeSeed,
    payTo: query.payTo === undefined ? undefined : getAddress(query.payTo.toLowerCase()),
    extensionKey: query.extensions,
  };
}
