// From transfers to published usage: attribution to listings and wash filtering (src/usage/wash.ts),
// both stated in the README ("Usage from the chain"). Pure functions over the 30-day window's
// transfer groups.
import { formatUnits } from "viem";
import type { LiveListing, SellerPrices, TransferGroup, UsageUpdate } from "./usage-store.js";
import { WashRules, ZERO_ADDRESS, type ExclusionReason, type FundingCoverage, type TransferFacts } from "./wash.js";

const USDC_DECIMALS = 6;

export type Counts = {
  l30DaysTotalCalls: number;
  l30DaysUniquePayers: number;
  l30DaysVolumeUsdc: string;
  lastCalledAt?: string;
};

class Tally {
  calls = 0;
  volume = 0n;
  readonly payers = new Set<string>();
  last = 0;

  /** `buyer`: the payer, or the common funding source it was collapsed onto. */
  add(group: Pick<TransferGroup, "payer" | "amount" | "count" | "lastAt">, buyer = group.payer): void {
    this.calls += group.count;
    this.volume += BigInt(group.amount) * BigInt(group.count);
    this.payers.add(buyer);
    this.last = Math.max(this.last, group.lastAt.getTime());
  }

  counts(): Counts {
    return {
      l30DaysTotalCalls: this.calls,
      l30DaysUniquePayers: this.payers.size,
      l30DaysVolumeUsdc: formatUnits(this.volume, USDC_DECIMALS),
      ...(this.last > 0 && { lastCalledAt: new Date(this.last).toISOString() }),
    };
  }
}

/** Raw (every transfer) beside filtered (wash transfers removed), and the calls removed per reason. */
class UsageTally {
  readonly raw = new Tally();
  readonly filtered = new Tally();
  readonly excluded = new Map<ExclusionReason, number>();

  exclude(reason: ExclusionReason, calls: number): void {
    this.excluded.set(reason, (this.excluded.get(reason) ?? 0) + calls);
  }

  summary(currentToBlock: bigint) {
    const excluded = Object.fromEntries([...this.excluded].sort(([a], [b]) => a.localeCompare(b)));
    return {
      ...this.filtered.counts(),
      provenance: "settled-onchain" as const,
      currentToBlock: currentToBlock.toString(),
      raw: this.raw.counts(),
      excluded,
    };
  }
}

/** The live prices of each seller's listings (what a sale to the seller can be). */
export function pricesBySeller(listings: LiveListing[]): Map<string, Set<string>> {
  const prices = new Map<string, Set<string>>();
  for (const listing of listings) {
    let set = prices.get(listing.seller);
    if (!set) prices.set(listing.seller, (set = new Set()));
    set.add(listing.priceAtomic);
  }
  return prices;
}

/**
 * Which listing a transfer to `seller` of `amount` is a sale of: the one live listing of the seller
 * whose price is exactly that amount; null (the seller as a whole) when none or several are.
 */
export function attribute(listings: LiveListing[], amount: string): LiveListing | null {
  let match: LiveListing | null = null;
  for (const listing of listings) {
    if (listing.priceAtomic !== amount) continue;
    if (match) return null;
    match = listing;
  }
  return match;
}

/** Everything shown but the block: whether a listing's usage changed. */
function shownWithoutBlock(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  const { currentToBlock: _block, ...rest } = value as Record<string, unknown>;
  return JSON.stringify(rest, Object.keys(rest).sort());
}

export interface RollupInput {
  groups: TransferGroup[];
  /** The listings the rollup may change (those of sellers with transfers, those showing usage), or all. */
  listings: LiveListing[];
  /** Every live seller's prices (default: from `listings`): who counts as a seller for the wash rules. */
  prices?: SellerPrices;
  /** Where the funding reads behind payers stand. */
  funding: FundingCoverage;
  /** Sellers read up to the checkpoint (a seller still being backfilled keeps what it shows). */
  covered: { has(seller: string): boolean };
  marketplace: string;
  currentToBlock: bigint;
  /** Rewrite every listing (its currentToBlock) even when its counts did not change. */
  refreshAll: boolean;
}

/** `pending`: some transfer waits for a read (its transaction, or its payer's funding). */
export function rollUp(input: RollupInput): { updates: UsageUpdate[]; listings: number; pending: boolean } {
  const prices: SellerPrices = input.prices ?? pricesBySeller(input.listings);
  const wash = new WashRules(
    input.groups,
    input.marketplace,
    new Set(prices.keys()),
    input.funding,
    input.currentToBlock,
  );
  const bySeller = new Map<string, LiveListing[]>();
  for (const listing of input.listings) {
    if (!input.covered.has(listing.seller)) continue;
    const list = bySeller.get(listing.seller);
    if (list) list.push(listing);
    else bySeller.set(listing.seller, [listing]);
  }
  const perListing = new Map<string, UsageTally>();
  const perSeller = new Map<string, UsageTally>();
  const tallyOf = (map: Map<string, UsageTally>, key: string) => {
    let tally = map.get(key);
    if (!tally) map.set(key, (tally = new UsageTally()));
    return tally;
  };
  let pending = false;
  for (const group of input.groups) {
    const listings = bySeller.get(group.payTo);
    // A mint is not a payment at all: not even in the raw counts.
    if (!listings || group.payer === ZERO_ADDRESS) continue;
    const listing = attribute(listings, group.amount);
    const tally = listing ? tallyOf(perListing, listing.id) : tallyOf(perSeller, group.payTo);
    tally.raw.add(group);
    const rules = wash.forSeller(group.payTo, prices.get(group.payTo)!);
    const reason = rules.reasonOf(group);
    if (reason === "pending") pending = true;
    if (reason) tally.exclude(reason, group.count);
    else tally.filtered.add(group, rules.buyerOf(group.payer));
  }

  const updates: UsageUpdate[] = [];
  for (const [seller, listings] of bySeller) {
    const sellerTally = perSeller.get(seller);
    const sellerUsage = sellerTally
      ? { ...sellerTally.summary(input.currentToBlock), listings: listings.length }
      : null;
    for (const listing of listings) {
      const tally = perListing.get(listing.id);
      // A listing shows usage once it or its seller has a transfer in the window, and keeps showing it
      // (zeros, once the window has passed them): a catalog of listings nobody paid yet is not
      // rewritten by every pass and every hourly refresh (100k listings took minutes of writes).
      const shows = tally !== undefined || sellerUsage !== null || listing.usageSummary !== null;
      if (!shows) continue;
      const usageSummary = (tally ?? new UsageTally()).summary(input.currentToBlock);
      const calls30d = usageSummary.l30DaysTotalCalls;
      const changed =
        input.refreshAll ||
        listing.usageSummary === null ||
        listing.calls30d !== calls30d ||
        shownWithoutBlock(listing.usageSummary) !== shownWithoutBlock(usageSummary) ||
        shownWithoutBlock(listing.sellerUsage) !== shownWithoutBlock(sellerUsage);
      if (changed) updates.push({ id: listing.id, calls30d, usageSummary, sellerUsage });
    }
  }
  return { updates, listings: [...bySeller.values()].reduce((sum, list) => sum + list.length, 0), pending };
}

export interface UsageDay {
  day: string;
  calls: number;
  payers: number;
  volumeUsdc: string;
}

/** A listing's wash-filtered sales per UTC day over `days` days ending today, oldest first; payers are buyers (collapsed as in the counts). */
export function dailyUsage(
  transfers: (TransferFacts & { at: Date })[],
  amount: string,
  rules: { reasonOf(transfer: TransferFacts): unknown; buyerOf(payer: string): string },
  now: Date,
  days: number,
): UsageDay[] {
  const dayMs = 86_400_000;
  const today = Math.floor(now.getTime() / dayMs);
  const buckets = Array.from({ length: days }, () => ({ calls: 0, payers: new Set<string>() }));
  for (const transfer of transfers) {
    const index = Math.floor(transfer.at.getTime() / dayMs) - (today - days + 1);
    if (index < 0 || index >= days || transfer.payer === ZERO_ADDRESS || rules.reasonOf(transfer)) continue;
    buckets[index]!.calls += 1;
    buckets[index]!.payers.add(rules.buyerOf(transfer.payer));
  }
  return buckets.map((bucket, index) => ({
    day: new Date((today - days + 1 + index) * dayMs).toISOString().slice(0, 10),
    calls: bucket.calls,
    payers: bucket.payers.size,
    volumeUsdc: formatUnits(BigInt(amount) * BigInt(bucket.calls), USDC_DECIMALS),
  }));
}
