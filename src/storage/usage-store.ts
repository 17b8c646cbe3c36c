// What the usage indexer (src/usage/) keeps: the token transfers it read (UsageTransfer), where it
// stopped (ChainCheckpoint), and the published usage columns of Listing. Transfers and the
// checkpoint are written in one transaction, so a restart (kill -9 included) resumes exactly where
// the last commit stopped. Only the published columns go through CatalogTransactions.write (one
// catalog version bump per pass, and only when something shown changed).
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions, Tx } from "./catalog-transactions.js";

/** The indexer's checkpoint: every tracked seller has been read up to this block. */
export const USAGE_CHECKPOINT = "usage";
/** The chain head the indexer last saw (block number, and the time it looked): the lag. */
export const USAGE_HEAD = "usage:head";
/** One row per tracked seller: the block it has been read up to (below the checkpoint while it is backfilled). */
const SELLER_PREFIX = "usage:seller:";

export interface Checkpoint {
  blockNumber: bigint;
  blockHash: string;
  updatedAt: Date;
}

/** One Transfer log, addresses lowercase, amount in the token's smallest unit. */
export interface TransferRow {
  id: string;
  blockNumber: bigint;
  blockHash: string;
  txHash: string;
  logIndex: number;
  payer: string;
  payTo: string;
  amount: string;
  at: Date;
}

/** Transfers from one payer to one address of one amount in a window: what rollups are made of. */
export interface TransferGroup {
  payTo: string;
  payer: string;
  amount: string;
  count: number;
  firstAt: Date;
  lastAt: Date;
}

/** A live third-party listing, as the rollup needs it. */
export interface LiveListing {
  id: string;
  /** Lowercase. */
  seller: string;
  priceAtomic: string;
  listedAt: Date;
  expiresAt: Date;
  calls30d: number;
  usageSummary: unknown;
  sellerUsage: unknown;
}

/** Listings whose published usage one transaction writes. */
const PUBLISH_CHUNK = 200;

/** What one listing's published usage becomes. */
export interface UsageUpdate {
  id: string;
  calls30d: number;
  usageSummary: Prisma.InputJsonObject;
  sellerUsage: Prisma.InputJsonObject | null;
}

/** Where a chunk of reading moves things, written with its transfers. */
export interface RangeCommit {
  transfers: TransferRow[];
  /** The sellers read in this chunk and the block they are now read to. */
  sellers: string[];
  coveredTo: bigint;
  /** The new checkpoint, when the chunk was the forward read of every in-step seller. */
  checkpoint?: { blockNumber: bigint; blockHash: string } | undefined;
}

const INSERT_BATCH = 500;

export class UsageStore {
  constructor(private readonly transactions: CatalogTransactions) {}

  private get prisma() {
    return this.transactions.db.prisma;
  }

  /** A transaction that changes nothing a document shows (no catalog version bump). */
  private quiet<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transactions.db.exclusive(() => this.prisma.$transaction(fn, { maxWait: 10_000, timeout: 60_000 }));
  }

  private read<T>(fn: () => Promise<T>): Promise<T> {
    return this.transactions.read(fn);
  }

  async checkpoint(name = USAGE_CHECKPOINT): Promise<Checkpoint | null> {
    return this.read(() => this.prisma.chainCheckpoint.findUnique({ where: { name }, select: { blockNumber: true, blockHash: true, updatedAt: true } }));
  }

  /** Lowercase seller -> the block it has been read up to. */
  async sellerCoverage(): Promise<Map<string, bigint>> {
    const rows = await this.read(() =>
      this.prisma.chainCheckpoint.findMany({ where: { name: { startsWith: SELLER_PREFIX } }, select: { name: true, blockNumber: true } }),
    );
    return new Map(rows.map((row) => [row.name.slice(SELLER_PREFIX.length), row.blockNumber]));
  }

  async recordHead(head: bigint, now: Date): Promise<void> {
    await this.transactions.db.exclusive(() =>
      this.prisma.chainCheckpoint.upsert({
        where: { name: USAGE_HEAD },
        create: { name: USAGE_HEAD, blockNumber: head, blockHash: "", updatedAt: now },
        update: { blockNumber: head, updatedAt: now },
      }),
    );
  }

  /** The first checkpoint, with every live seller starting there. */
  async start(checkpoint: { blockNumber: bigint; blockHash: string }, sellers: string[], now: Date): Promise<void> {
    await this.quiet(async (tx) => {
      await tx.chainCheckpoint.upsert({
        where: { name: USAGE_CHECKPOINT },
        create: { name: USAGE_CHECKPOINT, ...checkpoint, updatedAt: now },
        update: { ...checkpoint, updatedAt: now },
      });
      await this.addSellers(tx, new Map(sellers.map((seller) => [seller, checkpoint.blockNumber])), now);
    });
  }

  private async addSellers(tx: Tx, added: Map<string, bigint>, now: Date): Promise<void> {
    const rows = [...added].map(([seller, coveredTo]) => ({ name: SELLER_PREFIX + seller, blockNumber: coveredTo, blockHash: "", updatedAt: now }));
    for (let index = 0; index < rows.length; index += INSERT_BATCH) {
      const batch = rows.slice(index, index + INSERT_BATCH);
      await tx.chainCheckpoint.deleteMany({ where: { name: { in: batch.map((row) => row.name) } } });
      await tx.chainCheckpoint.createMany({ data: batch });
    }
  }

  /** Starts tracking new sellers (from the block given for each) and stops tracking those no longer listed. */
  async syncSellers(added: Map<string, bigint>, dropped: string[], now: Date): Promise<void> {
    if (added.size === 0 && dropped.length === 0) return;
    await this.quiet(async (tx) => {
      for (let index = 0; index < dropped.length; index += INSERT_BATCH) {
        const names = dropped.slice(index, index + INSERT_BATCH).map((seller) => SELLER_PREFIX + seller);
        await tx.chainCheckpoint.deleteMany({ where: { name: { in: names } } });
      }
      await this.addSellers(tx, added, now);
    });
  }

  /** Stores a chunk's transfers (those already stored are skipped) and moves the sellers and checkpoint, in one transaction. */
  async commitRange(commit: RangeCommit, now: Date): Promise<number> {
    return this.quiet(async (tx) => {
      let inserted = 0;
      const unique = [...new Map(commit.transfers.map((row) => [row.id, row])).values()];
      for (let index = 0; index < unique.length; index += INSERT_BATCH) {
        const batch = unique.slice(index, index + INSERT_BATCH);
        const known = new Set(
          (await tx.usageTransfer.findMany({ where: { id: { in: batch.map((row) => row.id) } }, select: { id: true } })).map((row) => row.id),
        );
        const fresh = batch.filter((row) => !known.has(row.id));
        if (fresh.length > 0) inserted += (await tx.usageTransfer.createMany({ data: fresh })).count;
      }
      for (let index = 0; index < commit.sellers.length; index += INSERT_BATCH) {
        const names = commit.sellers.slice(index, index + INSERT_BATCH).map((seller) => SELLER_PREFIX + seller);
        await tx.chainCheckpoint.updateMany({ where: { name: { in: names } }, data: { blockNumber: commit.coveredTo, updatedAt: now } });
      }
      if (commit.checkpoint) {
        await tx.chainCheckpoint.update({ where: { name: USAGE_CHECKPOINT }, data: { ...commit.checkpoint, updatedAt: now } });
      }
      return inserted;
    });
  }

  /** Moves the checkpoint without reading anything (no seller is tracked). */
  async advance(checkpoint: { blockNumber: bigint; blockHash: string }, now: Date): Promise<void> {
    await this.commitRange({ transfers: [], sellers: [], coveredTo: checkpoint.blockNumber, checkpoint }, now);
  }

  /** Distinct (block, hash) of stored transfers in [from, to], newest first: where a reorg's fork is looked for. */
  async storedBlocks(from: bigint, to: bigint): Promise<{ blockNumber: bigint; blockHash: string }[]> {
    return this.read(() =>
      this.prisma.usageTransfer.findMany({
        where: { blockNumber: { gte: from, lte: to } },
        distinct: ["blockNumber", "blockHash"],
        select: { blockNumber: true, blockHash: true },
        orderBy: { blockNumber: "desc" },
      }),
    );
  }

  /** After a reorg: forgets every transfer above the fork and re-reads from there. Returns the transfers removed. */
  async rewind(fork: { blockNumber: bigint; blockHash: string }, now: Date): Promise<number> {
    return this.quiet(async (tx) => {
      const { count } = await tx.usageTransfer.deleteMany({ where: { blockNumber: { gt: fork.blockNumber } } });
      await tx.chainCheckpoint.updateMany({
        where: { name: { startsWith: SELLER_PREFIX }, blockNumber: { gt: fork.blockNumber } },
        data: { blockNumber: fork.blockNumber, updatedAt: now },
      });
      await tx.chainCheckpoint.update({ where: { name: USAGE_CHECKPOINT }, data: { ...fork, updatedAt: now } });
      return count;
    });
  }

  async prune(before: Date): Promise<number> {
    const { count } = await this.transactions.db.exclusive(() => this.prisma.usageTransfer.deleteMany({ where: { at: { lt: before } } }));
    return count;
  }

  /** Live third-party listings (seed rows and listings paid to the marketplace wallet are not sales). */
  async liveListings(now: Date, marketplace: string, sellerPayTo?: string): Promise<LiveListing[]> {
    const rows = await this.read(() =>
      this.prisma.listing.findMany({
        where: { state: "active", leftoverSeed: false, expiresAt: { gt: now }, ...(sellerPayTo !== undefined && { sellerPayTo }) },
        select: { id: true, sellerPayTo: true, priceAtomic: true, listedAt: true, expiresAt: true, calls30d: true, usageSummary: true, sellerUsage: true },
      }),
    );
    return rows
      .map(({ sellerPayTo, ...row }) => ({ ...row, seller: sellerPayTo.toLowerCase() }))
      .filter((row) => row.seller !== marketplace);
  }

  /** The catalog version: any listing write since the last pass changes it. */
  async catalogVersion(): Promise<number> {
    const row = await this.read(() => this.prisma.catalogState.findUnique({ where: { id: 1 }, select: { version: true } }));
    return row?.version ?? 0;
  }

  /** Every transfer since `since`, grouped by (payTo, payer, amount). */
  async groupsSince(since: Date): Promise<TransferGroup[]> {
    const rows = await this.read(() =>
      this.prisma.usageTransfer.groupBy({
        by: ["payTo", "payer", "amount"],
        where: { at: { gte: since } },
        _count: { _all: true },
        _min: { at: true },
        _max: { at: true },
      }),
    );
    return rows.map((row) => ({ payTo: row.payTo, payer: row.payer, amount: row.amount, count: row._count._all, firstAt: row._min.at!, lastAt: row._max.at! }));
  }

  /** The groups a listing's daily history needs: transfers to its seller, and every transfer of their payers. */
  async groupsAround(seller: string, since: Date): Promise<TransferGroup[]> {
    const payers = await this.read(() =>
      this.prisma.usageTransfer.findMany({ where: { payTo: seller, at: { gte: since } }, distinct: ["payer"], select: { payer: true } }),
    );
    const addresses = [seller, ...payers.map((row) => row.payer)];
    const rows = await this.read(() =>
      this.prisma.usageTransfer.groupBy({
        by: ["payTo", "payer", "amount"],
        where: { at: { gte: since }, OR: [{ payTo: { in: addresses } }, { payer: { in: addresses } }] },
        _count: { _all: true },
        _min: { at: true },
        _max: { at: true },
      }),
    );
    return rows.map((row) => ({ payTo: row.payTo, payer: row.payer, amount: row.amount, count: row._count._all, firstAt: row._min.at!, lastAt: row._max.at! }));
  }

  /** One listing's transfers of one amount since `since` (payer and time), for its daily history. */
  async transfersTo(seller: string, amount: string, since: Date): Promise<{ payer: string; at: Date }[]> {
    return this.read(() =>
      this.prisma.usageTransfer.findMany({ where: { payTo: seller, amount, at: { gte: since } }, select: { payer: true, at: true }, orderBy: { at: "asc" }, take: 100_000 }),
    );
  }

  /**
   * Writes the listings whose shown usage changed, PUBLISH_CHUNK listings a transaction (one catalog
   * version bump each), yielding to requests between them: SQLite writes on the thread that answers
   * requests, and the first pass over a 100k-listing catalog (every listing's first summary) blocked
   * it for over a minute as one transaction. Returns how many version bumps it made.
   */
  async publish(updates: UsageUpdate[], now: Date): Promise<number> {
    let bumps = 0;
    for (let start = 0; start < updates.length; start += PUBLISH_CHUNK) {
      const chunk = updates.slice(start, start + PUBLISH_CHUNK);
      await this.transactions.write(now, async (tx) => {
        for (const update of chunk) {
          await tx.listing.update({
            where: { id: update.id },
            data: { calls30d: update.calls30d, usageSummary: update.usageSummary, sellerUsage: update.sellerUsage ?? Prisma.DbNull },
          });
        }
        return { result: undefined, changed: true };
      });
      bumps++;
      if (start + PUBLISH_CHUNK < updates.length) await new Promise((resolve) => setImmediate(resolve));
    }
    return bumps;
  }

}
