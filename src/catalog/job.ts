// The catalog's two upkeep jobs (src/background-jobs.ts lists them): expired rows and the seed rows,
// and the read paths' upkeep. Both hourly.
import { HOUR_MS } from "../constants.js";
import type { BackgroundJob, JobBasics } from "../jobs/job.js";
import type { MarketFacts } from "../market/facts.js";
import type { ListingStore } from "../storage/listing/listing-store.js";
import { loadSeedInventory } from "./seed-loader.js";

/** Expired rows stay stored (and counted in sellerListingCountRawKv) this long before cleanup. */
export const EXPIRED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Housekeeping that no read's answer depends on: expired listings are already invisible the instant
 * they expire; this deletes them after the retention and keeps the seed rows loaded and renewed.
 * Idempotent, so every instance sharing one PostgreSQL may run it. Its first run completes before
 * the server takes traffic (the seed rows are there).
 */
/** The catalog's jobs use the listings' store of `repositories` (src/repositories.ts). */
type CatalogJobServices = JobBasics & { repositories: { listings: ListingStore } };

export const catalogUpkeepJob: BackgroundJob<CatalogJobServices & { market: MarketFacts }> = {
  name: "catalog-upkeep",
  create: ({ repositories, market, logger, config, now }) => {
    const store = repositories.listings;
    return {
      intervalMs: HOUR_MS,
      jitter: 0,
      awaitFirstRun: true,
      run: async () => {
        const at = now();
        const deleted = await store.deleteExpired(new Date(at.getTime() - EXPIRED_RETENTION_MS));
        const seed = config.loadSeed ? await loadSeedInventory(store, market, at) : undefined;
        if (deleted > 0 || (seed && seed.created + seed.updated + seed.removed > 0))
          logger.info({ deleted, seed }, "catalog maintenance");
      },
    };
  },
};

/** The read paths' upkeep starts this long after the service: it does not hold up the start. */
export const READ_PATH_UPKEEP_DELAY_MS = 5_000;

/**
 * Keeps the read paths fast (search index merged, planner statistics fresh), on every instance.
 * Not awaited at start: reads are right without it, only slower, and on a catalog just loaded in
 * bulk SQLite's merge took 29 s at 100k listings, which kept the first start from listening.
 */
export const readPathUpkeepJob: BackgroundJob<CatalogJobServices> = {
  name: "read-path-upkeep",
  create: ({ repositories, logger }) => ({
    intervalMs: HOUR_MS,
    jitter: 0,
    firstDelayMs: READ_PATH_UPKEEP_DELAY_MS,
    run: async (signal) => {
      const tidying = Date.now();
      await repositories.listings.tidyReadPaths(signal);
      const tidyMs = Date.now() - tidying;
      if (tidyMs > 1_000) logger.info({ tidyMs }, "read paths tidied");
    },
  }),
};
