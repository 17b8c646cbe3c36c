// Every background job the server runs, in one list. A job is `<area>/job.ts` exporting a
// BackgroundJob (src/jobs/job.ts): its name and how it is made from the services below, which the
// server gives here once; add its line to JOBS and the server starts it, stops it and reports it in
// /metrics. src/server.ts does not change for a new job.
// Order matters only for the jobs awaited at start: catalog upkeep's first run (the seed rows)
// completes before the server takes traffic.
import { catalogUpkeepJob, readPathUpkeepJob } from "./catalog/job.js";
import type { HealthProber } from "./health/prober.js";
import { healthProberJob } from "./health/job.js";
import { indexCrawlerJob } from "./indexing/job.js";
import type { BackgroundJob, JobBasics, JobDefinition } from "./jobs/job.js";
import { createJobRegistry, type JobRegistry } from "./jobs/registry.js";
import { listingTermsJob, paymentReconcilerJob } from "./listing/job.js";
import type { MarketFacts } from "./market/facts.js";
import type { Payments } from "./payments/setup.js";
import type { Repositories } from "./repositories.js";
import type { SellerProbe } from "./probe/seller-probe.js";
import { searchBackfillJob, searchFollowJob } from "./search/job.js";
import type { SearchService } from "./search/service.js";
import { usageIndexerJob } from "./usage/job.js";
import type { UsageService } from "./usage/service.js";
import { webhookDeliveryJob } from "./webhooks/job.js";
import type { DocumentPool } from "./workers/pool.js";

/** What the jobs may use: the basics (configuration, logger, clock, every store) and the areas' services. */
export interface JobServices extends JobBasics {
  /** Every store, built once (src/repositories.ts): each job names the ones it uses. */
  repositories: Repositories;
  market: MarketFacts;
  /** The chain the reconciler reads (null: no reconciler) and the asset indexed rows are priced in. */
  payments: Pick<Payments, "chain" | "asset">;
  probe: SellerProbe;
  /** Where large documents (snapshots) are parsed, off the event loop. */
  documents: DocumentPool;
  prober: HealthProber;
  usage: UsageService;
  /** The search engine (null with SEARCH_SEMANTIC=off): its catalog follower and model backfill. */
  search: SearchService | null;
}

const JOBS: ReadonlyArray<BackgroundJob<JobServices>> = [
  catalogUpkeepJob,
  readPathUpkeepJob,
  paymentReconcilerJob,
  listingTermsJob,
  healthProberJob,
  usageIndexerJob,
  webhookDeliveryJob,
  indexCrawlerJob,
  searchFollowJob,
  searchBackfillJob,
];

/** Each job's definition with these services; the jobs off with this configuration left out. */
export function backgroundJobDefinitions(services: JobServices): JobDefinition[] {
  return JOBS.flatMap((job) => {
    const definition = job.create(services);
    return definition ? [{ ...definition, name: job.name }] : [];
  });
}

/** The server's jobs, made once from its services; started and stopped by the server. */
export function backgroundJobs(services: JobServices): JobRegistry {
  return createJobRegistry(backgroundJobDefinitions(services), {
    logger: services.logger,
    leases: services.repositories.leases,
  });
}
