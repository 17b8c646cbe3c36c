// The search service's background jobs, as job registry definitions (src/jobs/job.ts): following
// the catalog's changes into the engine, and the model backfill. No lease: each instance keeps its
// own engine in memory. The backfill stores what it embeds, so an instance started later loads the
// vectors instead of embedding again.
import type { JobDefinition } from "../jobs/job.js";
import type { SearchService } from "./service.js";

/** Listings the backfill embeds per run at most (a run stays short; the next one continues). */
export const BACKFILL_PER_RUN = 640;
export function searchJobs(
  service: SearchService,
  options: { followIntervalMs?: number; backfillIntervalMs?: number; backfillDuty: number; now(): Date },
): JobDefinition[] {
  const duty = options.backfillDuty;
  return [
    {
      name: "search-follow",
      intervalMs: options.followIntervalMs ?? 2_000,
      run: async () => ({ changed: await service.refresh(options.now()) }),
    },
    {
      name: "search-backfill",
      // The duty paces the work; a short wait between runs so that the pacing alone sets the rate.
      intervalMs: options.backfillIntervalMs ?? 5_000,
      firstDelayMs: 5_000,
      run: async (signal) => ({ embedded: await service.backfill(signal, BACKFILL_PER_RUN, duty) }),
    },
  ];
}
