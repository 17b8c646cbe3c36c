// The usage indexer: reads the payment token's Transfer logs to and from every live listing's
// sellerPayTo, confirmed blocks only, into UsageTransfer, and rolls the 30-day window up into the
// listings' published usage. One pass: check the checkpoint's block hash (a reorg rewinds to the
// fork), start tracking new sellers (backfilled from the block before they were listed), read
// forward to head - confirmations in chunks (each chunk's rows and checkpoint in one transaction),
// roll up, prune. The README's "Usage from the chain" states the rules. Where it stands on the chain
// (blocks by number and time, the fork point, the sellers' logs) is read in chain-blocks.ts.
import type { Address } from "viem";
import { DAY_MS, HOUR_MS } from "../constants.js";
import { metrics } from "../metrics.js";
import type { Logger } from "../logger.js";
import type { SellerBook, TransferRow, UsageStore } from "./usage-store.js";
import type { UsageChain } from "./chain-source.js";
import { CLOCK_SKEW_MS, blockBefore, findFork, minBig, mustBlock, transfersOf } from "./chain-blocks.js";
import { DEFAULT_FUNDING_CALLS_PER_PASS, DEFAULT_RECEIPTS_PER_PASS, FundingReader } from "./funding.js";
import { rollUp } from "./rollup.js";

/** The window the counts cover, and how long transfers are kept (a day more, for the daily history's edges). */
export const USAGE_WINDOW_MS = 30 * DAY_MS;
const KEEP_MS = 31 * DAY_MS;
/** The seller book's stamp is compared at least this often while the catalog version moves (a write with no change-log event). */
const STAMP_CHECK_MS = 10 * 60_000;
/** Aim for at most this many logs per eth_getLogs answer (the range shrinks above it, grows below a quarter). */
const TARGET_LOGS = 2_000;

export interface UsageIndexerOptions {
  store: UsageStore;
  chain: UsageChain;
  logger: Logger;
  now: () => Date;
  /** The marketplace wallet (lowercase or not): its transfers are never sales. */
  marketplace: string;
  confirmations: number;
  reorgWindowBlocks: number;
  maxBlockRange: number;
  addressBatch: number;
  /** After each chunk, rest this many times as long as it took (0: never). */
  catchUpRest: number;
  /** Transactions read per pass to check sales (default 2,000). */
  receiptsPerPass?: number;
  /** eth_getLogs calls per pass for the funding behind payers (default 400). */
  fundingCallsPerPass?: number;
}

export interface UsageIndexerStatus {
  /** Every tracked seller is read up to here. */
  currentToBlock: string | null;
  headBlock: string | null;
  lagBlocks: number | null;
  /** Seconds between the checkpoint block's time and now. */
  lagSeconds: number | null;
  checkedAt: string | null;
}

export interface PassReport {
  head: bigint;
  checkpoint: bigint;
  inserted: number;
  rewound: number;
  published: number;
  /** Transactions read to check sales (sender, authorization). */
  receipts: number;
  /** eth_getLogs calls of the funding reads. */
  fundingCalls: number;
  /** Transfers the funding reads stored (not sales: into payers, into and out of their funders). */
  fundingRows: number;
}

export class UsageIndexer {
  private readonly marketplace: string;
  private range: bigint;
  private lastRollup: { book: SellerBook; windowFloor: number; refreshedAt: number } | null = null;
  private holdsLease: (() => Promise<boolean>) | undefined;
  /** The seller book; the catalog version and change-log seq it was last checked at; its stamp and when that was last compared. */
  private book: (SellerBook & { version: number; seq: number; stamp: string; stampedAt: number }) | null = null;
  /** The book whose sellers the coverage rows match, and the checkpoint this instance last left: another instance's pass in between means checking again. */
  private synced: { book: SellerBook; checkpoint: string } | null = null;
  /** Unix seconds of the checkpoint's block, when known. */
  private checkpointTime: number | null = null;
  private readonly funding: FundingReader;
  /** Listed sellers: transfers to them are sales to check. */
  private trackedSellers: { has(seller: string): boolean } = new Set<string>();
  private windowStart: { at: number; block: bigint } | null = null;
  /** The book the funding reads were last planned with. */
  private plannedBook: SellerBook | null = null;
  /** The last rollup left transfers waiting for a read: funding reads alone may change the counts. */
  private lastPending = true;
  private readonly lastStatus: UsageIndexerStatus = {
    currentToBlock: null,
    headBlock: null,
    lagBlocks: null,
    lagSeconds: null,
    checkedAt: null,
  };

  constructor(private readonly options: UsageIndexerOptions) {
    this.marketplace = options.marketplace.toLowerCase();
    this.range = BigInt(Math.min(options.maxBlockRange, 100));
    this.funding = new FundingReader({
      store: options.store,
      chain: options.chain,
      logger: options.logger,
      now: options.now,
      marketplace: this.marketplace,
      maxBlockRange: options.maxBlockRange,
      addressBatch: options.addressBatch,
      receiptsPerPass: options.receiptsPerPass ?? DEFAULT_RECEIPTS_PER_PASS,
      fundingCallsPerPass: options.fundingCallsPerPass ?? DEFAULT_FUNDING_CALLS_PER_PASS,
    });
  }

  status(): UsageIndexerStatus {
    return { ...this.lastStatus };
  }

  /**
   * The sellers and their prices, read again only when the catalog changed (its version: every
   * listing write, this indexer's own included) or a listing expired. The listings themselves are
   * not kept: the rollup reads them when it is due.
   */
  private async sellerBook(): Promise<SellerBook> {
    const { store, now } = this.options;
    const version = await store.catalogVersion();
    const cached = this.book;
    const time = now().getTime();
    if (cached && time < cached.nextExpiry) {
      if (cached.version === version) return cached;
      // Most version moves are health and usage writes (every probe batch makes one). The change log
      // says whether a listing was created, renewed, updated or delisted since; the stamp, summed up
      // in the database (~60 ms of CPU at 100k), confirms it, and is compared every STAMP_CHECK_MS
      // anyway, for a write that records no event.
      const events = await store.bookEvents(cached.seq);
      cached.version = version;
      cached.seq = events.seq;
      // (A clock that went back, as in tests, compares it too: the stamp counts the listings live then.)
      if (!events.relevant && time >= cached.stampedAt && time - cached.stampedAt < STAMP_CHECK_MS) return cached;
      const stamp = await store.sellerBookStamp(now());
      cached.stampedAt = time;
      if (stamp === cached.stamp) return cached;
    }
    const { seq } = await store.bookEvents(null);
    const stamp = await store.sellerBookStamp(now());
    // The old book goes before the new one is read: never both in memory.
    this.book = null;
    this.book = { version, seq, stamp, stampedAt: time, ...(await store.sellerBook(now(), this.marketplace)) };
    return this.book;
  }

  /** `holdsLease` is asked before every commit: false stops the pass (another instance took over). */
  async pass(signal?: AbortSignal, holdsLease?: () => Promise<boolean>): Promise<PassReport> {
    this.holdsLease = holdsLease;
    const { store, chain, now } = this.options;
    const head = await chain.head();
    const safe = head - BigInt(Math.min(this.options.confirmations, Number(head)));
    await store.recordHead(head, now());
    this.lastStatus.headBlock = head.toString();
    const book = await this.sellerBook();
    const sellers = book.earliest;
    this.trackedSellers = sellers;

    let checkpoint = await store.checkpoint();
    let rewound = 0;
    if (!checkpoint) {
      const first = sellers.size ? await blockBefore(this.options.chain, new Date(book.firstListedAt), safe) : safe;
      const ref = await mustBlock(this.options.chain, first);
      await store.start({ blockNumber: ref.number, blockHash: ref.hash }, [...sellers.keys()], now());
      checkpoint = { blockNumber: ref.number, blockHash: ref.hash, updatedAt: now() };
    } else {
      const atCheckpoint = checkpoint.blockNumber <= head ? await chain.block(checkpoint.blockNumber) : null;
      if (atCheckpoint?.hash !== checkpoint.blockHash) {
        const fork = await findFork(this.options, checkpoint.blockNumber, head);
        rewound = await store.rewind({ blockNumber: fork.number, blockHash: fork.hash }, now());
        this.options.logger.warn(
          { from: checkpoint.blockNumber.toString(), to: fork.number.toString(), transfersRemoved: rewound },
          "usage indexer: reorg, read again from the fork",
        );
        checkpoint = { blockNumber: fork.number, blockHash: fork.hash, updatedAt: now() };
        this.lastRollup = null;
      }
    }
    const cp = checkpoint.blockNumber;

    const checkpointTime = (await mustBlock(this.options.chain, cp)).timestamp * 1000;
    this.checkpointTime = checkpointTime / 1000;
    // The tracked sellers are compared with the book only when either may have moved: a new book,
    // or a checkpoint this instance did not leave (another instance indexed meanwhile).
    const checkpointKey = `${cp}:${checkpoint.blockHash}`;
    const added = new Map<string, bigint>();
    let dropped: string[] = [];
    // After a pass of this instance's that ran to its end on this book, every tracked seller stands
    // at the checkpoint: none is behind, and nothing needs reading to know it.
    const resync = this.synced?.book !== book || this.synced.checkpoint !== checkpointKey;
    if (resync) {
      this.synced = null;
      const coverage = await store.sellerCoverage();
      dropped = [...coverage.keys()].filter((seller) => !sellers.has(seller));
      for (const [seller, listedAt] of sellers) {
        if (coverage.has(seller)) continue;
        const from =
          listedAt - CLOCK_SKEW_MS > checkpointTime
            ? cp
            : await blockBefore(this.options.chain, new Date(listedAt), cp);
        added.set(seller, from);
      }
      await store.syncSellers(added, dropped, now());
    }

    let inserted = 0;
    // Backfill: sellers behind the checkpoint catch up to it, grouped by where they stand.
    const behind = new Map<bigint, Address[]>();
    for (const [seller, coveredTo] of resync ? await store.sellerCoverage(cp) : []) {
      behind.set(coveredTo, [...(behind.get(coveredTo) ?? []), seller as Address]);
    }
    for (const [coveredTo, group] of behind) {
      inserted += await this.read(group, coveredTo, cp, false, signal);
    }
    if (signal?.aborted)
      return { head, checkpoint: cp, inserted, rewound, published: 0, receipts: 0, fundingCalls: 0, fundingRows: 0 };
    // Forward: every seller read up to the checkpoint (all of them but a backfill that stopped), from there to the confirmed head.
    if (safe > cp) {
      const stillBehind = behind.size > 0 ? await store.sellerCoverage(cp) : new Map<string, bigint>();
      const inStep = [...sellers.keys()].filter((seller) => !stillBehind.has(seller)) as Address[];
      inserted += await this.read(inStep, cp, safe, true, signal);
    }

    const current = (await store.checkpoint())!;
    // The checks behind the wash rules: the sales' transactions, then the funding behind their payers.
    const since = new Date(now().getTime() - USAGE_WINDOW_MS);
    const checks = await this.funding.checkTransactions(book.prices, since);
    const replan = inserted + rewound + checks.checked + added.size + dropped.length > 0 || this.plannedBook !== book;
    this.plannedBook = book;
    const funding = signal?.aborted
      ? { calls: 0, inserted: 0 }
      : await this.funding.readFunding(
          book.prices,
          current.blockNumber,
          since,
          () => this.windowStartBlock(since, current.blockNumber),
          replan,
          signal,
        );
    if (funding.inserted > 0) metrics.usageTransfers.inc(funding.inserted);
    const changed = inserted + rewound + added.size + dropped.length + checks.checked + funding.inserted > 0;
    const published = await this.rollup(
      book,
      current.blockNumber,
      changed || (funding.calls > 0 && this.lastPending),
      resync,
    );
    await store.prune(new Date(now().getTime() - KEEP_MS));
    const left = (await store.checkpoint())!;
    this.synced = { book, checkpoint: `${left.blockNumber}:${left.blockHash}` };
    this.report(head, current.blockNumber);
    return {
      head,
      checkpoint: current.blockNumber,
      inserted,
      rewound,
      published,
      receipts: checks.receipts,
      fundingCalls: funding.calls,
      fundingRows: funding.inserted,
    };
  }

  /** The block before the window's start (the funding reads start there), searched again at most hourly. */
  private async windowStartBlock(since: Date, ceiling: bigint): Promise<bigint> {
    const cached = this.windowStart;
    if (cached && since.getTime() - cached.at < HOUR_MS && cached.block <= ceiling) return cached.block;
    const block = await blockBefore(this.options.chain, new Date(since.getTime() + CLOCK_SKEW_MS), ceiling);
    this.windowStart = { at: since.getTime(), block };
    return block;
  }

  /** Reads (from, to] for `sellers` in adaptive chunks; `forward` also moves the checkpoint with each chunk. */
  private async read(
    sellers: Address[],
    from: bigint,
    to: bigint,
    forward: boolean,
    signal?: AbortSignal,
  ): Promise<number> {
    const { store, now } = this.options;
    let inserted = 0;
    let start = from + 1n;
    while (start <= to && !signal?.aborted) {
      const chunkStarted = performance.now();
      const end = minBig(start + this.range - 1n, to);
      let rows: TransferRow[];
      try {
        rows = (await transfersOf(this.options, sellers, start, end)).map((row) => ({
          ...row,
          kind: this.trackedSellers.has(row.payTo) ? "pending" : "skip",
        }));
      } catch (error) {
        if (this.range <= 1n) throw error;
        this.range = this.range / 2n;
        this.options.logger.debug(
          { err: (error as Error).message, range: this.range.toString() },
          "usage indexer: eth_getLogs refused a range; halving it",
        );
        continue;
      }
      if (this.holdsLease && !(await this.holdsLease()))
        throw new Error("usage indexer: the lease went to another instance; this pass stops");
      let checkpoint: { blockNumber: bigint; blockHash: string } | undefined;
      if (forward) {
        const ref = await mustBlock(this.options.chain, end);
        checkpoint = { blockNumber: end, blockHash: ref.hash };
        this.checkpointTime = ref.timestamp;
      }
      const stored = await store.commitRange(
        { transfers: rows, sellers: sellers.map((seller) => seller.toLowerCase()), coveredTo: end, checkpoint },
        now(),
      );
      metrics.usageTransfers.inc(stored);
      inserted += stored;
      const perCall = rows.length / Math.max(1, Math.ceil(sellers.length / this.options.addressBatch) * 2);
      if (perCall > TARGET_LOGS && this.range > 1n) this.range = this.range / 2n;
      else if (perCall < TARGET_LOGS / 4) this.range = minBig(this.range * 2n, BigInt(this.options.maxBlockRange));
      start = end + 1n;
      if (forward) this.report(null, end);
      // A long catch-up must not hold the event loop: rest in proportion to the work (parsing logs and
      // inserting rows run on the thread that answers requests).
      const rest = (performance.now() - chunkStarted) * this.options.catchUpRest;
      await new Promise((resolve) => (start <= to && rest >= 1 ? setTimeout(resolve, rest) : setImmediate(resolve)));
    }
    if (forward && sellers.length === 0 && to > from && !signal?.aborted) {
      const ref = await mustBlock(this.options.chain, to);
      await store.advance({ blockNumber: to, blockHash: ref.hash }, now());
      this.checkpointTime = ref.timestamp;
    }
    return inserted;
  }

  /**
   * Rolls the window up into the published columns when anything they show may have changed: new or
   * removed transfers, sellers tracked or dropped, a new seller book (a listing added, removed or
   * repriced), a listing expired, a transfer left the window, or an hour passed (currentToBlock is
   * refreshed hourly when no count changes). It reads only the listings it can change: those of
   * sellers with transfers in the window and those already showing usage.
   */
  private async rollup(
    book: SellerBook,
    currentToBlock: bigint,
    transfersChanged: boolean,
    resynced: boolean,
  ): Promise<number> {
    const { store, now } = this.options;
    const time = now().getTime();
    const last = this.lastRollup;
    const windowStart = new Date(time - USAGE_WINDOW_MS);
    const due =
      !last ||
      transfersChanged ||
      book !== last.book ||
      time >= last.windowFloor + USAGE_WINDOW_MS ||
      time >= book.nextExpiry ||
      time - last.refreshedAt >= HOUR_MS;
    if (!due) return 0;
    const groups = await store.groupsSince(windowStart);
    const listings = await store.rollupListings(
      now(),
      this.marketplace,
      [...new Set(groups.map((group) => group.payTo))].filter((seller) => book.prices.has(seller)),
    );
    const refreshAll = !last || time - last.refreshedAt >= HOUR_MS;
    const behind = resynced ? await store.sellerCoverage(currentToBlock) : new Map<string, bigint>();
    const covered = { has: (seller: string) => book.earliest.has(seller) && !behind.has(seller) };
    const funding = await store.fundingCoverage();
    const { updates, pending } = rollUp({
      groups,
      listings,
      prices: book.prices,
      funding,
      covered,
      marketplace: this.marketplace,
      currentToBlock,
      refreshAll,
    });
    this.lastPending = pending;
    await store.publish(updates, now());
    const earliest = groups.reduce((min, group) => Math.min(min, group.firstAt.getTime()), Number.POSITIVE_INFINITY);
    this.lastRollup = {
      book,
      windowFloor: Number.isFinite(earliest) ? earliest : time,
      refreshedAt: refreshAll ? time : last!.refreshedAt,
    };
    return updates.length;
  }

  private report(head: bigint | null, checkpoint: bigint): void {
    const status = this.lastStatus;
    if (head !== null) status.headBlock = head.toString();
    status.currentToBlock = checkpoint.toString();
    const headBlock = status.headBlock === null ? checkpoint : BigInt(status.headBlock);
    status.lagBlocks = Number(headBlock > checkpoint ? headBlock - checkpoint : 0n);
    const now = this.options.now();
    status.lagSeconds =
      status.lagBlocks === 0
        ? 0
        : this.checkpointTime === null
          ? null
          : Math.max(0, Math.round(now.getTime() / 1000 - this.checkpointTime));
    status.checkedAt = now.toISOString();
    metrics.usageLagBlocks.set(status.lagBlocks);
    metrics.usageCheckpoint.set(Number(checkpoint));
  }
}
