// Every background job the server runs, in one list. A job is one definition (src/jobs/job.ts),
// exported by its domain; add it here and the server starts it, stops it and reports it in /metrics.
// Order matters only for the jobs awaited at start: catalog upkeep's first run (the seed rows)
// completes before the server takes traffic.
import type { Config } from "./config.js";
import { HOUR_MS } from "./constants.js";
import { catalogUpkeepJob, readPathUpkeepJob } from "./catalog/maintenance.js";
import type { HealthProber } from "./health/prober.js";
import type { JobDefinition } from "./jobs/job.js";
import { reconcilerJob } from "./listing/reconciler.js";
import { termEventsJob } from "./listing/term-events.js";
import type { Logger } from "./logger.js";
import type { MarketFacts } from "./market/facts.js";
import type { ChainReader } from "./payments/chain-reader.js";
import type { ListingStore } from "./storage/listing-store.js";
import type { UsageService } from "./usage/service.js";
import { searchJobs } from "./search/jobs.js";
import type { WebhookDeliverer } from "./webhooks/deliverer.js";
import { webhookDeliveryJob } from "./webhooks/job.js";
import type { SearchService } from "./search/service.js";
import type { IndexCrawler } from "./indexing/crawler.js";
import { indexCrawlerJob } from "./indexing/job.js";

export interface BackgroundJobDeps {
  config: Config;
  logger: Logger;
  now(): Date;
  store: ListingStore;
  market: MarketFacts;
  /** The chain the reconciler reads; null: no reconciler. */
  chain: ChainReader | null;
  prober: HealthProber;
  usage: UsageService;
  /** The search engine (null with SEARCH_SEMANTIC=off): its catalog follower and model backfill. */
  search: SearchService | null;
  /** Signed webhooks of the change log (src/webhooks/). */
  webhooks: WebhookDeliverer;
  /** Other catalogs and domains read into indexed rows (issue 28); no job without INDEX_SOURCES. */
  indexer: IndexCrawler;
}

export function backgroundJobs(deps: BackgroundJobDeps): JobDefinition[] {
  const { config, logger, now, store, chain } = deps;
  const jobs: Array<JobDefinition | null> = [
    catalogUpkeepJob({ store, market: deps.market, logger, loadSeed: config.loadSeed, intervalMs: HOUR_MS, now }),
    readPathUpkeepJob({ store, logger, intervalMs: HOUR_MS }),
    chain && config.payments.reconcileIntervalMs > 0 ? reconcilerJob({ store, chain, logger, now, intervalMs: config.payments.reconcileIntervalMs }) : null,
    termEventsJob({ transactions: store.transactions, intervalMs: config.events.termIntervalMs, now }),
    deps.prober.job(),
    deps.usage.job,
    webhookDeliveryJob(deps.webhooks, config.events.deliveryIntervalMs),
    indexCrawlerJob(deps.indexer, config.discovery.indexing.intervalMs),
  ];
  if (deps.search) jobs.push(...searchJobs(deps.search, { backfillDuty: config.searchBackfillDuty, now }));
  return jobs.filter((job): job is JobDefinition => job !== null);
}
