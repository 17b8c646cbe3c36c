import type { ListingStore } from "../storage/listing/listing-store.js";
import type { MarketFacts } from "../market/facts.js";
import { linkTo } from "../market/links.js";
import { SEED_INVENTORY, seedListingId } from "./seed-inventory.js";
import { DAY_MS } from "../constants.js";

/** A seed row closer than this to its expiry is renewed when the loader runs. */
const RENEW_WITHIN_MS = 7 * DAY_MS;

/**
 * Loads the first-party `/kr-*` rows idempotently: a row keeps its id (seedListingId: from its
 * method and path) and its dates until it nears expiry, so a restart changes nothing, and a row of
 * another origin or wallet is rewritten in place under the same id. Seed rows of earlier versions
 * (random ids) are replaced once.
 */
export async function loadSeedInventory(store: ListingStore, market: MarketFacts, now: Date) {
  const existing = await store.seedRows();
  const rows = SEED_INVENTORY.map((item) => {
    const resource = linkTo(market, item.path);
    const id = seedListingId(item);
    const found = existing.find((row) => row.id === id && row.state === "active");
    const fresh = found && found.expiresAt.getTime() - now.getTime() > RENEW_WITHIN_MS;
    return {
      id,
      resource,
      method: item.method,
      priceUsdc: item.priceUsdc,
      description: item.description,
      sellerPayTo: market.payTo,
      network: market.network,
      listedAt: found?.listedAt ?? now,
      expiresAt: fresh ? found.expiresAt : new Date(now.getTime() + market.ttlDays * DAY_MS),
    };
  });
  const removed = await store.deleteSeedRowsExcept(
    rows.map((row) => row.id),
    now,
  );
  return { removed, ...(await store.upsertSeedListings(rows, now)) };
}
