// Indexed rows (issue 28): resources other catalogs and domains publish, kept beside the paid listings
// in Listing with state "indexing" (our probe has not confirmed the 402 yet: never shown) or
// "indexed". One row per METHOD + resource across every source (indexedKey); a resource someone has
// listed (paid) is never indexed beside it. Every write goes through the catalog's one write path.
import { randomUUID } from "node:crypto";
import { formatUnits } from "viem";
import { DAY_MS, NETWORK } from "../constants.js";
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions, Tx } from "../storage/catalog/catalog-transactions.js";
import { indexedKeyOf } from "../storage/listing-types.js";

/** A row not seen again in its source for this long expires (and a complete pass removes it sooner). */
export const INDEXED_ROW_TTL_MS = 7 * DAY_MS;
/** Rows per write transaction: Prisma builds a batch's statements in one stretch of the event loop (100 rows: up to 80 ms of CPU on a loaded machine). */
const KEYS_PER_QUERY = 50;

/** One resource as a source declares it, checked (src/indexing/candidates.ts). */
export interface IndexedResource {
  resource: string;
  method: "GET" | "POST";
  description: string;
  /** Integer string in the token's smallest unit. */
  priceAtomic: string;
  /** Checksummed. */
  payTo: string;
  serviceName?: string | undefined;
  tags?: string[] | undefined;
  mimeType?: string | undefined;
  /** The document it was read from (scheme, host and path). */
  document: string;
  /** A mirrored marketplace's listing id, kept as the row's id so its tombstones find it (sync sources). */
  id?: string | undefined;
}

export interface IngestCounts {
  added: number;
  updated: number;
  /** Seen again, nothing changed (its expiry moves on). */
  seen: number;
  /** A paid listing of the same METHOD + resource exists: the listing is the row. */
  listed: number;
  /** Another source gave it first. */
  otherSource: number;
  /** New, but the source holds as many rows as it may (INDEX_MAX_ITEMS): not stored. */
  overCap: number;
}

export interface Checkpoint {
  source: string;
  cursor: string | null;
  updatedSince: string | null;
  passStartedAt: Date | null;
  lastCompletedAt: Date | null;
  lastProblem: string | null;
}

/** What is stored of where a row came from; its last sighting is the row's updatedAt. */
interface Provenance {
  source: string;
  document: string;
  firstSeenAt: string;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The columns a source's declaration sets. */
function declared(row: IndexedResource) {
  return {
    description: row.description,
    priceAtomic: row.priceAtomic,
    priceUsdc: formatUnits(BigInt(row.priceAtomic), 6),
    priceMicros: BigInt(row.priceAtomic),
    sellerPayTo: row.payTo,
    serviceName: row.serviceName ?? null,
    tags: row.tags?.length ? JSON.stringify(row.tags) : null,
    mimeType: row.mimeType ?? null,
  };
}

export class IndexStore {
  constructor(private readonly transactions: CatalogTransactions) {}

  private get prisma() {
    return this.transactions.prisma;
  }

  /**
   * Adds or refreshes a source's resources; each seen row's expiry moves to now + 7 days. At most
   * `room` new rows are added (the rest counted as overCap); rows already held are refreshed anyway.
   */
  async ingest(
    source: string,
    rows: IndexedResource[],
    now: Date,
    room = Number.POSITIVE_INFINITY,
  ): Promise<IngestCounts> {
    const counts: IngestCounts = { added: 0, updated: 0, seen: 0, listed: 0, otherSource: 0, overCap: 0 };
    const unique = [...new Map(rows.map((row) => [indexedKeyOf(row.method, row.resource), row])).values()];
    for (const batch of chunks(unique, KEYS_PER_QUERY)) {
      const started = performance.now();
      await this.transactions.write(now, async (tx) => {
        const shownChanged = await this.ingestBatch(tx, source, batch, now, counts, room);
        return { result: undefined, changed: shownChanged };
      });
      // Rest as long as the batch took: requests waiting for the database (and the one thread) go first.
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, performance.now() - started)));
    }
    return counts;
  }

  /**
   * One batch in one short transaction: two reads, one insert of the new rows, one update of those
   * seen again, and an update per changed row. True when a shown row changed: a new row is hidden until
   * the prober confirms it, and a sighting only moves its expiry, so neither changes what the catalog
   * shows (no catalog version bump: cached pages stay valid through a crawl of an unchanged source).
   */
  private async ingestBatch(
    tx: Tx,
    source: string,
    batch: IndexedResource[],
    now: Date,
    counts: IngestCounts,
    room: number,
  ): Promise<boolean> {
    const keys = batch.map((row) => indexedKeyOf(row.method, row.resource));
    const existing = new Map(
      (await tx.listing.findMany({ where: { indexedKey: { in: keys } } })).map((row) => [row.indexedKey!, row]),
    );
    // By resource alone (its index's first column): an OR of (resource, method) pairs was planned as a walk of every live row.
    const sameResource = await tx.listing.findMany({
      where: { resource: { in: [...new Set(batch.map((row) => row.resource))] } },
      select: { resource: true, method: true, state: true, expiresAt: true },
    });
    const listedKeys = new Set(
      sameResource
        .filter((row) => row.state === "active" && row.expiresAt > now)
        .map((row) => indexedKeyOf(row.method, row.resource)),
    );
    const expiresAt = new Date(now.getTime() + INDEXED_ROW_TTL_MS);
    const created: Prisma.ListingCreateManyInput[] = [];
    const seenIds: string[] = [];
    let shownChanged = false;
    for (const row of batch) {
      const key = indexedKeyOf(row.method, row.resource);
      const found = existing.get(key);
      if (listedKeys.has(key)) {
        counts.listed++;
        continue;
      }
      if (found && found.indexedSource !== source) {
        counts.otherSource++;
        continue;
      }
      const data = declared(row);
      if (!found) {
        if (counts.added + created.length >= room) {
          counts.overCap++;
          continue;
        }
        const provenance: Provenance = { source, document: row.document, firstSeenAt: now.toISOString() };
        created.push({
          id: row.id ?? randomUUID(),
          resource: row.resource,
          method: row.method,
          network: NETWORK,
          state: "indexing",
          listedAt: now,
          updatedAt: now,
          expiresAt,
          indexedKey: key,
          indexedSource: source,
          provenance: provenance as unknown as Prisma.InputJsonValue,
          ...data,
        });
        continue;
      }
      const changed = (Object.keys(data) as Array<keyof typeof data>).some(
        (column) => String(found[column]) !== String(data[column]),
      );
      if (!changed) {
        seenIds.push(found.id);
        continue;
      }
      await tx.listing.update({
        where: { id: found.id },
        data: {
          ...data,
          expiresAt,
          updatedAt: now,
          provenance: {
            ...(found.provenance as unknown as Provenance),
            document: row.document,
          } as unknown as Prisma.InputJsonValue,
          // A new payTo has not proven anything: its claim, if any, was the old address's.
          ...(found.sellerPayTo !== row.payTo && { ownerVerified: false }),
        },
      });
      counts.updated++;
      shownChanged ||= found.state === "indexed";
    }
    if (created.length > 0) counts.added += (await tx.listing.createMany({ data: created })).count;
    if (seenIds.length > 0) {
      // Seen again: the expiry moves on, and updatedAt (the item's provenance.lastSeenAt) is now.
      await tx.listing.updateMany({ where: { id: { in: seenIds } }, data: { expiresAt, updatedAt: now } });
      counts.seen += seenIds.length;
    }
    return shownChanged;
  }

  /** Removes a source's rows of these ids (a mirrored marketplace's tombstones: its listing ids are the rows' ids). */
  async removeIds(source: string, ids: string[], now: Date): Promise<number> {
    let removed = 0;
    for (const batch of chunks([...new Set(ids)], KEYS_PER_QUERY)) {
      removed += await this.transactions.write(now, async (tx) => {
        const { count } = await tx.listing.deleteMany({ where: { indexedSource: source, id: { in: batch } } });
        return { result: count, changed: count > 0 };
      });
    }
    return removed;
  }

  /** After a complete pass: removes the source's rows the pass did not see (not written since it started). */
  sweep(source: string, passStartedAt: Date, now: Date): Promise<number> {
    return this.transactions.write(now, async (tx) => {
      const { count } = await tx.listing.deleteMany({
        where: { indexedSource: source, state: { in: ["indexing", "indexed"] }, updatedAt: { lt: passStartedAt } },
      });
      return { result: count, changed: count > 0 };
    });
  }

  /** How many rows a source holds (what INDEX_MAX_ITEMS bounds). */
  countOf(source: string): Promise<number> {
    return this.prisma.listing.count({ where: { indexedSource: source } });
  }

  /** The METHOD + resource keys of a source's rows, in order. */
  async keysOf(source: string): Promise<string[]> {
    const rows = await this.prisma.listing.findMany({
      where: { indexedSource: source },
      select: { indexedKey: true },
      orderBy: { indexedKey: "asc" },
    });
    return rows.map((row) => row.indexedKey!);
  }

  async checkpoint(source: string): Promise<Checkpoint> {
    const row = await this.prisma.indexCheckpoint.findUnique({ where: { source } });
    return {
      source,
      cursor: row?.cursor ?? null,
      updatedSince: row?.updatedSince ?? null,
      passStartedAt: row?.passStartedAt ?? null,
      lastCompletedAt: row?.lastCompletedAt ?? null,
      lastProblem: row?.lastProblem ?? null,
    };
  }

  async saveCheckpoint(
    source: string,
    data: Partial<Omit<Checkpoint, "source">> & { lastRunAt: Date; lastCounts?: Record<string, number> | undefined },
  ): Promise<void> {
    const { lastCounts, ...rest } = data;
    const fields = { ...rest, ...(lastCounts && { lastCounts: lastCounts as Prisma.InputJsonValue }) };
    await this.prisma.indexCheckpoint.upsert({ where: { source }, create: { source, ...fields }, update: fields });
  }
}
