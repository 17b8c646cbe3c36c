// From transfers to published usage: attribution to listings and wash filtering, both stated in
// the README ("Usage from the chain"). Pure functions over the 30-day window's transfer groups.
import { formatUnits } from "viem";
import type { LiveListing, TransferGroup, UsageUpdate } from "../storage/usage-store.js";

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
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

  add(group: Pick<TransferGroup, "payer" | "amount" | "count" | "lastAt">): void {
    this.calls += group.count;
    this.volume += BigInt(group.amount) * BigInt(group.count);
    this.payers.add(group.payer);
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

/** Raw (every transfer) beside filtered (wash transfers removed). */
class UsageTally {
  readonly raw = new Tally();
  readonly filtered = new Tally();

  summary(currentToBlock: bigint) {
    return { ...this.filtered.counts(), provenance: "settled-onchain" as const, currentToBlock: currentToBlock.toString(), raw: this.raw.counts() };
  }
}

/**
 * Who is not a buyer of `seller`: the seller itself, the marketplace wallet, the zero address
 * (a mint is not a sale), and a payer the seller funded that deals with nobody else: within the
 * window the seller sent it tokens, and every transfer we saw it send or receive was with the
 * seller. We see only transfers to and from listed sellers, so a buyer funded from anywhere else
 * (an exchange, a bridge, its own wallet) has a counterparty we cannot see and is counted.
 */
export class WashRules {
  private readonly counterparties = new Map<string, Set<string>>();
  private readonly fundedBy = new Map<string, Set<string>>();

  constructor(
    groups: TransferGroup[],
    private readonly marketplace: string,
  ) {
    const note = (map: Map<string, Set<string>>, key: string, value: string) => {
      let set = map.get(key);
      if (!set) map.set(key, (set = new Set()));
      set.add(value);
    };
    for (const group of groups) {
      note(this.counterparties, group.payer, group.payTo);
      note(this.counterparties, group.payTo, group.payer);
      note(this.fundedBy, group.payTo, group.payer);
    }
  }

  excludes(payer: string, seller: string): boolean {
    if (payer === seller || payer === this.marketplace || payer === ZERO_ADDRESS) return true;
    if (!this.fundedBy.get(payer)?.has(seller)) return false;
    const others = this.counterparties.get(payer) ?? new Set<string>();
    return [...others].every((counterparty) => counterparty === seller);
  }
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
  listings: LiveListing[];
  /** Sellers read up to the checkpoint (a seller still being backfilled keeps what it shows). */
  covered: Set<string>;
  marketplace: string;
  currentToBlock: bigint;
  /** Rewrite every listing (its currentToBlock) even when its counts did not change. */
  refreshAll: boolean;
}

export function rollUp(input: RollupInput): { updates: UsageUpdate[]; listings: number } {
  const wash = new WashRules(input.groups, input.marketplace);
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
  for (const group of input.groups) {
    const listings = bySeller.get(group.payTo);
    // A mint is not a payment at all: not even in the raw counts.
    if (!listings || group.payer === ZERO_ADDRESS) continue;
    const listing = attribute(listings, group.amount);
    const tally = listing ? tallyOf(perListing, listing.id) : tallyOf(perSeller, group.payTo);
    tally.raw.add(group);
    if (!wash.excludes(group.payer, group.payTo)) tally.filtered.add(group);
  }

  const updates: UsageUpdate[] = [];
  for (const [seller, listings] of bySeller) {
    const sellerTally = perSeller.get(seller);
    const sellerUsage = sellerTally ? { ...sellerTally.summary(input.currentToBlock), listings: listings.length } : null;
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
  return { updates, listings: [...bySeller.values()].reduce((sum, list) => sum + list.length, 0) };
}

export interface UsageDay {
  day: string;
  calls: number;
  payers: number;
  volumeUsdc: string;
}

/** A listing's wash-filtered sales per UTC day over `days` days ending today, oldest first. */
export function dailyUsage(
  transfers: { payer: string; at: Date }[],
  amount: string,
  isWash: (payer: string) => boolean,
  now: Date,
  days: number,
): UsageDay[] {
  const dayMs = 86_400_000;
  const today = Math.floor(now.getTime() / dayMs);
  const buckets = Array.from({ length: days }, () => ({ calls: 0, payers: new Set<string>() }));
  for (const transfer of transfers) {
    const index = Math.floor(transfer.at.getTime() / dayMs) - (today - days + 1);
    if (index < 0 || index >= days || isWash(transfer.payer)) continue;
    buckets[index]!.calls += 1;
    buckets[index]!.payers.add(transfer.payer);
  }
  return buckets.map((bucket, index) => ({
    day: new Date((today - days + 1 + index) * dayMs).toISOString().slice(0, 10),
    calls: bucket.calls,
    payers: bucket.payers.size,
    volumeUsdc: formatUnits(BigInt(amount) * BigInt(bucket.calls), USDC_DECIMALS),
  }));
}
