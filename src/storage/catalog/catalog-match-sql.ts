// The SQL of the catalog's search, for both databases: a match is a visible row (catalog-sql.ts
// `visible`) whose searched columns contain the text; trigram indexes (SQLite's FTS5 table,
// PostgreSQL's pg_trgm GIN indexes) find the candidates, and the walks of catalog-sql.ts page them.
// test/storage/catalog-plans.test.ts asserts the plans on both.
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import type { DatabaseKind } from "../connection.js";
import { SEARCHED_COLUMNS } from "../search-index.js";
import {
  NEWEST_FIRST,
  atOrAfter,
  indexFor,
  orderOf,
  rowKey,
  selectColumns,
  visible,
  type CatalogView,
  type SeekKey,
} from "./catalog-sql.js";

// Search. A match is a visible row whose description, resource, seller address, service name or
// tags contain the text, case-insensitively. Matches rank in three classes: description, then
// resource, then the rest; newest first within each.
export const MATCH_CLASSES = 3;
export const MIN_TRIGRAM_CHARS = 3;

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The FTS5 query that finds a text's candidates: its non-overlapping trigrams, and the last one, each
 * a quoted string (no FTS syntax leaks in), ANDed. Every row containing the text has them all; the
 * LIKE of each rank class then keeps the rows that contain the text itself. A phrase of all the
 * overlapping trigrams read about three times as many postings (1.4 ms against 0.4 ms for 12 hex
 * characters at 10k listings).
 */
function ftsCandidates(text: string): string {
  const chars = [...text];
  const starts = new Set<number>();
  for (let i = 0; i + 3 <= chars.length; i += 3) starts.add(i);
  starts.add(chars.length - 3);
  return [...starts]
    .map(
      (i) =>
        `"${chars
          .slice(i, i + 3)
          .join("")
          .replaceAll('"', '""')}"`,
    )
    .join(" AND ");
}

function containsText(kind: DatabaseKind, text: string): (column: (typeof SEARCHED_COLUMNS)[number]) => Prisma.Sql {
  const like = Prisma.raw(kind === "sqlite" ? "LIKE" : "ILIKE");
  const pattern = likePattern(text);
  return (column) => Prisma.sql`l."${Prisma.raw(column)}" ${like} ${pattern} ESCAPE '\\'`;
}

function matchPredicates(kind: DatabaseKind, text: string): Prisma.Sql[] {
  const contains = containsText(kind, text);
  const description = contains("description");
  const resource = contains("resource");
  const rest = Prisma.sql`(${contains("sellerPayTo")} OR ${contains("serviceName")} OR ${contains("tags")})`;
  return [
    description,
    Prisma.sql`NOT ${description} AND ${resource}`,
    Prisma.sql`NOT ${description} AND NOT ${resource} AND ${rest}`,
  ];
}

/** Whether a trigram index (SQLite's FTS5 table, PostgreSQL's pg_trgm GIN indexes) can find this text's candidates: it needs three characters. */
export const hasTrigrams = (text: string) => [...text].length >= MIN_TRIGRAM_CHARS;

/**
 * The candidate rows of a search: on SQLite with 3+ characters the FTS5 trigram match drives (CROSS JOIN
 * pins that order: each hit is one rowid lookup); otherwise the visible walk, where PostgreSQL's planner
 * uses the GIN trigram indexes of each column (a BitmapOr) when that is cheaper.
 */
/** The columns whose match puts a row in each rank class. */
const CLASS_COLUMNS: ReadonlyArray<ReadonlyArray<(typeof SEARCHED_COLUMNS)[number]>> = [
  ["description"],
  ["resource"],
  ["sellerPayTo", "serviceName", "tags"],
];

function candidates(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  text: string,
  matchClass?: number,
): { from: Prisma.Sql; where: Prisma.Sql } {
  const columns = matchClass === undefined ? SEARCHED_COLUMNS : CLASS_COLUMNS[matchClass]!;
  if (kind === "sqlite" && hasTrigrams(text)) {
    // A class looks only in its own columns (an FTS5 column filter), so a small class of a common
    // word does not go through every row that has the word elsewhere.
    const query = matchClass === undefined ? ftsCandidates(text) : `{${columns.join(" ")}} : (${ftsCandidates(text)})`;
    return {
      from: Prisma.sql`"ListingSearch" s CROSS JOIN "Listing" l ON l.rowid = s.rowid`,
      where: Prisma.sql`"ListingSearch" MATCH ${query} AND ${visible(view, now)}`,
    };
  }
  // One plain OR of the columns, which PostgreSQL can serve with a BitmapOr of their trigram indexes.
  const anyColumn = Prisma.join(columns.map(containsText(kind, text)), " OR ");
  return {
    from: Prisma.sql`"Listing" l${indexFor(kind, view)}`,
    where: Prisma.sql`${visible(view, now)} AND (${anyColumn})`,
  };
}

/**
 * The first `limit` candidates, each with its rank class (MATCH_CLASSES for a candidate the text is
 * not in after all) and its row: when fewer than `limit` come back, this one query has found every
 * match of the search, and any page of it, in one snapshot. The candidates' rows are read anyway (a
 * bitmap scan rechecks each row, the FTS5 match looks each one up): returning their columns cost less
 * than a second statement for the page's rows (about 0.3 ms of PostgreSQL backend CPU a search at
 * 100k listings, against a ranked statement with the page's rows joined).
 */
export function matchRowsSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  text: string,
  limit: number,
): Prisma.Sql {
  const { from, where } = candidates(kind, view, now, text);
  const [description, resource] = matchPredicates(kind, text);
  const rest = Prisma.join((["sellerPayTo", "serviceName", "tags"] as const).map(containsText(kind, text)), " OR ");
  const matchClass = Prisma.sql`CASE WHEN ${description} THEN 0 WHEN ${resource} THEN 1 WHEN ${rest} THEN 2 ELSE ${MATCH_CLASSES} END`;
  return Prisma.sql`SELECT l.${rowKey(kind)} AS "key", ${selectColumns}, ${matchClass} AS "matchClass" FROM ${from} WHERE ${where} LIMIT ${limit}`;
}

/** The rows of these keys (matchRowsSql's), in no particular order. */
export function rowsByKeySql(kind: DatabaseKind, keys: unknown[]): Prisma.Sql {
  return Prisma.sql`SELECT l.${rowKey(kind)} AS "key", ${selectColumns} FROM "Listing" l WHERE l.${rowKey(kind)} IN (${Prisma.join(keys)})`;
}

/** The number of matches in each class, in one pass over the candidates. */
export function matchCountsSql(kind: DatabaseKind, view: CatalogView, now: Date, text: string): Prisma.Sql {
  const { from, where } = candidates(kind, view, now, text);
  const sums = matchPredicates(kind, text).map(
    (predicate, i) => Prisma.sql`SUM(CASE WHEN ${predicate} THEN 1 ELSE 0 END) AS "c${Prisma.raw(String(i))}"`,
  );
  return Prisma.sql`SELECT ${Prisma.join(sums, ", ")} FROM ${from} WHERE ${where}`;
}

/**
 * `limit` matches of one class from its `skip`-th (past `from`, when walking), newest first. `walk`:
 * follow the visible index newest first and test each row (cheap when the class is a large share of
 * the view); otherwise take the class's candidates from the search index and sort them (cheap when
 * the class is small).
 */
export function matchPageSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  search: { text: string; matchClass: number; walk: boolean; from?: SeekKey | undefined; skip: number; limit: number },
): Prisma.Sql {
  const predicate = matchPredicates(kind, search.text)[search.matchClass]!;
  const { from, where } = search.walk
    ? {
        from: Prisma.sql`"Listing" l${indexFor(kind, view)}`,
        where: Prisma.sql`${visible(view, now)}${atOrAfter(search.from)}`,
      }
    : candidates(kind, view, now, search.text, search.matchClass);
  // Only the keys are sorted (the candidates path sorts every match of the class); the page's rows are fetched after.
  const key = rowKey(kind);
  return Prisma.sql`SELECT ${selectColumns} FROM "Listing" l WHERE l.${key} IN (
      SELECT l.${key} FROM ${from} WHERE ${where} AND (${predicate}) ORDER BY ${NEWEST_FIRST} LIMIT ${search.limit} OFFSET ${search.skip}
    ) ORDER BY ${NEWEST_FIRST}`;
}

/** The key of the class's match `skip` matches past `from` (inclusive), walking the visible index. */
export function matchKeyAtSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  search: { text: string; matchClass: number; from: SeekKey | undefined; skip: number },
): Prisma.Sql {
  const predicate = matchPredicates(kind, search.text)[search.matchClass]!;
  return Prisma.sql`SELECT l."listedAt", l."id" FROM "Listing" l${indexFor(kind, view)}
    WHERE ${visible(view, now)}${atOrAfter(search.from)} AND (${predicate}) ORDER BY ${NEWEST_FIRST} LIMIT 1 OFFSET ${search.skip}`;
}

/** `limit` matches of any class in a sorted view's order (any but the default) from the `skip`-th, walking its sort index. */
export function sortedMatchPageSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  search: { text: string; skip: number; limit: number },
): Prisma.Sql {
  const anyClass = Prisma.join(
    matchPredicates(kind, search.text).map((predicate) => Prisma.sql`(${predicate})`),
    " OR ",
  );
  const key = rowKey(kind);
  const order = orderOf(view);
  return Prisma.sql`SELECT ${selectColumns} FROM "Listing" l WHERE l.${key} IN (
      SELECT l.${key} FROM "Listing" l${indexFor(kind, view)} WHERE ${visible(view, now)} AND (${anyClass}) ORDER BY ${order} LIMIT ${search.limit} OFFSET ${search.skip}
    ) ORDER BY ${order}`;
}
