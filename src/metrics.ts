// The service's Prometheus metrics, served at /metrics (src/handlers/ops.ts). One registry for the
// process, low in the layers so the entry, payments, the probe and the listing flow can all count.
// Label values are bounded sets (operation ids, status codes, outcome and failure codes), never
// URLs, addresses or client input.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

export const registry = new Registry();

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const REMOTE_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const metrics = {
  httpRequests: new Counter({
    name: "x402_http_requests_total",
    help: 'Requests answered, by canonical operation ("none" when no route matched), status and whether the response cache answered',
    labelNames: ["operation", "status", "cached"] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: "x402_http_request_duration_seconds",
    help: "Time from the request's arrival to the end of its response, by canonical operation and cached",
    labelNames: ["operation", "cached"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  payments: new Counter({
    name: "x402_payments_total",
    help: "Listing-fee payments by outcome (verified, settled, failed, unconfirmed, duplicate, unavailable) and the stage that decided it",
    labelNames: ["outcome", "stage"] as const,
    registers: [registry],
  }),
  reconcilerBacklog: new Gauge({
    name: "x402_reconciler_backlog",
    help: "Payments the last reconciler pass left waiting (not yet resolvable from the chain)",
    registers: [registry],
  }),
  reconcilerOldestAge: new Gauge({
    name: "x402_reconciler_oldest_pending_age_seconds",
    help: "Age of the oldest payment the last reconciler pass looked at and left waiting (0: none)",
    registers: [registry],
  }),
  reconcilerResolved: new Counter({
    name: "x402_reconciler_resolved_total",
    help: "Payments the reconciler resolved, by result (activated, failed)",
    labelNames: ["result"] as const,
    registers: [registry],
  }),
  reconcilerLastPass: new Gauge({
    name: "x402_reconciler_last_pass_timestamp_seconds",
    help: "Unix time the last reconciler pass finished",
    registers: [registry],
  }),
  usageLagBlocks: new Gauge({
    name: "x402_usage_indexer_lag_blocks",
    help: "Blocks between the chain head and the usage indexer's checkpoint (confirmations included), on the instance holding the indexer's lease",
    registers: [registry],
  }),
  usageCheckpoint: new Gauge({
    name: "x402_usage_indexer_checkpoint_block",
    help: "The last block the usage indexer has read for every tracked seller",
    registers: [registry],
  }),
  usageTransfers: new Counter({
    name: "x402_usage_indexer_transfers_total",
    help: "Token transfers to or from listed sellers the usage indexer stored",
    registers: [registry],
  }),
  jobLastRun: new Gauge({
    name: "x402_job_last_run_timestamp_seconds",
    help: "Unix time this instance's last run of a background job finished, by job (src/jobs/registry.ts)",
    labelNames: ["job"] as const,
    registers: [registry],
  }),
  jobDuration: new Histogram({
    name: "x402_job_duration_seconds",
    help: "Time a background job's run took, by job",
    labelNames: ["job"] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    registers: [registry],
  }),
  jobRuns: new Counter({
    name: "x402_job_runs_total",
    help: "Runs of a background job on this instance, failed ones included, by job",
    labelNames: ["job"] as const,
    registers: [registry],
  }),
  jobCpu: new Counter({
    name: "x402_job_cpu_seconds_total",
    help: "CPU the process spent while a background job's run was in progress, by job (requests answered meanwhile included: an upper bound)",
    labelNames: ["job"] as const,
    registers: [registry],
  }),
  jobFailures: new Counter({
    name: "x402_job_failures_total",
    help: "Runs of a background job that failed, by job",
    labelNames: ["job"] as const,
    registers: [registry],
  }),
  jobLastRunFailed: new Gauge({
    name: "x402_job_last_run_failed",
    help: "1 when this instance's last run of the job failed, else 0",
    labelNames: ["job"] as const,
    registers: [registry],
  }),
  jobLeaseHeld: new Gauge({
    name: "x402_job_lease_held",
    help: "For a job that runs on one instance at a time: 1 when this instance held its lease at the last try, else 0",
    labelNames: ["job"] as const,
    registers: [registry],
  }),
  jobLag: new Gauge({
    name: "x402_job_lag_seconds",
    help: "How far behind a job with a notion of lag is after its last run (usage-indexer: the checkpoint block's age)",
    labelNames: ["job"] as const,
    registers: [registry],
  }),
  probes: new Counter({
    name: "x402_seller_probes_total",
    help: "Seller probes by outcome: ok, a failure code (not_402, timeout, ...) or rate_limited",
    labelNames: ["outcome"] as const,
    registers: [registry],
  }),
  probeDuration: new Histogram({
    name: "x402_seller_probe_duration_seconds",
    help: "Time a seller probe that went out took, by outcome",
    labelNames: ["outcome"] as const,
    buckets: REMOTE_BUCKETS,
    registers: [registry],
  }),
  rateLimiterFallbacks: new Counter({
    name: "x402_rate_limiter_fallbacks_total",
    help: "Rate-limit decisions taken by the in-memory limiter because the shared (Redis) limiter did not answer",
    registers: [registry],
  }),
  uncachedRefusals: new Counter({
    name: "x402_uncached_work_refusals_total",
    help: "Uncached catalog requests refused with 503 busy because UNCACHED_CONCURRENCY work was running and the wait was full or too long",
    registers: [registry],
  }),
  databaseDuration: new Histogram({
    name: "x402_database_query_duration_seconds",
    help: "Database statements through Prisma, the PostgreSQL catalog read pool (and the readiness ping), by database kind",
    labelNames: ["database"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  catalogStampReads: new Counter({
    name: "x402_catalog_stamp_reads_total",
    help: "Reads of the catalog stamp (version and next expiry) from the database: on PostgreSQL about one a second per busy instance while change notices arrive, one per catalog read while they do not",
    registers: [registry],
  }),
  catalogNoticesLive: new Gauge({
    name: "x402_catalog_notices_live",
    help: "1 while this instance LISTENs for catalog change notices (PostgreSQL), else 0",
    registers: [registry],
  }),
  catalogNoticeReconnects: new Counter({
    name: "x402_catalog_notice_reconnects_total",
    help: "Times the catalog change-notice connection was lost (error, end or a failed keepalive) and opened again",
    registers: [registry],
  }),
  facilitatorDuration: new Histogram({
    name: "x402_facilitator_request_duration_seconds",
    help: "Facilitator calls (verify, settle, supported) by outcome: ok, refused (a definite no) or unavailable (no answer)",
    labelNames: ["call", "outcome"] as const,
    buckets: REMOTE_BUCKETS,
    registers: [registry],
  }),
};

let processMetrics = false;

/**
 * How often the event loop's delay is sampled. prom-client samples every 10 ms: a timer waking the
 * process 100 times a second, which cost an idle instance 2-8 ms of CPU a second on a shared machine
 * (issue 26's whole idle budget is 10). A stall still shows, up to this much short (the part of it
 * before the next sample was due is not seen).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;
/** prom-client's own delay monitor, whose gauges ours replace, wakes only this often. */
const UNUSED_MONITOR_MS = 3_600_000;

/**
 * prom-client's nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds from a monitor
 * sampling every EVENT_LOOP_SAMPLE_MS. Node records the time between samples, so the sampling
 * interval is taken off each reading: the figures stay the delay beyond schedule, as prom-client's
 * were (its 10 ms interval was left in them). Each scrape starts the figures afresh.
 */
function eventLoopDelayGauges(): void {
  const delay = monitorEventLoopDelay({ resolution: EVENT_LOOP_SAMPLE_MS });
  delay.enable();
  const late = (ns: number) => Math.max(0, ns / 1e9 - EVENT_LOOP_SAMPLE_MS / 1000);
  const readings: Array<[string, string, () => number]> = [
    ["min", "The minimum recorded event loop delay.", () => late(delay.min)],
    ["max", "The maximum recorded event loop delay.", () => late(delay.max)],
    ["mean", "The mean of the recorded event loop delays.", () => late(delay.mean)],
    ["stddev", "The standard deviation of the recorded event loop delays.", () => delay.stddev / 1e9],
    ["p50", "The 50th percentile of the recorded event loop delays.", () => late(delay.percentile(50))],
    ["p90", "The 90th percentile of the recorded event loop delays.", () => late(delay.percentile(90))],
    ["p99", "The 99th percentile of the recorded event loop delays.", () => late(delay.percentile(99))],
  ];
  // The first gauge's collect sets them all (the registry reads them in order), then starts afresh.
  const setAll = () => {
    readings.forEach(([, , read], index) => gauges[index]!.set(delay.count > 0 ? read() : 0));
    delay.reset();
  };
  const gauges: Gauge[] = readings.map(([name, help], index) => {
    registry.removeSingleMetric(`nodejs_eventloop_lag_${name}_seconds`);
    return new Gauge({
      name: `nodejs_eventloop_lag_${name}_seconds`,
      help,
      registers: [registry],
      ...(index === 0 && { collect: setAll }),
    });
  });
}

/** The process defaults (CPU, memory, event-loop lag, GC, handles), once per process. */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: UNUSED_MONITOR_MS });
  eventLoopDelayGauges();
}

/** Seconds since `startedNs` (process.hrtime.bigint()). */
export function secondsSince(startedNs: bigint): number {
  return Number(process.hrtime.bigint() - startedNs) / 1e9;
}
