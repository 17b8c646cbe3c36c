// Reads of the catalog's change log (ListingEvent): written only by CatalogTransactions.write, in the
// transaction of the change it records. Pages go by seq, which is commit order (see the model).
import type { Listing, ListingEvent } from "../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions } from "../storage/catalog/catalog-transactions.js";

export type { ListingEvent };

export const MAX_EVENT_PAGE = 1000;

export class ListingEventStore {
  constructor(private readonly transactions: CatalogTransactions) {}

  /** Every listing's events after seq, oldest first: the outbox a deliverer or a mirror follows. */
  after(seq: number, limit: number): Promise<ListingEvent[]> {
    return this.transactions.read(() =>
      this.transactions.prisma.listingEvent.findMany({
        where: { seq: { gt: seq } },
        orderBy: { seq: "asc" },
        take: clamp(limit),
      }),
    );
  }

  /** One listing's events, newest first: its transition history. */
  forListing(listingId: string, limit: number, beforeSeq?: number): Promise<ListingEvent[]> {
    return this.transactions.read(() =>
      this.transactions.prisma.listingEvent.findMany({
        where: { listingId, ...(beforeSeq !== undefined && { seq: { lt: beforeSeq } }) },
        orderBy: { seq: "desc" },
        take: clamp(limit),
      }),
    );
  }

  /** One seller's events (payTo, any case), newest first: the per-seller feeds. */
  forSeller(sellerPayTo: string, limit: number, beforeSeq?: number): Promise<ListingEvent[]> {
    return this.transactions.read(() =>
      this.transactions.prisma.listingEvent.findMany({
        where: { sellerPayTo: sellerPayTo.toLowerCase(), ...(beforeSeq !== undefined && { seq: { lt: beforeSeq } }) },
        orderBy: { seq: "desc" },
        take: clamp(limit),
      }),
    );
  }

  /** The listing the events are about, in any state (a delisted, failed or expired one too), or null when no row is stored. */
  subject(listingId: string): Promise<Listing | null> {
    return this.transactions.read(() => this.transactions.prisma.listing.findUnique({ where: { id: listingId } }));
  }

  /** Several listings by id, any state (the webhook fan-out reads a page's listings at once). */
  subjects(listingIds: string[]): Promise<Listing[]> {
    if (listingIds.length === 0) return Promise.resolve([]);
    return this.transactions.read(() =>
      this.transactions.prisma.listing.findMany({ where: { id: { in: listingIds } } }),
    );
  }

  /** The seq just before the first event at or after `at` (0 when there is none before it): where a sync by time starts. */
  async seqBefore(at: Date): Promise<number> {
    const first = await this.transactions.read(() =>
      this.transactions.prisma.listingEvent.findFirst({
        where: { at: { gte: at } },
        orderBy: { seq: "asc" },
        select: { seq: true },
      }),
    );
    if (first) return first.seq - 1;
    return this.lastSeq();
  }

  /** Every live listing (seed rows excluded), by id: the signed snapshot. */
  liveListings(now: Date): Promise<Listing[]> {
    return this.transactions.read(() =>
      this.transactions.prisma.listing.findMany({
        where: { state: "active", leftoverSeed: false, expiresAt: { gt: now } },
        orderBy: { id: "asc" },
      }),
    );
  }

  /** The newest seq, 0 when there is none: where a new follower starts. */
  async lastSeq(): Promise<number> {
    const row = await this.transactions.read(() =>
      this.transactions.prisma.listingEvent.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }),
    );
    return row?.seq ?? 0;
  }
}

function clamp(limit: number): number {
  return Math.max(1, Math.min(MAX_EVENT_PAGE, Math.floor(limit)));
}
