// The listing document's query (`GET /listings/{id}` and the web page `/listing/{id}`): a live
// listing with its health and usage history, the three read in parallel.
import { listingDocument, type ListingDocument, type ListingHistory } from "../documents/listing-document.js";
import type { MarketFacts } from "../market/facts.js";
import type { Listing } from "../storage/listing-store.js";
import { listingStatus } from "../storage/listing-status.js";
import { DOCUMENT_HISTORY, listingHistory, type ListingEventsContext, type ListingStatus } from "./listing-events.js";

/** Where a listing's history is read: the health store and the usage service (only the reads this needs). */
export interface ListingHistorySources extends ListingEventsContext {
  health: { store: { history(listingId: string, now: Date): Promise<Pick<ListingHistory, "healthHistory" | "lastProbes">> } };
  usage: {
    history(listing: Listing, now: Date): Promise<ListingHistory["usageHistory"]>;
    state(): Promise<NonNullable<ListingHistory["usageIndexer"]> | null>;
  };
  market: MarketFacts;
  now(): Date;
}

/** A live listing's document: its item, its health history and last probes, its daily sales. */
export async function listingDocumentOf(listing: Listing, sources: ListingHistorySources): Promise<ListingDocument> {
  const now = sources.now();
  const [health, usageHistory, usageIndexer, history] = await Promise.all([
    sources.health.store.history(listing.id, now),
    sources.usage.history(listing, now),
    sources.usage.state(),
    listingHistory(sources, listing.id, DOCUMENT_HISTORY),
  ]);
  const status = listingStatus(listing, now) as ListingStatus;
  return listingDocument(listing, { ...health, usageHistory, ...(usageIndexer && { usageIndexer }), status, history }, sources.market);
}
