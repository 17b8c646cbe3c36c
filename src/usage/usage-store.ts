// What the usage indexer (src/usage/) keeps: the token transfers it read (UsageTransfer), where it
// stopped (ChainCheckpoint), and the published usage columns of Listing. Transfers and the
// checkpoint are written in one transaction, so a restart (kill -9 included) resumes exactly where
// the last commit stopped. Only the published columns go through CatalogTransactions.write (one
// catalog version bump per pass, and only when something shown changed).
import { setImmediate } from "node:timers/promises";
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions, Tx } from "../storage/catalog/catalog-transactions.js";
import { bookEvents, liveListings, READ_PAGE, rollupListings, sellerBook, sellerBookStamp } from "./usage-listings.js";
import { groupsAround, groupsSince, INSERT_BATCH, pendingTransfers, transfersTo } from "./usage-transfers.js";
import type {
  Checkpoint,
  LiveListing,
  PendingTransfer,
  RangeCommit,
  SellerBook,
  TransferGroup,
  UsageUpdate,
} from "./usage-types.js";
export type * from "./usage-types.js";

/** The indexer's checkpoint: every tracked seller has been read up to this block. */
export const USAGE_CHECKPOINT = "usage";
/** The chain head the indexer last saw (block number, and the time it looked): the lag. */
export const USAGE_HEAD = "usage:head";
/** One row per tracked seller: the block it has been read up to (below the checkpoint while it is backfilled). */
const SELLER_PREFIX = "usage:seller:";
/** One row per address whose incoming ("to") or outgoing ("from") transfers are read for the funding rules. */
export const FUNDING_PREFIX = { to: "usage:fund:to:", from: "usage:fund:from:" } as const;

/** Listings whose published usage one transaction writes. */
const PUBLISH_CHUNK = 200;

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

  /**
   * Names starting with `prefix`. On SQLite also as a range of the primary key (binary order):
   * its LIKE walks every checkpoint row (80,000 tracked sellers at 100k listings) to find the few
   * funding cursors. PostgreSQL's collation may not order punctuation that way, so the LIKE alone.
   */
  private prefixed(prefix: string): Prisma.StringFilter {
    if (this.transactions.db.kind !== "sqlite") return { startsWith: prefix };
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return { startsWith: prefix, gte: prefix, lt: end };
  }

  async checkpoint(name = USAGE_CHECKPOINT): Promise<Checkpoint | null> {
    return this.read(() =>
      this.prisma.chainCheckpoint.findUnique({
        where: { name },
        select: { blockNumber: true, blockHash: true, updatedAt: true },
      }),
    );
  }

  /**
   * Lowercase seller -> the block it has been read up to (every tracked seller, read in pages with a
   * yield between them: at 100k listings these are tens of thousands of rows). `below`: only the
   * sellers read to less than that block (the few being backfilled).
   */
  async sellerCoverage(below?: bigint): Promise<Map<string, bigint>> {
    const coverage = new Map<string, bigint>();
    let after: string | undefined;
    for (;;) {
      const cursor = after;
      const rows = await this.read(() =>
        this.prisma.chainCheckpoint.findMany({
          where: {
            name: { ...this.prefixed(SELLER_PREFIX), ...(cursor !== undefined && { gt: cursor }) },
            ...(below !== undefined && { blockNumber: { lt: below } }),
          },
          select: { name: true, blockNumber: true },
          orderBy: { name: "asc" },
          take: READ_PAGE,
        }),
      );
      for (const row of rows) coverage.set(row.name.slice(SELLER_PREFIX.length), row.blockNumber);
      if (rows.length < READ_PAGE) return coverage;
      after = rows.at(-1)!.name;
      await setImmediate();
    }
  }

  /** One seller's coverage (null: not tracked). */
  async sellerCoveredTo(seller: string): Promise<bigint | null> {
    const row = await this.read(() =>
      this.prisma.chainCheckpoint.findUnique({
        where: { name: SELLER_PREFIX + seller.toLowerCase() },
        select: { blockNumber: true },
      }),
    );
    return row?.blockNumber ?? null;
  }

  /** Which of `addresses` (lowercase) are tracked sellers. */
  async trackedAmong(addresses: string[]): Promise<Set<string>> {
    const tracked = new Set<string>();
    for (let index = 0; index < addresses.length; index += INSERT_BATCH) {
      const names = addresses.slice(index, index + INSERT_BATCH).map((address) => SELLER_PREFIX + address);
      const rows = await this.read(() =>
        this.prisma.chainCheckpoint.findMany({ where: { name: { in: names } }, select: { name: true } }),
      );
      for (const row of rows) tracked.add(row.name.slice(SELLER_PREFIX.length));
    }
    return tracked;
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
    const rows = [...added].map(([seller, coveredTo]) => ({
      name: SELLER_PREFIX + seller,
      blockNumber: coveredTo,
      blockHash: "",
      updatedAt: now,
    }));
    for (let index = 0; index < rows.length; index += INSERT_BATCH) {
      const batch = rows.slice(index, index + INSERT_BATCH);
      await tx.chainCheckpoint.deleteMany({ where: { name: { in: batch.map((row) => row.name) } } });
      await tx.chainCheckpoint.createMany({ data: batch });
      // SQLite's statements run synchronously under their promises: 100k sellers held requests for 10 s.
      await setImmediate();
    }
  }

  /** Starts tracking new sellers (from the block given for each) and stops tracking those no longer listed. */
  async syncSellers(added: Map<string, bigint>, dropped: string[], now: Date): Promise<void> {
    if (added.size === 0 && dropped.length === 0) return;
    await this.quiet(async (tx) => {
      for (let index = 0; index < dropped.length; index += INSERT_BATCH) {
        const names = dropped.slice(index, index + INSERT_BATCH).map((seller) => SELLER_PREFIX + seller);
        await tx.chainCheckpoint.deleteMany({ where: { name: { in: names } } });
        await setImmediate();
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
          (
            await tx.usageTransfer.findMany({ where: { id: { in: batch.map((row) => row.id) } }, select: { id: true } })
          ).map((row) => row.id),
        );
        const fresh = batch.filter((row) => !known.has(row.id)).map((row) => ({ ...row, kind: row.kind ?? "skip" }));
        if (fresh.length > 0) inserted += (await tx.usageTransfer.createMany({ data: fresh })).count;
        // Read first as funding, and now as a transfer to a tracked seller: its transaction is read too.
        const nowSales = batch.filter((row) => known.has(row.id) && row.kind === "pending").map((row) => row.id);
        if (nowSales.length > 0)
          await tx.usageTransfer.updateMany({
            where: { id: { in: nowSales }, kind: "skip" },
            data: { kind: "pending" },
          });
      }
      const names = [...commit.sellers.map((seller) => SELLER_PREFIX + seller), ...(commit.cursors ?? [])];
      for (let index = 0; index < names.length; index += INSERT_BATCH) {
        await tx.chainCheckpoint.updateMany({
          where: { name: { in: names.slice(index, index + INSERT_BATCH) } },
          data: { blockNumber: commit.coveredTo, updatedAt: now },
        });
      }
      if (commit.checkpoint) {
        await tx.chainCheckpoint.update({
          where: { name: USAGE_CHECKPOINT },
          data: { ...commit.checkpoint, updatedAt: now },
        });
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
      for (const prefix of [SELLER_PREFIX, FUNDING_PREFIX.to, FUNDING_PREFIX.from]) {
        await tx.chainCheckpoint.updateMany({
          where: { name: { startsWith: prefix }, blockNumber: { gt: fork.blockNumber } },
          data: { blockNumber: fork.blockNumber, updatedAt: now },
        });
      }
      await tx.chainCheckpoint.update({ where: { name: USAGE_CHECKPOINT }, data: { ...fork, updatedAt: now } });
      return count;
    });
  }

  async prune(before: Date): Promise<number> {
    const { count } = await this.transactions.db.exclusive(() =>
      this.prisma.usageTransfer.deleteMany({ where: { at: { lt: before } } }),
    );
    return count;
  }

  /** Live third-party listings (seed rows and listings paid to the marketplace wallet are not sales). */
  liveListings(now: Date, marketplace: string, sellerPayTo?: string): Promise<LiveListing[]> {
    return liveListings(this.transactions, now, marketplace, sellerPayTo === undefined ? {} : { sellerPayTo });
  }

  /** The live listings a rollup can change (see rollupListings in usage-listings.ts). */
  rollupListings(now: Date, marketplace: string, sellers: string[]): Promise<LiveListing[]> {
    return rollupListings(this.transactions, now, marketplace, sellers);
  }

  /** What the seller book is made of, summed up by the database (see sellerBookStamp in usage-listings.ts). */
  sellerBookStamp(now: Date): Promise<string> {
    return sellerBookStamp(this.transactions, now);
  }

  /** The live sellers and their prices. */
  sellerBook(now: Date, marketplace: string): Promise<SellerBook> {
    return sellerBook(this.transactions, now, marketplace);
  }

  /** The change log's newest seq, and whether an event after `after` can change the seller book (see usage-listings.ts). */
  bookEvents(after: number | null): Promise<{ seq: number; relevant: boolean }> {
    return bookEvents(this.transactions, after);
  }

  /** The catalog version: any listing write since the last pass changes it. */
  async catalogVersion(): Promise<number> {
    const row = await this.read(() =>
      this.prisma.catalogState.findUnique({ where: { id: 1 }, select: { version: true } }),
    );
    return row?.version ?? 0;
  }

  /** Every transfer since `since`, grouped by (payTo, payer, amount, kind, sender): the wash rules' input. */
  groupsSince(since: Date): Promise<TransferGroup[]> {
    return groupsSince(this.transactions, since);
  }

  /** The groups a listing's daily history needs: around its seller, along the funding trails (usage-transfers.ts). */
  groupsAround(seller: string, since: Date): Promise<TransferGroup[]> {
    return groupsAround(this.transactions, seller, since);
  }

  /** One listing's transfers of one amount since `since`, for its daily history. */
  transfersTo(
    seller: string,
    amount: string,
    since: Date,
  ): Promise<{ payer: string; amount: string; kind: string; sender: string | null; at: Date }[]> {
    return transfersTo(this.transactions, seller, amount, since);
  }

  /** Transfers to sellers whose transaction is not read yet, oldest first. */
  pendingTransfers(since: Date, limit: number): Promise<PendingTransfer[]> {
    return pendingTransfers(this.transactions, since, limit);
  }

  /** What the transactions showed: each transfer's kind ("x402" or "plain") and its transaction's sender. */
  async recordChecks(checks: { id: string; kind: string; sender: string }[]): Promise<void> {
    const byVerdict = new Map<string, string[]>();
    for (const check of checks) {
      const key = `${check.kind}|${check.sender}`;
      byVerdict.set(key, [...(byVerdict.get(key) ?? []), check.id]);
    }
    await this.quiet(async (tx) => {
      for (const [key, ids] of byVerdict) {
        const [kind, sender] = key.split("|") as [string, string];
        for (let index = 0; index < ids.length; index += INSERT_BATCH) {
          await tx.usageTransfer.updateMany({
            where: { id: { in: ids.slice(index, index + INSERT_BATCH) } },
            data: { kind, sender },
          });
        }
      }
    });
  }

  /** Where the funding reads stand: address -> the block its incoming / outgoing transfers are read up to. */
  async fundingCoverage(): Promise<{ to: Map<string, bigint>; from: Map<string, bigint> }> {
    const rows = await this.read(() =>
      this.prisma.chainCheckpoint.findMany({
        where: { name: this.prefixed("usage:fund:") },
        select: { name: true, blockNumber: true },
      }),
    );
    const coverage = { to: new Map<string, bigint>(), from: new Map<string, bigint>() };
    for (const row of rows) {
      for (const direction of ["to", "from"] as const) {
        if (row.name.startsWith(FUNDING_PREFIX[direction]))
          coverage[direction].set(row.name.slice(FUNDING_PREFIX[direction].length), row.blockNumber);
      }
    }
    return coverage;
  }

  /** Starts funding reads (full cursor names -> the block they start after) and stops others. */
  async syncFunding(added: Map<string, bigint>, dropped: string[], now: Date): Promise<void> {
    if (added.size === 0 && dropped.length === 0) return;
    await this.quiet(async (tx) => {
      for (let index = 0; index < dropped.length; index += INSERT_BATCH) {
        await tx.chainCheckpoint.deleteMany({ where: { name: { in: dropped.slice(index, index + INSERT_BATCH) } } });
      }
      const rows = [...added].map(([name, coveredTo]) => ({
        name,
        blockNumber: coveredTo,
        blockHash: "",
        updatedAt: now,
      }));
      for (let index = 0; index < rows.length; index += INSERT_BATCH) {
        const batch = rows.slice(index, index + INSERT_BATCH);
        await tx.chainCheckpoint.deleteMany({ where: { name: { in: batch.map((row) => row.name) } } });
        await tx.chainCheckpoint.createMany({ data: batch });
      }
    });
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
            data: {
              calls30d: update.calls30d,
              usageSummary: update.usageSummary,
              sellerUsage: update.sellerUsage ?? Prisma.DbNull,
            },
          });
        }
        return { result: undefined, changed: true };
      });
      bumps++;
      if (start + PUBLISH_CHUNK < updates.length) await setImmediate();
    }
    return bumps;
  }
}
