import type { JobDefinition } from "../jobs/job.js";
import type { Logger } from "../logger.js";
import type { ListingStore } from "../storage/listing-store.js";
import type { MarketFacts } from "../market/facts.js";
import { loadSeedInventory } from "./seed-loader.js";

/** Expired rows stay stored (and counted in sellerListingCountRawKv) this long before cleanup. */
export const EXPIRED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface MaintenanceOptions {
  store: ListingStore;
  market: MarketFacts;
  logger: Logger;
  loadSeed: boolean;
  intervalMs: number;
  now: () => Date;
}

/**
 * Housekeeping that no read's answer depends on: expired listings are already invisible the instant
 * they expire; this deletes them after the retention, keeps the seed rows loaded and renewed, and
 * keeps the read paths fast (search index merged, planner statistics fresh).
 * Idempotent, so every instance sharing one PostgreSQL may run it. Its first run completes before
 * the server takes traffic (the seed rows are there).
 */
export function catalogUpkeepJob(options: MaintenanceOptions): JobDefinition<void> {
  const { store, market, logger, loadSeed, intervalMs, now } = options;
  return {
    name: "catalog-upkeep",
    intervalMs,
    jitter: 0,
    awaitFirstRun: true,
    run: async () => {
      const at = now();
      const deleted = await store.deleteExpired(new Date(at.getTime() - EXPIRED_RETENTION_MS));
      const seed = loadSeed ? await loadSeedInventory(store, market, at) : undefined;
      const tidying = Date.now();
      await store.tidyReadPaths();
      const tidyMs = Date.now() - tidying;
      if (deleted > 0 || tidyMs > 1_000 || (seed && seed.created + seed.updated + seed.removed > 0))
        logger.info({ deleted, seed, tidyMs }, "catalog maintenance");
    },
  };
}
