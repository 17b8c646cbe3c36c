// ListingHealth rows as the health rules read them, and back: the conversions of a recorded probe.
import type { Prisma } from "../../generated/prisma/sqlite/client.js";
import { recentProbesOf, type DayTotals, type HealthState, type HealthStatus } from "./health-rules.js";
import { toDate, toDateOrNull, type SqlRow } from "../storage/catalog-reader.js";

export const num = (value: unknown) => Number(value ?? 0);
export const jsonOf = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : (value ?? null));

/**
 * Whether a free refresh at `at` counts like the round's probe: only when the listing is due and no
 * round holds it. Counted probes then stay an interval apart, so a stranger's refreshes cannot move a
 * listing across a state boundary sooner than the rounds would.
 */
export function standsInForRound(row: SqlRow, at: Date): boolean {
  const leased =
    row.leaseUntil !== null && row.leaseUntil !== undefined && toDate(row.leaseUntil).getTime() > at.getTime();
  return !leased && toDate(row.nextProbeAt).getTime() <= at.getTime();
}

/** A ListingHealth row joined with its listing's published status, as the rules read it. */
export function healthStateOf(row: SqlRow): HealthState {
  return {
    status: row.healthStatus as HealthStatus,
    consecutiveFailures: num(row.consecutiveFailures),
    consecutiveSuccesses: num(row.consecutiveSuccesses),
    lastCode: (row.lastCode as string | null) ?? null,
    lastCheckedAt: toDateOrNull(row.lastCheckedAt),
    lastHealthyAt: toDateOrNull(row.lastHealthyAt),
    lastLatencyMs: row.lastLatencyMs === null || row.lastLatencyMs === undefined ? null : num(row.lastLatencyMs),
    recentProbes: recentProbesOf(jsonOf(row.recentProbes)),
  };
}

export function healthColumns(state: HealthState) {
  return {
    consecutiveFailures: state.consecutiveFailures,
    consecutiveSuccesses: state.consecutiveSuccesses,
    lastCode: state.lastCode,
    lastCheckedAt: state.lastCheckedAt,
    lastHealthyAt: state.lastHealthyAt,
    lastLatencyMs: state.lastLatencyMs,
    recentProbes: state.recentProbes as unknown as Prisma.InputJsonValue,
  };
}

export function withProbe(totals: DayTotals | undefined, ok: boolean): DayTotals {
  const sum = totals ?? { probes7d: 0, successes7d: 0, probes30d: 0, successes30d: 0 };
  const success = ok ? 1 : 0;
  return {
    probes7d: sum.probes7d + 1,
    successes7d: sum.successes7d + success,
    probes30d: sum.probes30d + 1,
    successes30d: sum.successes30d + success,
  };
}
