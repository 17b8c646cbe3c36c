// Catalog reads. Each sees only rows with state "active" and expiresAt > now.
import { Prisma, type PrismaClient } from "../../generated/prisma/sqlite/client.js";
import type { DatabaseKind } from "./connection.js";
import { buildSearchSql, type SearchFilter } from "./listing-search.js";
import type { CatalogStamp, Listing, Page } from "./listing-types.js";

export interface PageQuery {
  includeSeed: boolean;
  limit: number;
  offset: number;
  now: Date;
}

export interface SearchQuery extends SearchFilter {
  /** Always "exact" for our rows: any other scheme matches nothing. */
  scheme?: string | undefined;
  limit: number;
  offset: number;
}

export interface FeedQuery {
  /** Exclusive lower bound on listedAt. */
  since?: Date | undefined;
  limit: number;
  now: Date;
}

export const EPOCH = new Date(0);
const NEWEST_FIRST: Prisma.ListingOrderByWithRelationInput[] = [{ listedAt: "desc" }, { id: "desc" }];

export function visibleWhere(now: Date, includeSeed: boolean): Prisma.ListingWhereInput {
  return { state: "active", expiresAt: { gt: now }, ...(includeSeed ? {} : { leftoverSeed: false }) };
}

/** Raw results differ per driver: Date or ISO string, number or bigint. */
const toDate = (value: unknown): Date | null => (value === null || value === undefined ? null : new Date(value as string | Date));

export async function readPage(prisma: PrismaClient, q: PageQuery): Promise<Page<Listing>> {
  const where = visibleWhere(q.now, q.includeSeed);
  const rows = await prisma.listing.findMany({ where, orderBy: NEWEST_FIRST, take: q.limit, skip: q.offset });
  return { rows, total: await prisma.listing.count({ where }) };
}

export async function readSearch(prisma: PrismaClient, kind: DatabaseKind, q: SearchQuery): Promise<Page<Listing>> {
  if (q.scheme !== undefined && q.scheme !== "exact") return { rows: [], total: 0 };
  const sql = buildSearchSql(kind, q);
  const page = await prisma.$queryRaw<{ id: string; total: number | bigint }[]>(sql.page(q.limit, q.offset));
  const total = page[0] ? Number(page[0].total) : q.offset === 0 ? 0 : Number((await prisma.$queryRaw<{ total: number | bigint }[]>(sql.count))[0]?.total ?? 0);
  if (page.length === 0) return { rows: [], total };
  const byId = new Map((await prisma.listing.findMany({ where: { id: { in: page.map((r) => r.id) } } })).map((l) => [l.id, l]));
  return { rows: page.flatMap((r) => byId.get(r.id) ?? []), total };
}

export async function readFeed(prisma: PrismaClient, q: FeedQuery): Promise<Listing[]> {
  if (!q.since) return prisma.listing.findMany({ where: visibleWhere(q.now, false), orderBy: NEWEST_FIRST, take: q.limit });
  const oldestFirst = await prisma.listing.findMany({
    where: { ...visibleWhere(q.now, false), listedAt: { gt: q.since } },
    orderBy: [{ listedAt: "asc" }, { id: "asc" }],
    take: q.limit,
  });
  return oldestFirst.reverse();
}

export async function readCounts(prisma: PrismaClient, now: Date): Promise<{ foreign: number; seed: number; rawAll: number }> {
  return {
    foreign: await prisma.listing.count({ where: visibleWhere(now, false) }),
    seed: await prisma.listing.count({ where: { ...visibleWhere(now, true), leftoverSeed: true } }),
    rawAll: await prisma.listing.count(),
  };
}

/**
 * Version, change time and next expiry in one statement. Each MIN is one seek on the
 * (state, leftoverSeed, expiresAt) index; one MIN over both leftoverSeed values could
 * not use the index order.
 */
export function catalogStampSql(now: Date): Prisma.Sql {
  const nextExpiry = (seed: boolean) =>
    Prisma.sql`(SELECT MIN("expiresAt") FROM "Listing" WHERE "state" = 'active' AND "leftoverSeed" = ${seed} AND "expiresAt" > ${now})`;
  return Prisma.sql`SELECT
    (SELECT "version" FROM "CatalogState" WHERE "id" = 1) AS "version",
    (SELECT "changedAt" FROM "CatalogState" WHERE "id" = 1) AS "changedAt",
    ${nextExpiry(false)} AS "foreignNext",
    ${nextExpiry(true)} AS "seedNext"`;
}

export async function readCatalogStamp(prisma: PrismaClient, now: Date): Promise<CatalogStamp> {
  const [row] = await prisma.$queryRaw<{ version: unknown; changedAt: unknown; foreignNext: unknown; seedNext: unknown }[]>(catalogStampSql(now));
  const next = [toDate(row?.foreignNext), toDate(row?.seedNext)].filter((d): d is Date => d !== null);
  return {
    version: Number(row?.version ?? 0),
    changedAt: toDate(row?.changedAt) ?? EPOCH,
    nextExpiry: next.length ? new Date(Math.min(...next.map((d) => d.getTime()))) : null,
  };
}
