// The search service's background jobs (src/background-jobs.ts lists them): following the catalog's
// changes into the engine (besides the change notices, src/queries/ranked-search.ts follow), and
// the model backfill. Off with SEARCH_SEMANTIC=off (no service). No
// lease: each instance keeps its own engine in memory. The backfill stores what it embeds, so an
// instance started later loads the vectors instead of embedding again.
import type { BackgroundJob, JobBasics } from "../jobs/job.js";
import type { SearchService } from "./service.js";

/** Listings the backfill embeds per run at most (a run stays short; the next one continues). */
export const BACKFILL_PER_RUN = 640;

type SearchServices = JobBasics & { search: SearchService | null };

/**
 * How often the follower polls for changes. This instance's writes reach the engine by notice at
 * their commit, another instance's by LISTEN on PostgreSQL: the poll catches whatever no notice
 * told of, so it bounds how long another instance's write can be missing from this one's ranking
 * (docs/catalog.md, search). At rest it reads an empty range of an index (issue 45).
 */
export const FOLLOW_INTERVAL_MS = 2_000;

export const searchFollowJob: BackgroundJob<SearchServices> = {
  name: "search-follow",
  create: ({ search, now }) =>
    search && { intervalMs: FOLLOW_INTERVAL_MS, run: async () => ({ changed: await search.refresh(now()) }) },
};

export const searchBackfillJob: BackgroundJob<SearchServices> = {
  name: "search-backfill",
  create: ({ search, config }) =>
    search && {
      // The duty paces the work; a short wait between runs so that the pacing alone sets the rate.
      intervalMs: 5_000,
      firstDelayMs: 5_000,
      run: async (signal) => ({ embedded: await search.backfill(signal, BACKFILL_PER_RUN, config.searchBackfillDuty) }),
    },
};
