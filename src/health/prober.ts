// The re-probe of every live listing (issue 14), seed rows included. Each tick gives new listings a
// schedule, then claims due listings in batches (leased in the database, so with several instances
// each listing is probed by one of them per round, and a dead instance's leases run out and are
// taken over), probes each batch politely (runPolitely), and records the batch in one transaction.
// The probe is the seller probe's check(): the listing-time checks and SSRF defences, its deadline
// and size limit, without the per-client buckets of the free dry run.
import { performance } from "node:perf_hooks";
import type { HealthConfig } from "../config.js";
import { INSTANCE_ID } from "../storage/job-leases.js";
import type { Logger } from "../logger.js";
import type { ProbeResult, ProbeTarget } from "../probe/seller-probe.js";
import type { ClaimedListing, HealthStore, ProbedListing } from "./health-store.js";
import { budgetedIntervalMs } from "./health-rules.js";
import { runPolitely, type Pace } from "./politeness.js";

export interface HealthProberDeps {
  store: HealthStore;
  probe: { check(target: ProbeTarget): Promise<ProbeResult> };
  config: HealthConfig;
  logger: Logger;
  now(): Date;
  /** This instance as a lease holder (tests run two in one process). */
  holder?: string;
}

export interface RoundReport {
  probed: number;
  failed: number;
  /** Listings whose shown health changed. */
  published: number;
  batches: number;
}

/** How often a running prober looks for due listings, at most (each listing is due once per interval). */
export const TICK_MS = 60_000;
/** A host whose name did not resolve is not looked up again for this long: its other listings fail with the same answer. */
export const UNRESOLVABLE_HOST_BACKOFF_MS = 5 * 60_000;
/**
 * How often a round looks for listings without a schedule and prunes the rows of listings gone, at
 * most: each is a scan of every listing (0.2 s at 100k), and a listing paid for is scheduled when it
 * is listed; this bounds how long a seed or indexed row waits for its first probe.
 */
export const UPKEEP_EVERY_MS = 10 * 60_000;

export class HealthProber {
  readonly holder: string;
  /** When each host may be probed again (politeness across batches and rounds); forgotten once past. */
  private readonly hostReadyAt = new Map<string, number>();
  /** When (the clock's ms) a round last scheduled new listings and pruned gone ones. */
  private upkeptAt: number | null = null;
  /** Hosts whose name did not resolve: until when (the clock's ms) their listings take that answer without a lookup. */
  private readonly unresolvableUntil = new Map<string, { until: number; result: ProbeResult }>();
  /** The probe budget's spacing of probe starts, held across batches and rounds; none without a budget. */
  private readonly pace: Pace | undefined;
  /** Listings with a schedule, counted at each upkeep: what the budget has to cover in one interval. */
  private scheduledListings = 0;

  constructor(private readonly deps: HealthProberDeps) {
    this.holder = deps.holder ?? INSTANCE_ID;
    // Rounds asked for while re-probing is off (intervalMs 0: the tests) are not paced.
    const { intervalMs, probesPerMinute } = deps.config;
    this.pace = intervalMs > 0 && probesPerMinute > 0 ? { gapMs: 60_000 / probesPerMinute, nextStartAt: 0 } : undefined;
  }

  get rules() {
    return {
      failuresToUnhealthy: this.deps.config.failuresToUnhealthy,
      successesToHealthy: this.deps.config.successesToHealthy,
    };
  }

  /**
   * The schedule options the store needs to record a probe (the listing-time sample too): a healthy
   * listing's interval stretched to the budget; a failing or not yet healthy one is rechecked at the
   * configured interval, so an outage shows within a few intervals however large the catalog.
   */
  get schedule() {
    const { intervalMs, probesPerMinute } = this.deps.config;
    return {
      rules: this.rules,
      intervalMs: budgetedIntervalMs(intervalMs, this.scheduledListings, probesPerMinute),
      recheckMs: intervalMs,
    };
  }

  /**
   * Listings a batch claims: the configured batch, or what the budget probes in half a lease when
   * that is fewer, so a paced batch ends well inside its lease.
   */
  private get batchSize(): number {
    const { batchSize, probesPerMinute, leaseMs } = this.deps.config;
    if (!this.pace) return batchSize;
    return Math.max(1, Math.min(batchSize, Math.floor((probesPerMinute * leaseMs) / 2 / 60_000)));
  }

  /** Probes every due listing once, batch by batch, until none is due (or `signal` stops it). */
  async runRound(signal?: AbortSignal): Promise<RoundReport> {
    const { store, config, logger } = this.deps;
    const report: RoundReport = { probed: 0, failed: 0, published: 0, batches: 0 };
    const roundStart = this.deps.now();
    const upkeep = this.upkeptAt === null || roundStart.getTime() - this.upkeptAt >= UPKEEP_EVERY_MS;
    if (upkeep) {
      await store.schedule(roundStart);
      this.scheduledListings = await store.scheduledCount();
    }
    while (!signal?.aborted) {
      // Only what was due when the round began: with a short interval, the first probed would be due again before the last.
      const claimed = await store.claim(this.holder, this.deps.now(), config.leaseMs, this.batchSize, roundStart);
      if (claimed.length === 0) break;
      report.batches++;
      const probed = await this.probeBatch(claimed, signal);
      const done = probed.filter((entry): entry is ProbedListing => entry !== undefined);
      const unprobed = claimed.filter((_, index) => probed[index] === undefined).map((listing) => listing.listingId);
      report.probed += done.length;
      report.failed += done.filter((entry) => !entry.outcome.ok).length;
      report.published += await store.record(this.holder, done, this.deps.now(), this.schedule);
      await store.release(this.holder, unprobed);
    }
    if (upkeep) {
      await store.prune(this.deps.now());
      this.upkeptAt = roundStart.getTime();
    }
    const now = performance.now();
    for (const [host, at] of this.hostReadyAt) if (at <= now) this.hostReadyAt.delete(host);
    const clock = this.deps.now().getTime();
    for (const [host, entry] of this.unresolvableUntil) if (entry.until <= clock) this.unresolvableUntil.delete(host);
    if (report.probed > 0) logger.debug({ ...report }, "listing health round");
    return report;
  }

  private probeBatch(
    claimed: ClaimedListing[],
    signal: AbortSignal | undefined,
  ): Promise<Array<ProbedListing | undefined>> {
    const { config, probe } = this.deps;
    return runPolitely(
      claimed,
      (listing) => hostOf(listing.resource),
      async (listing): Promise<ProbedListing> => {
        const started = performance.now();
        const result = await this.checkUnlessUnresolvable(listing, probe);
        const latencyMs = performance.now() - started;
        const outcome = result.ok
          ? { ok: true as const, latencyMs }
          : { ok: false as const, code: result.code, latencyMs };
        return { claimed: listing, outcome, at: this.deps.now() };
      },
      {
        concurrency: config.concurrency,
        hostGapMs: config.hostGapMs,
        hostReadyAt: this.hostReadyAt,
        ...(this.pace && { pace: this.pace }),
        ...(signal && { signal }),
      },
    );
  }

  /** The probe, or the recent "does not resolve" of the listing's host: a dead host's listings cost one lookup, not one each. */
  private async checkUnlessUnresolvable(
    listing: ClaimedListing,
    probe: HealthProberDeps["probe"],
  ): Promise<ProbeResult> {
    const host = hostOf(listing.resource);
    const known = this.unresolvableUntil.get(host);
    if (known && known.until > this.deps.now().getTime()) return known.result;
    const result = await probe.check({
      resource: listing.resource,
      method: listing.method,
      priceAtomic: listing.priceAtomic,
      sellerPayTo: listing.sellerPayTo,
    });
    if (!result.ok && result.code === "host_unresolvable")
      this.unresolvableUntil.set(host, { until: this.deps.now().getTime() + UNRESOLVABLE_HOST_BACKOFF_MS, result });
    return result;
  }
}

/** The politeness key: the resource's host name (every port of a host is one host). */
export function hostOf(resource: string): string {
  try {
    return new URL(resource).hostname.toLowerCase();
  } catch {
    return "";
  }
}
