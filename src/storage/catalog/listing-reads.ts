// The catalog stamp, and the shape of the feed read the store offers (catalog-reads.ts runs it).
import type { CatalogSource } from "./catalog-sql.js";
import { Prisma, type PrismaClient } from "../../../generated/prisma/sqlite/client.js";
import { toDateOrNull } from "../catalog-reader.js";
import type { CatalogStamp } from "../listing-types.js";

export interface FeedQuery {
  /** Exclusive lower bound on listedAt. */
  since?: Date | undefined;
  limit: number;
  now: Date;
  /** Only this health status; absent or `any` keeps all. */
  health?: "any" | "healthy" | "unhealthy" | "drifted" | undefined;
  /** Paid listings (absent or `listed`), indexed rows, or both. */
  source?: CatalogSource | undefined;
}

export const EPOCH = new Date(0);

/** Raw results differ per driver: Date or ISO string, number or bigint. */

/**
 * Version, change time and next expiry in one statement. Each MIN is one seek on the
 * (state, leftoverSeed, expiresAt) index; one MIN over both leftoverSeed values could
 * not use the index order.
 */
export function catalogStampSql(now: Date): Prisma.Sql {
  const nextExpiry = (seed: boolean, state = "active") =>
    Prisma.sql`(SELECT MIN("expiresAt") FROM "Listing" WHERE "state" = ${state} AND "leftoverSeed" = ${seed} AND "expiresAt" > ${now})`;
  return Prisma.sql`SELECT
    (SELECT "version" FROM "CatalogState" WHERE "id" = 1) AS "version",
    (SELECT "changedAt" FROM "CatalogState" WHERE "id" = 1) AS "changedAt",
    ${nextExpiry(false)} AS "foreignNext",
    ${nextExpiry(true)} AS "seedNext",
    ${nextExpiry(false, "indexed")} AS "indexedNext"`;
}

export async function readCatalogStamp(prisma: PrismaClient, now: Date): Promise<CatalogStamp> {
  const [row] = await prisma.$queryRaw<
    { version: unknown; changedAt: unknown; foreignNext: unknown; seedNext: unknown; indexedNext: unknown }[]
  >(catalogStampSql(now));
  const next = [toDateOrNull(row?.foreignNext), toDateOrNull(row?.seedNext), toDateOrNull(row?.indexedNext)].filter(
    (d): d is Date => d !== null,
  );
  return {
    version: Number(row?.version ?? 0),
    changedAt: toDateOrNull(row?.changedAt) ?? EPOCH,
    nextExpiry: next.length ? new Date(Math.min(...next.map((d) => d.getTime()))) : null,
  };
}
