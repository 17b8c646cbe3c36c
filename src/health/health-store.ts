// Listing health in the database (issue 14): ListingHealth (the re-probe schedule, per-row leases,
// consecutive counts and the recent probes), HealthDay (per listing per UTC day: probes, successes,
// a latency histogram) and the published Listing.healthStatus/healthSummary, written with one
// catalog version bump per batch through CatalogTransactions.
//
// Claims: a due listing is leased to one instance (leasedBy/leaseUntil) by one statement: SQLite's
// UPDATE ... RETURNING under its single writer, PostgreSQL's FOR UPDATE SKIP LOCKED, so two
// instances never claim the same row, and a lease that runs out (its instance died) is claimed again.
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import { DAY_MS, HEALTH_CHECKED_AT_REFRESH_MS } from "../constants.js";
import {
  addLatency,
  applyProbe,
  applySampleOnly,
  HEALTH_DAYS_KEPT,
  healthSummary,
  histogramMedianMs,
  histogramOf,
  NEW_HEALTH,
  nextProbeAt,
  publishesHealth,
  recentProbesOf,
  shownProbe,
  utcDay,
  type DayTotals,
  type HealthRules,
  type HealthState,
  type ProbeOutcome,
  type ProbeSample,
} from "./health-rules.js";
import { toDate, toDateOrNull, type SqlRow } from "../storage/catalog-reader.js";
import type { CatalogTransactions, RawTx, WriteOutcome } from "../storage/catalog/catalog-transactions.js";
import { healthCounts, type HealthCounts } from "../storage/catalog/health-counts.js";
import { listingEvent } from "../storage/listing/listing-status.js";
import type { ListingEventDraft } from "../storage/listing-types.js";
import {
  insertMissingHealthRowsSql,
  onlySummaryMoves,
  publishHealthSql,
  publishSummariesSql,
  updateHealthRowsSql,
  upsertHealthDaysSql,
  type PublishedHealth,
} from "./health-batch-sql.js";
import { healthColumns, healthStateOf, jsonOf, num, standsInForRound, withProbe } from "./health-rows.js";

/** A listing leased for a probe: what to probe and its health so far. */
export interface ClaimedListing {
  listingId: string;
  resource: string;
  method: "GET" | "POST";
  priceAtomic: string;
  sellerPayTo: string;
  health: HealthState;
  /** What the catalog shows now, to publish only a change. */
  published: { status: string; summary: unknown };
}

export interface ProbedListing {
  claimed: ClaimedListing;
  outcome: ProbeOutcome;
  at: Date;
}

export interface HealthDaySummary {
  day: string;
  probes: number;
  successes: number;
  uptime: number;
  p50LatencyMs?: number;
}

export type { HealthCounts };

/**
 * How a probe counts toward the health rules: `always` (a round's, an owner's update), `afresh` (the
 * listing-time sample: health starts over from it), `when_due` (a refresh anyone may ask for: it
 * stands in for the round only when the listing is due and no round holds it; otherwise it is a
 * sample only (applySampleOnly), shown in lastProbes but kept out of the uptimes and latency, that
 * moves no consecutive count). So only the scheduled rule's probes (a round's, or a refresh standing
 * in for one, at most one per interval) make a listing's published uptimes, whoever sends refreshes.
 */
export type ProbeCounts = "always" | "afresh" | "when_due";

/** A probe result to record. */
interface ProbeToRecord {
  listingId: string;
  outcome: ProbeOutcome;
  at: Date;
  counts: ProbeCounts;
}

interface ScheduleOptions {
  rules: HealthRules;
  /** Until the next probe of a listing that passed and is healthy (the budget may stretch it). */
  intervalMs: number;
  /** Until the next probe of a listing whose probe failed or that is not healthy (default intervalMs). */
  recheckMs?: number;
}

const ids = (list: string[]) => Prisma.join(list);

const NO_DAYS: DayTotals = { probes7d: 0, successes7d: 0, probes30d: 0, successes30d: 0 };

/** The listing columns a health change's event carries (its status after the change). */
const EVENT_COLUMNS = Prisma.sql`l."sellerPayTo", l."state", l."leftoverSeed", l."expiresAt", l."delistedAt", l."ownerVerified"`;

/**
 * The event of a published health change: listing.drifted when the seller's 402 stopped matching,
 * listing.health_changed for any other change of status. Seed rows and rows that are not live record none.
 */
function healthEvent(row: SqlRow, change: PublishedHealth, now: Date): ListingEventDraft[] {
  const from = String(row.healthStatus);
  if (change.status === from || Boolean(Number(row.leftoverSeed)) || row.state !== "active") return [];
  const summary = JSON.parse(change.summary) as { failureCode?: string; lastCheckedAt?: string };
  const listing = {
    id: change.listingId,
    sellerPayTo: String(row.sellerPayTo),
    state: String(row.state),
    expiresAt: toDate(row.expiresAt),
    delistedAt: toDateOrNull(row.delistedAt),
    ownerVerified: Boolean(Number(row.ownerVerified)),
    healthStatus: change.status,
    healthSummary: summary,
  };
  const type = change.status === "drifted" ? "listing.drifted" : "listing.health_changed";
  return [
    listingEvent(listing, type, now, {
      from,
      to: change.status,
      ...(summary.failureCode && { failureCode: summary.failureCode }),
      checkedAt: summary.lastCheckedAt ?? null,
    }),
  ];
}

/** Listings, and indexed rows: an indexed row is shown only once a probe confirmed its 402 (issue 28). */
const PROBED_STATES = Prisma.join(["active", "indexing", "indexed"]);

export class HealthStore {
  constructor(private readonly transactions: CatalogTransactions) {}

  private get db() {
    return this.transactions.db;
  }

  private raw<T = SqlRow>(sql: Prisma.Sql): Promise<T[]> {
    return this.db.exclusive(() => this.db.prisma.$queryRaw<T[]>(sql));
  }

  private execute(sql: Prisma.Sql): Promise<number> {
    return this.db.exclusive(() => this.db.prisma.$executeRaw(sql));
  }

  /** Gives every live listing without a health row one, due now (new seed rows, listings activated by the reconciler). */
  schedule(now: Date): Promise<number> {
    return this
      .execute(Prisma.sql`INSERT INTO "ListingHealth" ("listingId", "nextProbeAt", "consecutiveFailures", "consecutiveSuccesses")
      SELECT l."id", ${now}, 0, 0 FROM "Listing" l
      WHERE l."state" IN (${PROBED_STATES}) AND l."expiresAt" > ${now} AND NOT EXISTS (SELECT 1 FROM "ListingHealth" h WHERE h."listingId" = l."id")
      ON CONFLICT ("listingId") DO NOTHING`);
  }

  /** How many listings have a re-probe schedule (live ones, and those gone less than a day). */
  async scheduledCount(): Promise<number> {
    const [row] = await this.raw<{ count: unknown }>(Prisma.sql`SELECT COUNT(*) AS "count" FROM "ListingHealth"`);
    return num(row?.count);
  }

  /**
   * Leases up to `limit` listings due by `dueBy` (default now) to `holder` until now + leaseMs,
   * oldest due first; among those due at once, in id order: ids are random, so a batch mixes hosts
   * instead of taking one host's listings together (which its politeness gap would serialise).
   */
  async claim(holder: string, now: Date, leaseMs: number, limit: number, dueBy: Date = now): Promise<ClaimedListing[]> {
    const until = new Date(now.getTime() + leaseMs);
    // The listing test is a lookup per row, not a join: the plan then walks the (nextProbeAt, listingId)
    // index and stops at `limit` (0.5 ms at 100k) instead of sorting every due listing (200 ms a batch).
    const due = Prisma.sql`SELECT h."listingId" FROM "ListingHealth" h
      WHERE h."nextProbeAt" <= ${dueBy} AND (h."leaseUntil" IS NULL OR h."leaseUntil" <= ${now})
        AND EXISTS (SELECT 1 FROM "Listing" l WHERE l."id" = h."listingId" AND l."state" IN (${PROBED_STATES}) AND l."expiresAt" > ${now})
      ORDER BY h."nextProbeAt", h."listingId" LIMIT ${limit}`;
    const claimed =
      this.db.kind === "postgres"
        ? await this.raw<{
            listingId: string;
          }>(Prisma.sql`UPDATE "ListingHealth" SET "leasedBy" = ${holder}, "leaseUntil" = ${until}
            WHERE "listingId" IN (${due} FOR UPDATE OF h SKIP LOCKED) RETURNING "listingId"`)
        : await this.raw<{
            listingId: string;
          }>(Prisma.sql`UPDATE "ListingHealth" SET "leasedBy" = ${holder}, "leaseUntil" = ${until}
            WHERE "listingId" IN (${due}) RETURNING "listingId"`);
    if (claimed.length === 0) return [];
    const rows = await this
      .raw(Prisma.sql`SELECT h.*, l."resource", l."method", l."priceAtomic", l."sellerPayTo", l."healthStatus", l."healthSummary"
      FROM "ListingHealth" h JOIN "Listing" l ON l."id" = h."listingId" WHERE h."listingId" IN (${ids(claimed.map((row) => row.listingId))})`);
    return rows.map((row) => ({
      listingId: String(row.listingId),
      resource: String(row.resource),
      method: row.method as ClaimedListing["method"],
      priceAtomic: String(row.priceAtomic),
      sellerPayTo: String(row.sellerPayTo),
      health: healthStateOf(row),
      published: { status: String(row.healthStatus), summary: jsonOf(row.healthSummary) },
    }));
  }

  /** Gives leases back unprobed (a stop in the middle of a batch): another round takes them at once. */
  async release(holder: string, listingIds: string[]): Promise<void> {
    if (listingIds.length === 0) return;
    await this.execute(Prisma.sql`UPDATE "ListingHealth" SET "leasedBy" = NULL, "leaseUntil" = NULL
      WHERE "leasedBy" = ${holder} AND "listingId" IN (${ids(listingIds)})`);
  }

  /**
   * Records a batch of probes: each listing's health row (ending `holder`'s lease on it), its day, and
   * what the catalog shows, in one transaction with one version bump when anything shown changed.
   * Returns how many listings' published health changed.
   */
  record(holder: string, probed: ProbedListing[], now: Date, options: ScheduleOptions): Promise<number> {
    return this.write(
      holder,
      probed.map(({ claimed, outcome, at }) => ({
        listingId: claimed.listingId,
        outcome,
        at,
        counts: "always" as const,
      })),
      now,
      options,
    );
  }

  /**
   * One probe outside the rounds, applied at once: a batch of one, without a lease. `fresh`: the probe
   * that passed when the listing was paid for (or renewed with new terms) is its first sample: healthy,
   * any earlier failure or drift over, the next re-probe one interval later. Otherwise (an owner's
   * update) the probe counts like a round's: a pass after failures needs its successes in a row as
   * ever. `counts` "when_due" (a free refresh): see ProbeCounts.
   */
  async recordProbe(
    listingId: string,
    outcome: ProbeOutcome,
    now: Date,
    options: ScheduleOptions & { fresh: boolean; counts?: ProbeCounts },
  ): Promise<void> {
    await this.write(
      null,
      [{ listingId, outcome, at: now, counts: options.fresh ? "afresh" : (options.counts ?? "always") }],
      now,
      options,
    );
  }

  /**
   * The one write path of probe results. Each probe is applied to its listing's health row as it
   * stands in the transaction, whoever holds the row's lease now: a batch that outlived its lease (the
   * row re-claimed by another instance) still records the probes its sellers received, and neither
   * write overwrites the other's (catalog writes are serialised by CatalogTransactions). A write ends
   * only `holder`'s own lease; `holder` null (a probe outside the rounds) gives a listing without a
   * health row one first.
   */
  private write(holder: string | null, probes: ProbeToRecord[], now: Date, options: ScheduleOptions): Promise<number> {
    if (probes.length === 0) return Promise.resolve(0);
    return this.transactions.write(now, (tx) => this.applyProbes(tx, holder, probes, now, options));
  }

  /**
   * The listing-time sample (see recordProbe's `fresh`) inside a catalog write already open: the
   * activation's, so a paid listing and its first sample commit together, under one lock and one
   * version bump. Returns what the catalog write must know: whether anything shown changed, and the
   * events to record after the activation's own.
   */
  recordListingSampleWithin(
    tx: RawTx,
    listingId: string,
    latencyMs: number,
    now: Date,
    options: ScheduleOptions,
  ): Promise<WriteOutcome<number>> {
    return this.applyProbes(
      tx,
      null,
      [{ listingId, outcome: { ok: true, latencyMs }, at: now, counts: "afresh" }],
      now,
      options,
    );
  }

  private async applyProbes(
    tx: RawTx,
    holder: string | null,
    probes: ProbeToRecord[],
    now: Date,
    options: ScheduleOptions,
  ): Promise<WriteOutcome<number>> {
    const kind = this.db.kind;
    const listingIds = probes.map((probe) => probe.listingId);
    if (holder === null) await tx.$executeRaw(insertMissingHealthRowsSql(listingIds, now));
    const rows = await tx.$queryRaw<
      SqlRow[]
    >(Prisma.sql`SELECT h.*, l."healthStatus", l."healthSummary", l."uptime7d", ${EVENT_COLUMNS}
      FROM "ListingHealth" h JOIN "Listing" l ON l."id" = h."listingId" WHERE h."listingId" IN (${ids(listingIds)})`);
    const current = new Map(rows.map((row) => [String(row.listingId), row]));
    const mine = probes.filter((probe) => current.has(probe.listingId));
    if (mine.length === 0) return { result: 0, changed: false };
    const { totals, today } = await dayContext(
      tx,
      mine.map((probe) => probe.listingId),
      now,
    );
    // A round's probes (a lease holder) may hold back a move of lastCheckedAt alone; others publish it.
    const checkedAtRefreshMs = holder !== null ? HEALTH_CHECKED_AT_REFRESH_MS : undefined;
    const results = mine.map(({ listingId, outcome, at, counts }) => {
      const row = current.get(listingId)!;
      const stored = healthStateOf(row);
      const counted = counts !== "when_due" || standsInForRound(row, at);
      const state = counted
        ? applyProbe(
            counts === "afresh" ? { ...NEW_HEALTH, recentProbes: stored.recentProbes } : stored,
            outcome,
            at,
            options.rules,
          )
        : applySampleOnly(stored, outcome, at, options.rules);
      // A sample-only refresh enters no day (the 7- and 30-day uptimes) and no latency histogram.
      const dayTotals = counted ? withProbe(totals.get(listingId), outcome.ok) : (totals.get(listingId) ?? NO_DAYS);
      const summary = healthSummary(state, dayTotals, now);
      const histogram = outcome.ok
        ? addLatency(histogramOf(today.get(listingId)), outcome.latencyMs)
        : histogramOf(today.get(listingId));
      const shown = { status: String(row.healthStatus), summary: jsonOf(row.healthSummary) };
      return {
        row: {
          listingId,
          ...healthColumns(state),
          recentProbes: JSON.stringify(state.recentProbes),
          nextProbeAt: counted
            ? nextProbeAt(
                at,
                outcome.ok && state.status === "healthy"
                  ? options.intervalMs
                  : (options.recheckMs ?? options.intervalMs),
              )
            : toDate(row.nextProbeAt),
        },
        day: counted
          ? {
              listingId,
              day: utcDay(at),
              probes: 1,
              successes: outcome.ok ? 1 : 0,
              latencyHistogram: JSON.stringify(histogram),
            }
          : null,
        publish: publishesHealth(shown, { status: state.status, summary }, checkedAtRefreshMs)
          ? { listingId, status: state.status, summary: JSON.stringify(summary), uptime7d: summary.uptime7d ?? 0 }
          : null,
      };
    });
    await tx.$executeRaw(
      updateHealthRowsSql(
        kind,
        holder,
        results.map((result) => result.row),
      ),
    );
    const days = results.flatMap((result) => (result.day ? [result.day] : []));
    if (days.length > 0) await tx.$executeRaw(upsertHealthDaysSql(kind, days));
    const changes = results.flatMap((result) => (result.publish ? [result.publish] : []));
    const summaryOnly = (change: PublishedHealth) => onlySummaryMoves(current.get(change.listingId)!, change);
    const [summariesOnly, statusChanges] = [
      changes.filter(summaryOnly),
      changes.filter((change) => !summaryOnly(change)),
    ];
    const published =
      (summariesOnly.length > 0 ? await tx.$executeRaw(publishSummariesSql(kind, summariesOnly)) : 0) +
      (statusChanges.length > 0 ? await tx.$executeRaw(publishHealthSql(kind, statusChanges, now)) : 0);
    const events = changes.flatMap((change) => healthEvent(current.get(change.listingId)!, change, now));
    return { result: published, changed: published > 0, events };
  }

  /** Drops health days older than the history shown, and health rows of listings gone for a day. */
  async prune(now: Date): Promise<void> {
    const oldest = new Date(utcDay(now).getTime() - HEALTH_DAYS_KEPT * DAY_MS);
    await this.execute(Prisma.sql`DELETE FROM "HealthDay" WHERE "day" < ${oldest}`);
    await this.execute(Prisma.sql`DELETE FROM "ListingHealth" WHERE "listingId" IN (SELECT "id" FROM "Listing"
      WHERE "state" NOT IN (${PROBED_STATES}) OR "expiresAt" < ${new Date(now.getTime() - DAY_MS)})`);
  }

  /**
   * A listing document's health: daily uptime over the last 30 days (oldest first) and the recent
   * probes (newest first). `quietUntil`: until when no round can record a probe of the listing (its
   * next due time), null when a round may hold it now or it has no schedule. A round's probe that
   * moves only lastCheckedAt writes no catalog version (see publishesHealth), so a rendered
   * document showing these probes is current only while the catalog stays as it is and until then.
   */
  async history(
    listingId: string,
    now: Date,
  ): Promise<{ healthHistory: HealthDaySummary[]; lastProbes: ProbeSample[]; quietUntil: Date | null }> {
    const since = new Date(utcDay(now).getTime() - 29 * DAY_MS);
    const [days, health] = await Promise.all([
      this.raw(
        Prisma.sql`SELECT "day", "probes", "successes", "latencyHistogram" FROM "HealthDay" WHERE "listingId" = ${listingId} AND "day" >= ${since} ORDER BY "day"`,
      ),
      this.raw(
        Prisma.sql`SELECT "recentProbes", "nextProbeAt", "leaseUntil" FROM "ListingHealth" WHERE "listingId" = ${listingId}`,
      ),
    ]);
    const healthHistory = days
      .filter((day) => num(day.probes) > 0)
      .map((day) => {
        const p50 = histogramMedianMs(histogramOf(jsonOf(day.latencyHistogram)));
        return {
          day: toDate(day.day).toISOString().slice(0, 10),
          probes: num(day.probes),
          successes: num(day.successes),
          uptime: Math.round((num(day.successes) / num(day.probes)) * 10_000) / 10_000,
          ...(p50 !== undefined && { p50LatencyMs: p50 }),
        };
      });
    const row = health[0];
    const nextDue = row ? toDate(row.nextProbeAt) : null;
    const quietUntil = row && row.leaseUntil === null && nextDue!.getTime() > now.getTime() ? nextDue : null;
    return { healthHistory, lastProbes: recentProbesOf(jsonOf(row?.recentProbes)).map(shownProbe), quietUntil };
  }

  /** Live third-party listings by health status (the status document), once per catalog state (`token`, the catalog's freshness). */
  counts(now: Date, token?: string): Promise<HealthCounts> {
    return healthCounts(this.transactions, now, token);
  }
}

/** Each listing's probes over 7 and 30 days before this probe, and today's latency histogram. */
async function dayContext(
  tx: RawTx,
  listingIds: string[],
  now: Date,
): Promise<{ totals: Map<string, DayTotals>; today: Map<string, unknown> }> {
  const today = utcDay(now);
  const since7 = new Date(today.getTime() - 6 * DAY_MS);
  const since30 = new Date(today.getTime() - 29 * DAY_MS);
  const rows = await tx.$queryRaw<
    SqlRow[]
  >(Prisma.sql`SELECT "listingId", "day", "probes", "successes", "latencyHistogram" FROM "HealthDay"
    WHERE "listingId" IN (${ids(listingIds)}) AND "day" >= ${since30}`);
  const totals = new Map<string, DayTotals>();
  const todays = new Map<string, unknown>();
  for (const row of rows) {
    const id = String(row.listingId);
    const day = toDate(row.day).getTime();
    const sum = totals.get(id) ?? { probes7d: 0, successes7d: 0, probes30d: 0, successes30d: 0 };
    sum.probes30d += num(row.probes);
    sum.successes30d += num(row.successes);
    if (day >= since7.getTime()) {
      sum.probes7d += num(row.probes);
      sum.successes7d += num(row.successes);
    }
    totals.set(id, sum);
    if (day === today.getTime()) todays.set(id, jsonOf(row.latencyHistogram));
  }
  return { totals, today: todays };
}
