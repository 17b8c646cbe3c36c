import type { JobDefinition } from "../jobs/job.js";
import type { IndexCrawler, SourceReport } from "./crawler.js";

/** The index crawler on one instance at a time (a lease): another takes over, from the saved checkpoints, when it dies. */
export function indexCrawlerJob(crawler: IndexCrawler, intervalMs: number): JobDefinition<SourceReport[]> | null {
  if (!crawler.enabled) return null;
  return {
    name: "index-crawler",
    intervalMs,
    firstDelayMs: Math.min(intervalMs, 10_000),
    lease: { name: "index-crawler", ttlMs: 120_000 },
    run: (signal, context) => crawler.run(signal, () => context.renewLease()),
  };
}
