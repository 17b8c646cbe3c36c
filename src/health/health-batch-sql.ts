// A batch of health results written as three statements (one per table) instead of three per
// listing: in the bench a round of 10,000 probes cost the service's one thread about 30,000 Prisma
// statements, and catalog reads waited behind them. Both databases take the same SQL (a VALUES list
// in a CTE, UPDATE ... FROM, INSERT ... ON CONFLICT); PostgreSQL needs each value's type named.
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { DatabaseKind } from "../storage/connection.js";

export interface HealthRowUpdate {
  listingId: string;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  lastCode: string | null;
  lastCheckedAt: Date | null;
  lastHealthyAt: Date | null;
  lastLatencyMs: number | null;
  recentProbes: string;
  nextProbeAt: Date;
}

export interface HealthDayIncrement {
  listingId: string;
  day: Date;
  probes: number;
  successes: number;
  latencyHistogram: string;
}

export interface PublishedHealth {
  listingId: string;
  status: string;
  summary: string;
  /** The summary's uptime7d (0 when none is measured yet): the `sort=uptime` column. */
  uptime7d: number;
}

type Sql = ReturnType<typeof Prisma.sql>;

/** A value, typed for PostgreSQL (a VALUES list has no column types to infer from). */
function typed(
  kind: DatabaseKind,
  value: unknown,
  type: "uuid" | "integer" | "double precision" | "text" | "timestamp(3)" | "jsonb",
): Sql {
  return kind === "postgres" ? Prisma.sql`CAST(${value} AS ${Prisma.raw(type)})` : Prisma.sql`${value}`;
}

const rowsOf = (rows: Sql[][]) => Prisma.join(rows.map((cells) => Prisma.sql`(${Prisma.join(cells)})`));

/** Gives each listing that has no health row one (a probe outside the rounds may come first). */
export function insertMissingHealthRowsSql(listingIds: string[], now: Date): Sql {
  return Prisma.sql`INSERT INTO "ListingHealth" ("listingId", "nextProbeAt", "consecutiveFailures", "consecutiveSuccesses")
    SELECT l."id", ${now}, 0, 0 FROM "Listing" l WHERE l."id" IN (${Prisma.join(listingIds)})
    ON CONFLICT ("listingId") DO NOTHING`;
}

/** Updates each listing's health row, ending `holder`'s lease on it (a lease someone else holds stays). */
export function updateHealthRowsSql(kind: DatabaseKind, holder: string | null, rows: HealthRowUpdate[]): Sql {
  const values = rowsOf(
    rows.map((row) => [
      typed(kind, row.listingId, "uuid"),
      typed(kind, row.consecutiveFailures, "integer"),
      typed(kind, row.consecutiveSuccesses, "integer"),
      typed(kind, row.lastCode, "text"),
      typed(kind, row.lastCheckedAt, "timestamp(3)"),
      typed(kind, row.lastHealthyAt, "timestamp(3)"),
      typed(kind, row.lastLatencyMs, "integer"),
      typed(kind, row.recentProbes, "jsonb"),
      typed(kind, row.nextProbeAt, "timestamp(3)"),
    ]),
  );
  return Prisma.sql`WITH v ("listingId", "consecutiveFailures", "consecutiveSuccesses", "lastCode", "lastCheckedAt", "lastHealthyAt", "lastLatencyMs", "recentProbes", "nextProbeAt") AS (VALUES ${values})
    UPDATE "ListingHealth" SET "consecutiveFailures" = v."consecutiveFailures", "consecutiveSuccesses" = v."consecutiveSuccesses", "lastCode" = v."lastCode",
      "lastCheckedAt" = v."lastCheckedAt", "lastHealthyAt" = v."lastHealthyAt", "lastLatencyMs" = v."lastLatencyMs", "recentProbes" = v."recentProbes",
      "nextProbeAt" = v."nextProbeAt",
      "leaseUntil" = CASE WHEN "ListingHealth"."leasedBy" = ${holder} THEN NULL ELSE "ListingHealth"."leaseUntil" END,
      "leasedBy" = CASE WHEN "ListingHealth"."leasedBy" = ${holder} THEN NULL ELSE "ListingHealth"."leasedBy" END
    FROM v WHERE "ListingHealth"."listingId" = v."listingId"`;
}

/** Adds each listing's probe to its day (the histogram given is the day's whole, merged beforehand). */
export function upsertHealthDaysSql(kind: DatabaseKind, rows: HealthDayIncrement[]): Sql {
  const values = rowsOf(
    rows.map((row) => [
      typed(kind, row.listingId, "uuid"),
      typed(kind, row.day, "timestamp(3)"),
      typed(kind, row.probes, "integer"),
      typed(kind, row.successes, "integer"),
      typed(kind, row.latencyHistogram, "jsonb"),
    ]),
  );
  return Prisma.sql`INSERT INTO "HealthDay" ("listingId", "day", "probes", "successes", "latencyHistogram") VALUES ${values}
    ON CONFLICT ("listingId", "day") DO UPDATE SET "probes" = "HealthDay"."probes" + excluded."probes",
      "successes" = "HealthDay"."successes" + excluded."successes", "latencyHistogram" = excluded."latencyHistogram"`;
}

/**
 * Whether a published change leaves every indexed column of the listing (`row`, as it stands) as it
 * is: the same status and 7-day uptime, and no indexing row that this healthy status would confirm.
 */
export function onlySummaryMoves(row: Record<string, unknown>, change: PublishedHealth): boolean {
  const confirms = row.state === "indexing" && change.status === "healthy";
  return !confirms && change.status === String(row.healthStatus) && change.uptime7d === Number(row.uptime7d ?? 0);
}

/**
 * Publishes a new summary of listings whose status, 7-day uptime and state stay as they are (most
 * probes: only lastCheckedAt and the uptimes' digits move). It sets no indexed column, so SQLite and
 * PostgreSQL rewrite none of the listing's sort indexes (seven of them carry healthStatus or state),
 * which publishHealthSql's full write costs every probe.
 */
export function publishSummariesSql(kind: DatabaseKind, rows: PublishedHealth[]): Sql {
  const values = rowsOf(rows.map((row) => [typed(kind, row.listingId, "uuid"), typed(kind, row.summary, "jsonb")]));
  if (kind === "sqlite")
    return Prisma.sql`WITH v ("id", "healthSummary") AS (VALUES ${values})
      UPDATE "Listing" SET "healthSummary" = (SELECT v."healthSummary" FROM v WHERE v."id" = "Listing"."id")
      WHERE "Listing"."id" IN (SELECT "id" FROM v) AND "Listing"."state" IN ('active', 'indexing', 'indexed')`;
  return Prisma.sql`WITH v ("id", "healthSummary") AS (VALUES ${values})
    UPDATE "Listing" SET "healthSummary" = v."healthSummary"
    FROM v WHERE "Listing"."id" = v."id" AND "Listing"."state" IN ('active', 'indexing', 'indexed')`;
}

/**
 * Publishes health to the catalog's columns, the summary's 7-day uptime beside it (raw, so the listing's updatedAt, its terms' time, stays).
 * An indexed row our probe finds healthy for the first time is confirmed: "indexing" becomes "indexed"
 * (its updatedAt too, so the search index, which follows updatedAt, takes it in).
 */
export function publishHealthSql(kind: DatabaseKind, rows: PublishedHealth[], now: Date): Sql {
  const values = rowsOf(
    rows.map((row) => [
      typed(kind, row.listingId, "uuid"),
      typed(kind, row.status, "text"),
      typed(kind, row.summary, "jsonb"),
      typed(kind, row.uptime7d, "double precision"),
    ]),
  );
  if (kind === "sqlite") {
    // SQLite plans UPDATE ... FROM v with a Bloom filter over every listing (50 ms a batch of 200 at
    // 100k); a lookup of v per updated row touches only the rows named (about 20 ms, most of it the
    // sort indexes that carry healthStatus and uptime7d).
    return Prisma.sql`WITH v ("id", "healthStatus", "healthSummary", "uptime7d") AS (VALUES ${values})
      UPDATE "Listing" SET ("healthStatus", "healthSummary", "uptime7d", "state", "updatedAt") = (SELECT v."healthStatus", v."healthSummary", v."uptime7d",
          CASE WHEN "Listing"."state" = 'indexing' AND v."healthStatus" = 'healthy' THEN 'indexed' ELSE "Listing"."state" END,
          CASE WHEN "Listing"."state" = 'indexing' AND v."healthStatus" = 'healthy' THEN ${now} ELSE "Listing"."updatedAt" END
        FROM v WHERE v."id" = "Listing"."id")
      WHERE "Listing"."id" IN (SELECT "id" FROM v) AND "Listing"."state" IN ('active', 'indexing', 'indexed')`;
  }
  return Prisma.sql`WITH v ("id", "healthStatus", "healthSummary", "uptime7d") AS (VALUES ${values})
    UPDATE "Listing" SET "healthStatus" = v."healthStatus", "healthSummary" = v."healthSummary", "uptime7d" = v."uptime7d",
      "state" = CASE WHEN "Listing"."state" = 'indexing' AND v."healthStatus" = 'healthy' THEN 'indexed' ELSE "Listing"."state" END,
      "updatedAt" = CASE WHEN "Listing"."state" = 'indexing' AND v."healthStatus" = 'healthy' THEN ${now} ELSE "Listing"."updatedAt" END
    FROM v WHERE "Listing"."id" = v."id" AND "Listing"."state" IN ('active', 'indexing', 'indexed')`;
}
