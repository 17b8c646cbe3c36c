// The search service's background jobs, as job registry definitions (src/jobs/job.ts): following
// the catalog's changes into the engine, and the model backfill. No lease: each instance keeps its
// own engine in memory. The backfill stores what it embeds, so an instance started later loads the
// vectors instead of embedding again.
import type { JobDefinition } from "../jobs/job.js";
import type { SearchService } from "./service.js";

/** Listings the backfill embeds per run at most (a run stays short; the next one continues). */
export const BACKFILL_PER_RUN = 640;
/**
 * The share of the time the backfill works (it pauses after each batch in proportion): the model
 * competes with catalog reads for the CPU, and on two cores at 0.5 it slowed uncached reads by more
 * than 1.2x (npm run bench:search:backfill). SEARCH_BACKFILL_DUTY, from 0 (no backfill) to 1.
 */
export const BACKFILL_DUTY = 0.25;

/** SEARCH_BACKFILL_DUTY's value (BACKFILL_DUTY when unset); a value outside 0..1 stops the start. */
export function backfillDuty(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return BACKFILL_DUTY;
  const duty = Number(value);
  if (!Number.isFinite(duty) || duty < 0 || duty > 1) throw new Error(`SEARCH_BACKFILL_DUTY must be a number from 0 to 1, not "${value}"`);
  return duty;
}

export function searchJobs(
  service: SearchService,
  options: { followIntervalMs?: number; backfillIntervalMs?: number; backfillDuty?: number; now(): Date },
): JobDefinition[] {
  const duty = options.backfillDuty ?? backfillDuty(process.env.SEARCH_BACKFILL_DUTY);
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
