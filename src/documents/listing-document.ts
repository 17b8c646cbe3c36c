// GET /listings/{id}: one live listing, with what buyers may check before paying it.
import type { components } from "../../generated/openapi.js";
import { toCatalogItem } from "../catalog/catalog-item.js";
import { linkTo, linkWithParams } from "../market/links.js";
import type { MarketFacts } from "../market/facts.js";
import type { Listing } from "../catalog/rows.js";

export type ListingDocument = components["schemas"]["ListingDocument"];

/** The history a listing document shows beside its item (health days and probes, usage days). */
export interface ListingHistory {
  healthHistory: ListingDocument["healthHistory"];
  lastProbes: ListingDocument["lastProbes"];
  usageHistory: ListingDocument["usageHistory"];
  /** Where the usage indexer stands (absent without a chain). */
  usageIndexer?: ListingDocument["usageIndexer"];
  /** Where it stands and why, and its recent transitions (the change log). */
  status: ListingDocument["status"];
  history: ListingDocument["history"];
}

export function listingDocument(listing: Listing, history: ListingHistory, market: MarketFacts): ListingDocument {
  return {
    item: toCatalogItem(listing, market),
    ...history,
    links: {
      self: linkWithParams(market, "/listings/{id}", { id: listing.id }),
      // The owner's operations (signed by sellerPayTo: the typed data to sign) and anyone's refresh (POST).
      signClaim: `${linkWithParams(market, "/listings/{id}/sign", { id: listing.id })}?action=claim`,
      signDelist: `${linkWithParams(market, "/listings/{id}/sign", { id: listing.id })}?action=delist`,
      refresh: linkWithParams(market, "/listings/{id}/refresh", { id: listing.id }),
      status: linkWithParams(market, "/listings/{id}/status", { id: listing.id }),
      sellerFeed: linkWithParams(market, "/sellers/{payTo}/feed.json", { payTo: listing.sellerPayTo.toLowerCase() }),
      sellerAtom: linkWithParams(market, "/sellers/{payTo}/feed.atom", { payTo: listing.sellerPayTo.toLowerCase() }),
      catalog: linkTo(market, "catalog"),
      feed: linkTo(market, "feed"),
    },
  };
}
