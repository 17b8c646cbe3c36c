// The listing area's jobs (src/background-jobs.ts lists them): the payment reconciler and the
// term milestones' events.
import type { BackgroundJob, JobBasics } from "../jobs/job.js";
import type { Payments } from "../payments/setup.js";
import type { ListingStore } from "../storage/listing/listing-store.js";
import { recordTermMilestones } from "../storage/listing/term-milestones.js";
import { reconcilerJob } from "./reconciler.js";

/** The reconciler (src/listing/reconciler.ts) every RECONCILE_INTERVAL_SECONDS; off without a chain or with 0. */
/** The listing area's jobs use the listings' store of `repositories` (src/repositories.ts). */
type ListingJobServices = JobBasics & { repositories: { listings: ListingStore } };

export const paymentReconcilerJob: BackgroundJob<ListingJobServices & { payments: Pick<Payments, "chain"> }> = {
  name: "reconciler",
  create: ({ config, repositories, payments: { chain }, logger, now }) => {
    const intervalMs = config.payments.reconcileIntervalMs;
    return chain && intervalMs > 0
      ? reconcilerJob({ store: repositories.listings, chain, logger, now, intervalMs })
      : null;
  },
};

/** listing.expiring (7 days and 1 day ahead) and listing.expired, each once per term (storage/listing/term-milestones.ts). */
export const listingTermsJob: BackgroundJob<ListingJobServices> = {
  name: "listing-terms",
  create: ({ config, repositories, now }) => {
    const intervalMs = config.events.termIntervalMs;
    return {
      intervalMs,
      lease: { name: "listing-terms", ttlMs: Math.max(60_000, intervalMs * 2) },
      run: () => recordTermMilestones(repositories.listings.transactions, now()),
    };
  },
};
