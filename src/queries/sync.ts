// The mirror API (GET /sync/listings, GET /sync/snapshot): what another catalog needs to mirror this
// one exactly and audit it. The incremental sync walks the change log (ListingEvent, in commit order)
// and answers each changed listing's CURRENT state, so re-reading an overlap is harmless; removals
// (delisted, expired, failed) are tombstones. The snapshot is every live listing, hashed and signed.
import type { components } from "../../generated/openapi.js";
import { toCatalogItem } from "../catalog/catalog-item.js";
import { HttpError } from "../contract/errors.js";
import type { MarketFacts } from "../market/facts.js";
import { snapshotContentHash, type SnapshotSigner } from "../market/snapshot-signing.js";
import type { ListingEventStore } from "./listing-event-store.js";
import type { Listing } from "../storage/listing/listing-store.js";
import type { CatalogQueryContext } from "./catalog.js";

type Schemas = components["schemas"];
export type SyncPage = Schemas["SyncPage"];
export type SignedSnapshot = Schemas["SignedSnapshot"];

/** `updated_since` re-reads this much before the instant asked: writers' clocks may differ by up to this. */
export const SYNC_OVERLAP_MS = 5_000;
/** Events read per page at most (a page answers up to `limit` distinct listings from them). */
const EVENTS_PER_PAGE = 2_000;

export interface SyncContext extends CatalogQueryContext {
  events: ListingEventStore;
  market: MarketFacts;
  signer: SnapshotSigner;
}

/** The change log's seq is a 32-bit integer column: a cursor beyond it was never issued. */
const MAX_SEQ = 2 ** 31 - 1;

const cursorOf = (seq: number) => Buffer.from(JSON.stringify({ s: seq })).toString("base64url");

function seqOf(cursor: string): number {
  try {
    const { s } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { s?: unknown };
    if (typeof s === "number" && Number.isSafeInteger(s) && s >= 0 && s <= MAX_SEQ) return s;
  } catch {
    // answered below
  }
  throw new HttpError(400, "invalid_request", "Invalid request: query cursor is not a nextCursor this service gave.", [
    { in: "query", field: "cursor", message: "is not a nextCursor this service gave" },
  ]);
}

function entryOf(
  listing: Listing | undefined,
  id: string,
  updatedAt: Date,
  now: Date,
  market: MarketFacts,
): SyncPage["items"][number] | null {
  const at = updatedAt.toISOString();
  if (!listing) return { id, updatedAt: at, removed: true, reason: "expired" };
  if (listing.leftoverSeed || listing.state === "pending") return null;
  if (listing.state === "delisted" || listing.state === "failed")
    return { id, updatedAt: at, removed: true, reason: listing.state };
  if (listing.expiresAt.getTime() <= now.getTime()) return { id, updatedAt: at, removed: true, reason: "expired" };
  return { id, updatedAt: at, removed: false, item: toCatalogItem(listing, market) };
}

export async function syncPage(
  context: SyncContext,
  query: { updated_since?: string; cursor?: string; limit?: number },
): Promise<SyncPage> {
  const limit = query.limit ?? 100;
  let after = 0;
  if (query.cursor !== undefined) after = seqOf(query.cursor);
  else if (query.updated_since !== undefined) {
    const since = Date.parse(query.updated_since) - SYNC_OVERLAP_MS;
    if (Number.isNaN(since))
      throw new HttpError(400, "invalid_request", "Invalid request: query updated_since is not an instant.");
    // No event is older than the epoch (and PostgreSQL holds no year 0): earlier means "everything".
    after = since <= 0 ? 0 : await context.events.seqBefore(new Date(since));
  }
  const events = await context.events.after(after, EVENTS_PER_PAGE);
  // The listings changed, in the order of their last change in this page, at most `limit` of them.
  const lastChange = new Map<string, { seq: number; at: Date }>();
  let consumed = after;
  for (const event of events) {
    if (!lastChange.has(event.listingId) && lastChange.size >= limit) break;
    lastChange.set(event.listingId, { seq: event.seq, at: event.at });
    consumed = event.seq;
  }
  const rows = new Map((await context.events.subjects([...lastChange.keys()])).map((row) => [row.id, row]));
  const now = context.now();
  const items = [...lastChange]
    .sort(([, a], [, b]) => a.seq - b.seq)
    .flatMap(([id, change]) => entryOf(rows.get(id), id, change.at, now, context.market) ?? []);
  const more = consumed < (events.at(-1)?.seq ?? 0) || events.length === EVENTS_PER_PAGE;
  const lastAt = events.find((event) => event.seq === consumed)?.at;
  return {
    items,
    nextCursor: more ? cursorOf(consumed) : null,
    updatedUntil: (lastAt ?? (query.updated_since ? new Date(query.updated_since) : new Date(0))).toISOString(),
  };
}

/** Every live listing, hashed and signed; built once per catalog state. */
export async function signedSnapshot(context: SyncContext, token: string): Promise<SignedSnapshot> {
  return context.store.transactions.memo.get(token, "signed-snapshot", async () => {
    const rows = await context.events.liveListings(context.now());
    const items = rows.map((row) => toCatalogItem(row, context.market));
    const generatedAt = context.now().toISOString();
    const contentHash = snapshotContentHash(items);
    return {
      snapshotVersion: 1 as const,
      generatedAt,
      items,
      contentHash,
      signature: await context.signer.sign(contentHash, generatedAt),
      signer: context.signer.address,
    };
  });
}
