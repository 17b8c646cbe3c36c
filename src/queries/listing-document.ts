// The listing document's query (`GET /listings/{id}` and the web page `/listing/{id}`): a live
// listing with its health and usage history, the three read in parallel.
import { listingDocument, type ListingDocument, type ListingHistory } from "../documents/listing-document.js";
import type { MarketFacts } from "../market/facts.js";
import type { Listing } from "../storage/listing/listing-store.js";
import { listingStatus } from "../storage/listing/listing-status.js";
import { DOCUMENT_HISTORY, listingHistory, type ListingEventsContext, type ListingStatus } from "./listing-events.js";

/** Where a listing's history is read: the health store and the usage service (only the reads this needs). */
export interface ListingHistorySources extends ListingEventsContext {
  health: {
    store: {
      history(
        listingId: string,
        now: Date,
      ): Promise<Pick<ListingHistory, "healthHistory" | "lastProbes"> & { quietUntil: Date | null }>;
    };
  };
  usage: {
    history(listing: Listing, now: Date): Promise<ListingHistory["usageHistory"]>;
    state(): Promise<NonNullable<ListingHistory["usageIndexer"]> | null>;
  };
  market: MarketFacts;
  now(): Date;
}

/**
 * A rendered listing document and until when (the clock's ms) it may be served again while the
 * catalog version holds: its lastProbes can gain a round's probe without a catalog write once the
 * listing is due again. Null: not kept (a round may hold the listing now).
 */
export interface RenderedListing {
  document: ListingDocument;
  reusableUntil: number | null;
}

/** A live listing's document: its item, its health history and last probes, its daily sales. */
export async function listingDocumentOf(listing: Listing, sources: ListingHistorySources): Promise<RenderedListing> {
  const now = sources.now();
  const [{ quietUntil, ...health }, usageHistory, usageIndexer, history] = await Promise.all([
    sources.health.store.history(listing.id, now),
    sources.usage.history(listing, now),
    sources.usage.state(),
    listingHistory(sources, listing.id, DOCUMENT_HISTORY),
  ]);
  const status = listingStatus(listing, now) as ListingStatus;
  const document = listingDocument(
    listing,
    { ...health, usageHistory, ...(usageIndexer && { usageIndexer }), status, history },
    sources.market,
  );
  return { document, reusableUntil: quietUntil?.getTime() ?? null };
}
