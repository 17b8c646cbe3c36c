// The usage indexer as a background job, on one instance at a time: each pass takes (or renews)
// the "usage-indexer" lease (src/jobs/registry.ts) and renews it before every commit, so an
// instance that dies mid-pass hands over within USAGE_LEASE_MS and two instances never write the
// checkpoint at once.
import type { BackgroundJob, JobBasics } from "../jobs/job.js";
import type { UsageService } from "./service.js";

export const USAGE_LEASE = "usage-indexer";
export const USAGE_LEASE_MS = 60_000;

/** Every USAGE_INTERVAL_SECONDS (0: no timer; passes run only when asked, JobRegistry.runNow); off without a chain. */
export const usageIndexerJob: BackgroundJob<JobBasics & { usage: UsageService }> = {
  name: "usage-indexer",
  create: ({ config, usage: { indexer }, logger }) => {
    if (!indexer) return null;
    return {
      intervalMs: config.usage.intervalMs,
      lease: { name: USAGE_LEASE, ttlMs: USAGE_LEASE_MS },
      lagSeconds: () => indexer.status().lagSeconds,
      run: async (signal, { renewLease }) => {
        const started = Date.now();
        const report = await indexer.pass(signal, renewLease);
        const status = indexer.status();
        const fields = {
          ...status,
          inserted: report.inserted,
          rewound: report.rewound,
          published: report.published,
          ms: Date.now() - started,
        };
        if (report.inserted > 0 || report.published > 0 || (status.lagBlocks ?? 0) > 100)
          logger.info(fields, "usage indexer pass");
        else logger.debug(fields, "usage indexer pass");
        return report;
      },
    };
  },
};
