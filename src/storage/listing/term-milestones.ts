// The change log's time-driven events: a paid term that ends within 7 days, within 1 day, and that
// ended. Nothing writes a listing when time passes, so a job looks for due milestones and records
// each once per term (keyed by the term's expiresAt), in one serialised catalog write: two instances
// running it at once record nothing twice. No catalog version bump: reads already hide an expired
// listing the instant it expires.
import { setImmediate } from "node:timers/promises";
import type { Listing } from "../../../generated/prisma/sqlite/client.js";
import { DAY_MS } from "../../constants.js";
import type { CatalogTransactions } from "../catalog/catalog-transactions.js";
import { listingEvent } from "./listing-status.js";
import type { ListingEventDraft } from "../listing-types.js";

/** Before the term ends: how long ahead each warning goes out. */
export const EXPIRING_MILESTONES = [
  { name: "7d", beforeMs: 7 * DAY_MS },
  { name: "1d", beforeMs: DAY_MS },
] as const;

/** Terms that ended longer ago than this get no expired event (the row is deleted a week after). */
const EXPIRED_LOOKBACK_MS = 6 * DAY_MS;

const BATCH = 500;

interface Milestone {
  type: "listing.expiring" | "listing.expired";
  milestone: string;
}

function dueMilestones(expiresAt: Date, now: Date): Milestone[] {
  const left = expiresAt.getTime() - now.getTime();
  if (left <= 0) return [{ type: "listing.expired", milestone: "ended" }];
  // Only the nearest warning: a listing 12 hours from its end gets "1d", not a late "7d" too.
  const nearest = [...EXPIRING_MILESTONES].reverse().find((m) => left <= m.beforeMs);
  return nearest ? [{ type: "listing.expiring", milestone: nearest.name }] : [];
}

/** Records the due expiring/expired events not recorded yet for these terms; returns how many. */
export async function recordTermMilestones(transactions: CatalogTransactions, now: Date): Promise<number> {
  const horizon = new Date(now.getTime() + EXPIRING_MILESTONES[0].beforeMs);
  const since = new Date(now.getTime() - EXPIRED_LOOKBACK_MS);
  let recorded = 0;
  let afterId: string | null = null;
  for (;;) {
    const written = await transactions.write(now, async (tx) => {
      const due: Listing[] = await tx.listing.findMany({
        where: {
          state: "active",
          leftoverSeed: false,
          expiresAt: { lte: horizon, gt: since },
          ...(afterId && { id: { gt: afterId } }),
        },
        orderBy: { id: "asc" },
        take: BATCH,
      });
      if (due.length === 0) return { result: null, changed: false };
      const seen = await tx.listingEvent.findMany({
        where: {
          listingId: { in: due.map((listing) => listing.id) },
          type: { in: ["listing.expiring", "listing.expired"] },
        },
        select: { listingId: true, data: true },
      });
      const keys = new Set(seen.map((event) => termKey(event.listingId, event.data)));
      const events: ListingEventDraft[] = [];
      for (const listing of due) {
        const term = listing.expiresAt.toISOString();
        for (const { type, milestone } of dueMilestones(listing.expiresAt, now)) {
          if (keys.has(`${listing.id}|${term}|${milestone}`)) continue;
          events.push(listingEvent(listing, type, now, { milestone, expiresAt: term }));
        }
      }
      return {
        result: { last: due[due.length - 1]!.id, count: events.length, full: due.length === BATCH },
        changed: false,
        events,
      };
    });
    if (!written) return recorded;
    recorded += written.count;
    if (!written.full) return recorded;
    afterId = written.last;
    // A turn for requests between batches: SQLite's statements run synchronously under their promises.
    await setImmediate();
  }
}

function termKey(listingId: string, data: unknown): string {
  const { expiresAt, milestone } = (data ?? {}) as { expiresAt?: string; milestone?: string };
  return `${listingId}|${expiresAt}|${milestone}`;
}
