// The reads behind the wash rules (src/usage/wash.ts), each bounded per pass: the transactions of
// transfers to sellers at a listed price (one receipt per transaction, batched: sender and
// EIP-3009 authorization), and the funding behind the payers whose sales pass those checks (the
// token's transfers into each payer, and into and out of every address of its funding trail, three
// hops back), read from the window's first block to the checkpoint, then forward every pass.
import type { Address } from "viem";
import type { Logger } from "../logger.js";
import { FUNDING_PREFIX, type TransferRow, type UsageStore } from "./usage-store.js";
import type { UsageChain } from "./chain-source.js";
import { HUB_FANOUT, TRAIL_HOPS, transferReason, WashRules } from "./wash.js";
import type { SellerPrices } from "./usage-store.js";

/** Transactions read per pass (one eth_getTransactionReceipt each). */
export const DEFAULT_RECEIPTS_PER_PASS = 2_000;
/** eth_getLogs calls the funding reads may make per pass. */
export const DEFAULT_FUNDING_CALLS_PER_PASS = 400;
/**
 * Planning rounds per pass: the payers' incoming, then for each hop of the trail (wash.ts TRAIL_HOPS)
 * its nodes' outgoing and, once that shows no hub, their incoming.
 */
const ROUNDS = 1 + 2 * TRAIL_HOPS;

export interface FundingReaderOptions {
  store: UsageStore;
  chain: UsageChain;
  logger: Logger;
  now: () => Date;
  marketplace: string;
  maxBlockRange: number;
  addressBatch: number;
  receiptsPerPass: number;
  fundingCallsPerPass: number;
}

export interface FundingReport {
  receipts: number;
  fundingCalls: number;
  /** Rows the funding reads stored. */
  inserted: number;
  checked: number;
}

export class FundingReader {
  constructor(private readonly options: FundingReaderOptions) {}

  /** Reads the transactions of pending sales: kind x402 or plain, and the sender. */
  async checkTransactions(prices: SellerPrices, since: Date): Promise<{ receipts: number; checked: number }> {
    const { store, chain, receiptsPerPass } = this.options;
    const pending = (await store.pendingTransfers(since, 100_000)).filter((row) =>
      prices.get(row.payTo)?.has(row.amount),
    );
    const hashes = [...new Set(pending.map((row) => row.txHash))].slice(0, receiptsPerPass);
    let checked = 0;
    for (let index = 0; index < hashes.length; index += 200) {
      const batch = new Set(hashes.slice(index, index + 200));
      const facts = await chain.transactions([...batch]);
      const checks = pending
        .filter((row) => batch.has(row.txHash) && facts.has(row.txHash))
        .map((row) => {
          const tx = facts.get(row.txHash)!;
          return { id: row.id, kind: tx.authorized.has(row.logIndex) ? "x402" : "plain", sender: tx.sender };
        });
      await store.recordChecks(checks);
      checked += checks.length;
    }
    return { receipts: hashes.length, checked };
  }

  /**
   * Plans the funding reads from what is stored (the rules say whose transfers they need), reads
   * every cursor behind the checkpoint up to it, and plans again with what was found, up to seven
   * rounds, within the per-pass budget of eth_getLogs calls.
   */
  async readFunding(
    prices: SellerPrices,
    checkpoint: bigint,
    since: Date,
    startBlock: () => Promise<bigint>,
    replan: boolean,
    signal?: AbortSignal,
  ): Promise<{ calls: number; inserted: number }> {
    const { store, now } = this.options;
    let calls = 0;
    let inserted = 0;
    for (let round = 0; round < ROUNDS && !signal?.aborted; round++) {
      if (replan || round > 0) await this.plan(prices, checkpoint, since, startBlock);
      const coverage = await store.fundingCoverage();
      const behind = new Map<bigint, { to: string[]; from: string[] }>();
      for (const direction of ["to", "from"] as const) {
        for (const [address, coveredTo] of coverage[direction]) {
          if (coveredTo >= checkpoint) continue;
          let group = behind.get(coveredTo);
          if (!group) behind.set(coveredTo, (group = { to: [], from: [] }));
          group[direction].push(address);
        }
      }
      if (behind.size === 0) break;
      let found = 0;
      for (const [coveredTo, group] of [...behind].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const result = await this.read(
          group,
          coveredTo,
          checkpoint,
          prices,
          this.options.fundingCallsPerPass - calls,
          signal,
        );
        calls += result.calls;
        found += result.inserted;
        if (calls >= this.options.fundingCallsPerPass) break;
      }
      inserted += found;
      if (calls >= this.options.fundingCallsPerPass) {
        this.options.logger.debug(
          { calls, at: now().toISOString() },
          "usage indexer: the funding reads' budget for this pass is spent; the rest waits for the next pass",
        );
        break;
      }
      // A round that found nothing may still unlock reads (an outgoing read that shows no hub): the next plan decides.
    }
    return { calls, inserted };
  }

  /** Starts the reads the rules want (from the window's first block) and stops the ones they no longer want. */
  private async plan(
    prices: SellerPrices,
    checkpoint: bigint,
    since: Date,
    startBlock: () => Promise<bigint>,
  ): Promise<void> {
    const { store, now, marketplace } = this.options;
    const sellers = new Set(prices.keys());
    const [groups, coverage] = await Promise.all([store.groupsSince(since), store.fundingCoverage()]);
    const wash = new WashRules(groups, marketplace, sellers, coverage, checkpoint);
    const payersOf = new Map<string, Set<string>>();
    for (const group of groups) {
      const sellerPrices = prices.get(group.payTo);
      if (!sellerPrices || transferReason(group, group.payTo, sellerPrices, marketplace) !== null) continue;
      let set = payersOf.get(group.payTo);
      if (!set) payersOf.set(group.payTo, (set = new Set()));
      set.add(group.payer);
    }
    const wanted = new Set<string>();
    for (const [seller, payers] of payersOf) {
      const reads = wash.wanted(seller, payers);
      for (const address of reads.to) wanted.add(FUNDING_PREFIX.to + address);
      for (const address of reads.from) wanted.add(FUNDING_PREFIX.from + address);
    }
    const existing = new Set([
      ...[...coverage.to.keys()].map((address) => FUNDING_PREFIX.to + address),
      ...[...coverage.from.keys()].map((address) => FUNDING_PREFIX.from + address),
    ]);
    const fresh = [...wanted].filter((name) => !existing.has(name));
    const dropped = [...existing].filter((name) => !wanted.has(name));
    if (fresh.length === 0 && dropped.length === 0) return;
    const start = fresh.length > 0 ? await startBlock() : 0n;
    await store.syncFunding(
      new Map(fresh.map((name) => [name, start < checkpoint ? start : checkpoint])),
      dropped,
      now(),
    );
  }

  /** Reads (from, to] for a group of addresses in both directions, chunk by chunk, each chunk committed with its cursors. */
  private async read(
    group: { to: string[]; from: string[] },
    from: bigint,
    to: bigint,
    /** The seller book, asked only whether an address is a seller (no Set of its keys built each pass: 80,000 in the memory bench). */
    sellers: { has(address: string): boolean },
    budget: number,
    signal?: AbortSignal,
  ): Promise<{ calls: number; inserted: number }> {
    const { store, chain, now, addressBatch } = this.options;
    let calls = 0;
    let inserted = 0;
    let range = BigInt(this.options.maxBlockRange);
    let start = from + 1n;
    while (start <= to && !signal?.aborted) {
      const end = start + range - 1n < to ? start + range - 1n : to;
      const needed = Math.ceil(group.to.length / addressBatch) + Math.ceil(group.from.length / addressBatch);
      if (calls + needed > budget) break;
      const rows: TransferRow[] = [];
      try {
        for (const direction of ["to", "from"] as const) {
          for (let index = 0; index < group[direction].length; index += addressBatch) {
            const batch = group[direction].slice(index, index + addressBatch) as Address[];
            calls++;
            const found = await chain.transfers({ fromBlock: start, toBlock: end }, direction, batch);
            rows.push(...(direction === "from" ? trimHubs(found) : found));
          }
        }
      } catch (error) {
        if (range <= 1n) throw error;
        range = range / 2n;
        continue;
      }
      const names = [
        ...group.to.map((address) => FUNDING_PREFIX.to + address),
        ...group.from.map((address) => FUNDING_PREFIX.from + address),
      ];
      inserted += await store.commitRange(
        {
          transfers: rows.map((row) => ({ ...row, kind: sellers.has(row.payTo) ? "pending" : "skip" })),
          sellers: [],
          coveredTo: end,
          cursors: names,
        },
        now(),
      );
      start = end + 1n;
    }
    return { calls, inserted };
  }
}

/** An outgoing read keeps a sender's transfers to its first HUB_FANOUT + 1 recipients: enough to see it is a hub, not an exchange's whole day. */
function trimHubs(rows: TransferRow[]): TransferRow[] {
  const recipients = new Map<string, Set<string>>();
  return rows.filter((row) => {
    let set = recipients.get(row.payer);
    if (!set) recipients.set(row.payer, (set = new Set()));
    if (set.has(row.payTo)) return true;
    if (set.size > HUB_FANOUT) return false;
    set.add(row.payTo);
    return true;
  });
}
