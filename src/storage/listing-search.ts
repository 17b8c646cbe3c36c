// Search SQL for both providers. Case-insensitive substring match over description,
// resource and sellerPayTo, ranked description > resource > sellerPayTo, then newest.
//   SQLite: FTS5 trigram table "ListingSearch" (see search-index.ts).
//   PostgreSQL: ILIKE, served by the three GIN gin_trgm_ops indexes (BitmapOr).
// Queries shorter than 3 characters have no trigram to look up: SQLite then falls
// back to LIKE over the active rows (a scan, bounded by the state index), and
// PostgreSQL's planner does the same with the unchanged ILIKE. Short queries are rare
// and the catalog is small, so that is accepted.
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { DatabaseKind } from "./connection.js";

export interface SearchFilter {
  query?: string | undefined;
  includeSeed: boolean;
  /** Seller address; compared case-insensitively. */
  payTo?: string | undefined;
  network?: string | undefined;
  now: Date;
}

const MIN_TRIGRAM_CHARS = 3;

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** An FTS5 phrase: the whole query as one quoted string, so no FTS syntax leaks in. */
function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

export function buildSearchSql(kind: DatabaseKind, filter: SearchFilter): { count: Prisma.Sql; page: (limit: number, offset: number) => Prisma.Sql } {
  const text = filter.query?.trim() ?? "";
  const like = kind === "sqlite" ? Prisma.raw("LIKE") : Prisma.raw("ILIKE");
  const escape = Prisma.raw(`ESCAPE '\\'`);
  const conditions: Prisma.Sql[] = [Prisma.sql`l."state" = 'active'`, Prisma.sql`l."expiresAt" > ${filter.now}`];
  if (!filter.includeSeed) conditions.push(Prisma.sql`l."leftoverSeed" = ${false}`);
  if (filter.payTo) conditions.push(Prisma.sql`lower(l."sellerPayTo") = ${filter.payTo.toLowerCase()}`);
  if (filter.network) conditions.push(Prisma.sql`l."network" = ${filter.network}`);

  let from = Prisma.sql`"Listing" l`;
  let rank = Prisma.empty;
  if (text !== "") {
    const pattern = likePattern(text);
    if (kind === "sqlite" && [...text].length >= MIN_TRIGRAM_CHARS) {
      // CROSS JOIN pins the join order in SQLite: the FTS match drives and each hit is one rowid
      // lookup. With a plain JOIN the planner may loop over every active listing and probe the FTS
      // table per row instead (measured: 100-270 ms at 1,000 rows, against 1 ms).
      from = Prisma.sql`"ListingSearch" s CROSS JOIN "Listing" l ON l.rowid = s.rowid`;
      conditions.push(Prisma.sql`"ListingSearch" MATCH ${ftsPhrase(text)}`);
    } else {
      conditions.push(
        Prisma.sql`(l."description" ${like} ${pattern} ${escape} OR l."resource" ${like} ${pattern} ${escape} OR l."sellerPayTo" ${like} ${pattern} ${escape})`,
      );
    }
    rank = Prisma.sql`CASE WHEN l."description" ${like} ${pattern} ${escape} THEN 0 WHEN l."resource" ${like} ${pattern} ${escape} THEN 1 ELSE 2 END,`;
  }
  const where = Prisma.join(conditions, " AND ");
  return {
    count: Prisma.sql`SELECT COUNT(*) AS "total" FROM ${from} WHERE ${where}`,
    // The window count rides along with the page, saving a round trip when the page has rows.
    page: (limit, offset) =>
      Prisma.sql`SELECT l."id", COUNT(*) OVER () AS "total" FROM ${from} WHERE ${where}
        ORDER BY ${rank} l."listedAt" DESC, l."id" DESC LIMIT ${limit} OFFSET ${offset}`,
  };
}
