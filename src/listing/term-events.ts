import type { JobDefinition } from "../jobs/job.js";
import type { CatalogTransactions } from "../storage/catalog-transactions.js";
import { recordTermMilestones } from "../storage/term-milestones.js";

/** listing.expiring (7 days and 1 day ahead) and listing.expired, each once per term (storage/term-milestones.ts). */
export function termEventsJob(options: { transactions: CatalogTransactions; intervalMs: number; now: () => Date }): JobDefinition<number> {
  return {
    name: "listing-terms",
    intervalMs: options.intervalMs,
    lease: { name: "listing-terms", ttlMs: Math.max(60_000, options.intervalMs * 2) },
    run: () => recordTermMilestones(options.transactions, options.now()),
  };
}
