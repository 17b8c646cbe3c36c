// A listing's daily history (GET /listings/{id}): its sales per UTC day under the same rules as its
// published counts, read around its seller only (the seller, its payers, their funding two hops back).
import { USAGE_WINDOW_MS } from "./indexer.js";
import type { Listing } from "../storage/listing-types.js";
import type { UsageStore } from "./usage-store.js";
import { attribute, dailyUsage, pricesBySeller, type UsageDay } from "./rollup.js";
import { WashRules } from "./wash.js";

/** A live listing's wash-filtered sales per UTC day, 30 days, oldest first ([] before its seller is indexed). */
export async function listingHistory(
  store: UsageStore,
  listing: Listing,
  marketplace: string,
  now: Date,
): Promise<UsageDay[]> {
  if (listing.usageSummary === null) return [];
  const since = new Date(now.getTime() - USAGE_WINDOW_MS);
  const seller = listing.sellerPayTo.toLowerCase();
  const siblings = await store.liveListings(now, marketplace, listing.sellerPayTo);
  const amount = listing.priceAtomic;
  const own = attribute(siblings, amount)?.id === listing.id;
  const transfers = own ? await store.transfersTo(seller, amount, since) : [];
  if (transfers.length === 0)
    return dailyUsage([], amount, { reasonOf: () => null, buyerOf: (payer) => payer }, now, 30);
  const [groups, funding, checkpoint] = await Promise.all([
    store.groupsAround(seller, since),
    store.fundingCoverage(),
    store.checkpoint(),
  ]);
  // Which of the addresses around the seller are sellers: looked up, not the whole tracked set read per request.
  const sellers = await store.trackedAmong([...new Set(groups.flatMap((group) => [group.payTo, group.payer]))]);
  const wash = new WashRules(groups, marketplace, sellers, funding, checkpoint?.blockNumber ?? 0n);
  return dailyUsage(
    transfers,
    amount,
    wash.forSeller(seller, pricesBySeller(siblings).get(seller) ?? new Set()),
    now,
    30,
  );
}
