// What one probe does to a listing's health, and what buyers are shown from it. Pure functions: the
// store (health-store.ts) reads and writes the rows, the prober (src/health/prober.ts) runs probes.
//
// States: a probe that passes after `unknown` or `drifted` makes the listing healthy at once (its
// terms match again); after `unhealthy` it takes M consecutive passes. A failure whose code says the
// live challenge no longer matches the listing (payTo, price, token, no exact Base requirement) makes
// it drifted at once. Any other failure counts, and N consecutive ones make it unhealthy.
import { isDeepStrictEqual } from "node:util";
import { DAY_MS, HOUR_MS } from "../constants.js";

export type HealthStatus = "unknown" | "healthy" | "unhealthy" | "drifted";

/** One probe, as kept in ListingHealth.recentProbes and shown in a listing document's lastProbes. */
export interface ProbeSample {
  at: string;
  ok: boolean;
  code?: string;
  latencyMs?: number;
  /**
   * Stored only, never shown: a free refresh's probe that did not stand in for a round. It is shown in
   * lastProbes but kept out of the published uptimes and latency, so nobody's refreshes move them.
   */
  sampleOnly?: true;
}

/** The failure codes that mean the seller's live terms no longer match the listing. */
export const DRIFT_CODES: ReadonlySet<string> = new Set([
  "pay_to_mismatch",
  "price_mismatch",
  "asset_mismatch",
  "no_exact_base_requirement",
]);

/** At most this many recent probes are kept per listing (and none older than a day): 24 h at the default 15 min is 96. */
export const RECENT_PROBES_MAX = 100;

/** HealthDay rows older than this are deleted by the prober (the documents show 30 days). */
export const HEALTH_DAYS_KEPT = 31;

export interface HealthRules {
  failuresToUnhealthy: number;
  successesToHealthy: number;
}

/** A listing's health state: ListingHealth's columns plus the published status. */
export interface HealthState {
  status: HealthStatus;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  lastCode: string | null;
  lastCheckedAt: Date | null;
  lastHealthyAt: Date | null;
  lastLatencyMs: number | null;
  recentProbes: ProbeSample[];
}

export const NEW_HEALTH: HealthState = {
  status: "unknown",
  consecutiveFailures: 0,
  consecutiveSuccesses: 0,
  lastCode: null,
  lastCheckedAt: null,
  lastHealthyAt: null,
  lastLatencyMs: null,
  recentProbes: [],
};

/** What one probe found: ok with its latency, or the probe's failure code. */
export type ProbeOutcome = { ok: true; latencyMs: number } | { ok: false; code: string; latencyMs: number };

function nextStatus(
  state: HealthState,
  outcome: ProbeOutcome,
  failures: number,
  successes: number,
  rules: HealthRules,
): HealthStatus {
  if (outcome.ok) {
    if (state.status === "unhealthy") return successes >= rules.successesToHealthy ? "healthy" : "unhealthy";
    return "healthy";
  }
  if (DRIFT_CODES.has(outcome.code)) return "drifted";
  if (failures >= rules.failuresToUnhealthy) return "unhealthy";
  return state.status;
}

export function applyProbe(
  state: HealthState,
  outcome: ProbeOutcome,
  at: Date,
  rules: HealthRules,
  sampleOnly = false,
): HealthState {
  const failures = outcome.ok ? 0 : state.consecutiveFailures + 1;
  const successes = outcome.ok ? state.consecutiveSuccesses + 1 : 0;
  const latencyMs = Math.max(0, Math.round(outcome.latencyMs));
  const sample: ProbeSample = {
    at: at.toISOString(),
    ok: outcome.ok,
    ...(!outcome.ok && { code: outcome.code }),
    latencyMs,
    ...(sampleOnly && { sampleOnly: true as const }),
  };
  const since = at.getTime() - DAY_MS;
  // Newest first even when a probe is recorded after a later one (a batch that outlived its lease).
  const recentProbes = [sample, ...state.recentProbes.filter((probe) => Date.parse(probe.at) > since)]
    .sort((x, y) => Date.parse(y.at) - Date.parse(x.at))
    .slice(0, RECENT_PROBES_MAX);
  return {
    status: nextStatus(state, outcome, failures, successes, rules),
    consecutiveFailures: failures,
    consecutiveSuccesses: successes,
    lastCode: outcome.ok ? null : outcome.code,
    lastCheckedAt: state.lastCheckedAt && state.lastCheckedAt > at ? state.lastCheckedAt : at,
    lastHealthyAt: outcome.ok ? at : state.lastHealthyAt,
    lastLatencyMs: latencyMs,
    recentProbes,
  };
}

/**
 * A probe that brings news but does not count toward the consecutive rules (a free refresh while the
 * listing is not due): its sample is kept, and the status moves only where one probe moves it anyway
 * (a drift code, or a pass after unknown or drifted), never across the N-failures or M-successes rule.
 * Its sample is marked sampleOnly: it stays out of the uptimes and latency (healthSummary, HealthDay).
 */
export function applySampleOnly(state: HealthState, outcome: ProbeOutcome, at: Date, rules: HealthRules): HealthState {
  const applied = applyProbe(state, outcome, at, rules, true);
  const status: HealthStatus = outcome.ok
    ? state.status === "unhealthy"
      ? "unhealthy"
      : "healthy"
    : DRIFT_CODES.has(outcome.code)
      ? "drifted"
      : state.status;
  return {
    ...applied,
    status,
    consecutiveFailures: state.consecutiveFailures,
    consecutiveSuccesses: state.consecutiveSuccesses,
  };
}

/** A sample as a listing document shows it (without the stored sampleOnly mark). */
export function shownProbe({ sampleOnly: _, ...probe }: ProbeSample): ProbeSample {
  return probe;
}

/** Reads a stored recentProbes value, dropping anything that is not a sample. */
export function recentProbesOf(value: unknown): ProbeSample[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (probe): probe is ProbeSample =>
      typeof probe === "object" && probe !== null && typeof probe.at === "string" && typeof probe.ok === "boolean",
  );
}

// Latencies of a day are kept as a histogram of log-spaced buckets (4 per doubling, so a bucket's
// midpoint is within 9% of any latency in it): bounded storage, and a median over any set of days.
const BUCKETS_PER_DOUBLING = 4;

export type LatencyHistogram = Record<string, number>;

export function latencyBucket(latencyMs: number): number {
  return latencyMs < 1 ? 0 : Math.floor(Math.log2(latencyMs) * BUCKETS_PER_DOUBLING) + 1;
}

function bucketMidpointMs(bucket: number): number {
  return bucket === 0 ? 0 : Math.round(2 ** ((bucket - 0.5) / BUCKETS_PER_DOUBLING));
}

export function histogramOf(value: unknown): LatencyHistogram {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const histogram: LatencyHistogram = {};
  for (const [bucket, count] of Object.entries(value))
    if (/^\d+$/.test(bucket) && Number.isInteger(count) && (count as number) > 0) histogram[bucket] = count as number;
  return histogram;
}

export function addLatency(histogram: LatencyHistogram, latencyMs: number): LatencyHistogram {
  const bucket = String(latencyBucket(latencyMs));
  return { ...histogram, [bucket]: (histogram[bucket] ?? 0) + 1 };
}

export function histogramMedianMs(histogram: LatencyHistogram): number | undefined {
  const buckets = Object.entries(histogram)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return undefined;
  let seen = 0;
  for (const [bucket, count] of buckets) {
    seen += count;
    if (seen * 2 >= total) return bucketMidpointMs(bucket);
  }
  return undefined;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

const share = (part: number, whole: number) => Math.round((part / whole) * 10_000) / 10_000;

/** Probe and success counts over the last 7 and 30 UTC days (HealthDay rows, today included). */
export interface DayTotals {
  probes7d: number;
  successes7d: number;
  probes30d: number;
  successes30d: number;
}

/** The item's metadata.health without its status: what Listing.healthSummary holds. */
export interface HealthSummary {
  uptime24h?: number;
  uptime7d?: number;
  uptime30d?: number;
  p50LatencyMs?: number;
  lastCheckedAt?: string;
  lastHealthyAt?: string;
  failureCode?: string;
}

export function healthSummary(state: HealthState, totals: DayTotals, now: Date): HealthSummary {
  const since = now.getTime() - DAY_MS;
  // Only the scheduled rule's probes make the uptimes and latency: a refresh's sample is news, not a measure.
  const lastDay = state.recentProbes.filter((probe) => Date.parse(probe.at) > since && !probe.sampleOnly);
  const passed = lastDay.filter((probe) => probe.ok);
  const p50 = median(passed.flatMap((probe) => (probe.latencyMs === undefined ? [] : [probe.latencyMs])));
  return {
    ...(lastDay.length > 0 && { uptime24h: share(passed.length, lastDay.length) }),
    ...(totals.probes7d > 0 && { uptime7d: share(totals.successes7d, totals.probes7d) }),
    ...(totals.probes30d > 0 && { uptime30d: share(totals.successes30d, totals.probes30d) }),
    ...(p50 !== undefined && { p50LatencyMs: p50 }),
    ...(state.lastCheckedAt && { lastCheckedAt: state.lastCheckedAt.toISOString() }),
    ...(state.lastHealthyAt && { lastHealthyAt: state.lastHealthyAt.toISOString() }),
    ...(state.lastCode !== null && { failureCode: state.lastCode }),
  };
}

/** A summary without its check times: lastCheckedAt, and lastHealthyAt when it only says the last check passed. */
function withoutCheckTimes(summary: HealthSummary): HealthSummary {
  const { lastCheckedAt, lastHealthyAt, ...rest } = summary;
  return lastHealthyAt === undefined || lastHealthyAt === lastCheckedAt ? rest : { ...rest, lastHealthyAt };
}

/**
 * Whether a probe's health must be published to the catalog: its status or anything its summary
 * shows moved. `checkedAtRefreshMs` (a round's probe): a summary whose only move is the time of its
 * check (`lastCheckedAt`, and `lastHealthyAt` of a listing that passed then and passes again, which
 * equals it) waits until the shown check is that far behind, so a round's probe that changes
 * nothing a reader ranks or filters by rewrites no listing and bumps no catalog version. Without it
 * (a probe outside the rounds: the listing-time sample, an owner's update, a free refresh) any
 * change is published at once.
 */
export function publishesHealth(
  shown: { status: string; summary: unknown },
  next: { status: HealthStatus; summary: HealthSummary },
  checkedAtRefreshMs?: number,
): boolean {
  if (next.status !== shown.status) return true;
  if (isDeepStrictEqual(next.summary, shown.summary)) return false;
  if (checkedAtRefreshMs === undefined || typeof shown.summary !== "object" || shown.summary === null) return true;
  const shownSummary = shown.summary as HealthSummary;
  if (!shownSummary.lastCheckedAt || !next.summary.lastCheckedAt) return true;
  if (!isDeepStrictEqual(withoutCheckTimes(next.summary), withoutCheckTimes(shownSummary))) return true;
  return Date.parse(next.summary.lastCheckedAt) - Date.parse(shownSummary.lastCheckedAt) >= checkedAtRefreshMs;
}

/** The UTC day a time falls on, at 00:00. */
export function utcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** When a listing probed at `at` is due again: the interval, plus or minus 10% so rounds spread out. */
export function nextProbeAt(at: Date, intervalMs: number, random: () => number = Math.random): Date {
  const interval = intervalMs > 0 ? intervalMs : DEFAULT_INTERVAL_MS;
  return new Date(at.getTime() + Math.round(interval * (0.9 + 0.2 * random())));
}

/**
 * The re-probe interval under an instance's probe budget: the configured one, or as long as the
 * budget takes to probe every scheduled listing once when that is longer (0 or no budget: as configured).
 */
export function budgetedIntervalMs(intervalMs: number, scheduledListings: number, probesPerMinute: number): number {
  if (intervalMs <= 0 || probesPerMinute <= 0) return intervalMs;
  return Math.max(intervalMs, Math.ceil((scheduledListings * 60_000) / probesPerMinute));
}

/** The re-probe interval when re-probing is off (rounds run on demand only): 15 minutes. */
const DEFAULT_INTERVAL_MS = HOUR_MS / 4;
