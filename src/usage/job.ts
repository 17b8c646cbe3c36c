// Runs the usage indexer in the background on one instance at a time: each pass takes (or renews)
// the "usage-indexer" lease and renews it before every commit, so an instance that dies mid-pass
// hands over within USAGE_LEASE_MS and two instances never write the checkpoint at once.
import { startPeriodic, type PeriodicJob } from "../jobs/periodic.js";
import type { JobLeases } from "../jobs/lease.js";
import type { Logger } from "../logger.js";
import type { PassReport, UsageIndexer } from "./indexer.js";

export const USAGE_LEASE = "usage-indexer";
export const USAGE_LEASE_MS = 60_000;

export interface UsageJobOptions {
  indexer: UsageIndexer;
  leases: JobLeases;
  logger: Logger;
  /** 0: no timer; passes run only through runNow(). */
  intervalMs: number;
  onPass?: (report: PassReport) => void;
}

export interface UsageJob extends PeriodicJob {
  /** The report of the last pass this instance ran, null when it did not hold the lease. */
  lastPass(): PassReport | null;
}

export function startUsageJob(options: UsageJobOptions): UsageJob {
  const { indexer, leases, logger } = options;
  let last: PassReport | null = null;
  const holdsLease = () => leases.acquire(USAGE_LEASE, USAGE_LEASE_MS);
  const run = async (signal: AbortSignal) => {
    last = null;
    if (!(await holdsLease())) return;
    const started = Date.now();
    const report = await indexer.pass(signal, holdsLease);
    last = report;
    options.onPass?.(report);
    const status = indexer.status();
    const fields = { ...status, inserted: report.inserted, rewound: report.rewound, published: report.published, ms: Date.now() - started };
    if (report.inserted > 0 || report.published > 0 || (status.lagBlocks ?? 0) > 100) logger.info(fields, "usage indexer pass");
    else logger.debug(fields, "usage indexer pass");
  };
  const job = startPeriodic({
    name: "usage indexer",
    // A disabled timer still serves runNow(): the first timed run is pushed beyond any test.
    intervalMs: options.intervalMs > 0 ? options.intervalMs : 2 ** 30,
    firstDelayMs: options.intervalMs > 0 ? 0 : 2 ** 30,
    logger,
    run,
  });
  return {
    ...job,
    lastPass: () => last,
    stop: async () => {
      await job.stop();
      await leases.release(USAGE_LEASE).catch(() => {});
    },
  };
}
