import type { JobDefinition } from "../jobs/job.js";
import type { IndexCrawler, SourceReport } from "./crawler.js";

/** The index crawler on one instance at a time (a lease renewed before each page): another takes over, from the saved checkpoints, within 30 s of its death. */
export function indexCrawlerJob(crawler: IndexCrawler, intervalMs: number): JobDefinition<SourceReport[]> | null {
  if (!crawler.enabled) return null;
  return {
    name: "index-crawler",
    intervalMs,
    firstDelayMs: Math.min(intervalMs, 10_000),
    lease: { name: "index-crawler", ttlMs: 30_000 },
    run: (signal, context) => crawler.run(signal, () => context.renewLease()),
  };
}
