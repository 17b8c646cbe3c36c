import type { MarketFacts } from "../market/facts.js";
import type { ListingStore } from "../storage/listing-store.js";

/** What document builders read: the market's facts, and the compiled contract for schemas and routes. */
export interface DocumentContext {
  market: MarketFacts;
  contract: { document: Record<string, unknown> };
}

/** What a builder that reads the catalog itself needs besides. */
export interface CatalogReadContext extends DocumentContext {
  store: ListingStore;
  now(): Date;
}
