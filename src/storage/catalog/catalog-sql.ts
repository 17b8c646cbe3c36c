// The SQL of every catalog read, for both databases. Each read walks one index in the order it
// returns: Listing_visible_idx (state, listedAt, id, leftoverSeed, expiresAt) for the catalog,
// Listing_payTo_idx or Listing_extensions_idx when that filter is set. SQLite is told the index
// (INDEXED BY: the plan does not depend on statistics, and a query that could not use it fails
// instead of scanning); PostgreSQL's planner picks it from fresh statistics (migrate.ts, maintenance)
// and test/storage/catalog-plans.test.ts asserts the plans on both.
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import { CATALOG_SORTS, DEFAULT_SORT, type CatalogSort, type SortRow } from "../../contract/catalog-sorts.js";
import type { DatabaseKind } from "../connection.js";
import { LISTING_COLUMNS } from "./listing-row.js";
import { SEARCHED_COLUMNS } from "../search-index.js";

/** Which rows a catalog read shows. Filters that every row passes or none can pass are settled before SQL. */
export interface CatalogView {
  includeSeed: boolean;
  /** Checksummed seller address. */
  payTo?: string | undefined;
  /** A top-level extensions key the item must carry. */
  extensionKey?: string | undefined;
  /** Only this health status (healthStatus). */
  health?: HealthGroup | undefined;
  /** Only owner-verified listings. */
  verified?: true | undefined;
  /** Only listings with at least this many wash-filtered 30-day sales (calls30d). */
  minCalls?: number | undefined;
  /** The order (catalog-sorts.ts); absent: newest first. */
  sort?: CatalogSort | undefined;
  /** The price range in micros, inclusive. */
  minPriceMicros?: number | undefined;
  maxPriceMicros?: number | undefined;
  /** Lowercased tags, every one required. */
  tags?: string[] | undefined;
  /** Paid listings (the default), probe-confirmed indexed rows, or both. */
  source?: CatalogSource | undefined;
}

export type CatalogSource = "listed" | "indexed" | "all";

/** The state of the rows each source shows: listings are "active", indexed rows once our probe confirmed them "indexed". */
const SOURCE_STATES = { listed: ["active"], indexed: ["indexed"], all: ["active", "indexed"] } as const;
const statesOf = (view: CatalogView): readonly string[] => SOURCE_STATES[view.source ?? "listed"];

export type { CatalogSort } from "../../contract/catalog-sorts.js";

/** A listing's health status (healthStatus). */
export type HealthGroup = "healthy" | "unknown" | "unhealthy" | "drifted";

/** A position in a view's order: newest first, or a sorted view's (its sort column's value too). */
export interface SeekKey {
  listedAt: Date;
  id: string;
  /** The value of the sort's first column (catalog-sorts.ts `by`) at the position, when it has one. */
  sortValue?: number | bigint | undefined;
}

/** What a row is fetched by: SQLite's rowid (every index carries it), PostgreSQL's primary key. */
const rowKey = (kind: DatabaseKind) => Prisma.raw(kind === "sqlite" ? "rowid" : `"id"`);
const selectColumns = Prisma.raw(LISTING_COLUMNS.map((c) => `l."${c}"`).join(", "));
const NEWEST_FIRST = Prisma.raw(`l."listedAt" DESC, l."id" DESC`);

const sortOf = (view: CatalogView): SortRow => CATALOG_SORTS[view.sort ?? DEFAULT_SORT];

/** A seller's or an extension's rows are few: their index narrows first (a sort then orders that handful). */
function indexFor(kind: DatabaseKind, view: CatalogView): Prisma.Sql {
  if (kind !== "sqlite") return Prisma.empty;
  const name = view.payTo ? "Listing_payTo_idx" : view.extensionKey ? "Listing_extensions_idx" : sortOf(view).index;
  return Prisma.raw(` INDEXED BY "${name}"`);
}

const tieDirection = (row: SortRow) => (row.ties === "newest" ? "DESC" : "ASC");

/** A view's order, as its sort index holds it: the sort's column, then listedAt and id (newest or oldest first within a tie). */
function orderOf(view: CatalogView): Prisma.Sql {
  const row = sortOf(view);
  const ties = tieDirection(row);
  const first = row.by ? `l."${row.by.column}" ${row.by.direction.toUpperCase()}, ` : "";
  return Prisma.raw(`${first}l."listedAt" ${ties}, l."id" ${ties}`);
}

/**
 * Whether a walk of the view (a page, a checkpoint step) has one best plan whatever the values: the
 * walk of its index. A price range, a sales floor or tags (a pattern) can be judged only from their
 * values, an extension or a health status only from which one: those are planned for the values.
 */
export const valueFreePlan = (view: CatalogView) =>
  !view.extensionKey &&
  !view.health &&
  !view.minCalls &&
  view.minPriceMicros === undefined &&
  view.maxPriceMicros === undefined &&
  !view.tags;

/** Whether a view is read in another order than newest first (offset paging on its sort index). */
export const isSorted = (view: CatalogView) => (view.sort ?? DEFAULT_SORT) !== DEFAULT_SORT;

/** The view's rows; `state` narrows a view of both sources to one (each side of a merged walk). */
function visible(view: CatalogView, now: Date, state?: string): Prisma.Sql {
  const states = state === undefined ? statesOf(view) : [state];
  const conditions = [
    states.length === 1 ? Prisma.sql`l."state" = ${states[0]}` : Prisma.sql`l."state" IN (${Prisma.join(states)})`,
    Prisma.sql`l."expiresAt" > ${now}`,
  ];
  if (!view.includeSeed) conditions.push(Prisma.sql`l."leftoverSeed" = ${false}`);
  if (view.payTo) conditions.push(Prisma.sql`l."sellerPayTo" = ${view.payTo}`);
  if (view.extensionKey) conditions.push(Prisma.sql`l."extensionKeys" = ${view.extensionKey}`);
  if (view.health) conditions.push(Prisma.sql`l."healthStatus" = ${view.health}`);
  if (view.verified) conditions.push(Prisma.sql`l."ownerVerified" = ${true}`);
  if (view.minCalls) conditions.push(Prisma.sql`l."calls30d" >= ${view.minCalls}`);
  if (view.minPriceMicros !== undefined) conditions.push(Prisma.sql`l."priceMicros" >= ${view.minPriceMicros}`);
  if (view.maxPriceMicros !== undefined) conditions.push(Prisma.sql`l."priceMicros" <= ${view.maxPriceMicros}`);
  // tags is a JSON array of strings: a tag is matched with its quotes, LIKE's wildcards escaped.
  for (const tag of view.tags ?? [])
    conditions.push(
      Prisma.sql`LOWER(l."tags") LIKE ${`%${JSON.stringify(tag).replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`,
    );
  return Prisma.join(conditions, " AND ");
}

/**
 * The index walk of a view in `order`: `limit` rows after stepping over `skip`, from the `after`
 * condition on. One state is one range of the sort index. Both sources (`source=all`) are two ranges
 * the index holds apart: each is walked for at most skip + limit rows and the two merged, so the cost
 * stays that of the walk, not a sort of every row of both. `columns(merged)` names what is selected
 * (the row key is the merged walk's "k").
 */
function walk(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  step: { columns: (merged: boolean) => Prisma.Sql; after: Prisma.Sql; order: Prisma.Sql; skip: number; limit: number },
): Prisma.Sql {
  const states = statesOf(view);
  if (states.length === 1)
    return Prisma.sql`SELECT ${step.columns(false)} FROM "Listing" l${indexFor(kind, view)}
      WHERE ${visible(view, now)}${step.after} ORDER BY ${step.order} LIMIT ${step.limit} OFFSET ${step.skip}`;
  // Each side selects what the merged order reads: the position and the sort column (from its index alone).
  const sorted = sortColumnsOf(view, "");
  const side = (
    state: string,
    n: number,
  ) => Prisma.sql`SELECT * FROM (SELECT l.${rowKey(kind)} AS "k", l."listedAt", l."id"${sorted}
      FROM "Listing" l${indexFor(kind, view)} WHERE ${visible(view, now, state)}${step.after} ORDER BY ${step.order} LIMIT ${step.skip + step.limit}) s${Prisma.raw(String(n))}`;
  return Prisma.sql`SELECT ${step.columns(true)} FROM (${Prisma.join(
    states.map((state, n) => side(state, n)),
    " UNION ALL ",
  )}) l ORDER BY ${step.order} LIMIT ${step.limit} OFFSET ${step.skip}`;
}

const columnOf = (by: NonNullable<SortRow["by"]>) => Prisma.raw(`l."${by.column}"`);
/** The sort's first column, selected after the others (named `as`), when the sort has one. */
function sortColumnsOf(view: CatalogView, as: string): Prisma.Sql {
  const { by } = sortOf(view);
  return by ? Prisma.sql`, ${columnOf(by)}${Prisma.raw(as)}` : Prisma.empty;
}

/** The row key a walk selects: the table's, or the merged walk's "k". */
const keyColumn = (kind: DatabaseKind) => (merged: boolean) =>
  merged ? Prisma.raw(`l."k"`) : Prisma.sql`l.${rowKey(kind)}`;

const atOrAfter = (key: SeekKey | undefined) =>
  key ? Prisma.sql` AND (l."listedAt", l."id") <= (${key.listedAt}, ${key.id})` : Prisma.empty;

/** The number of rows the view shows (an index-only count). */
export function viewCountSql(kind: DatabaseKind, view: CatalogView, now: Date): Prisma.Sql {
  return Prisma.sql`SELECT COUNT(*) AS "total" FROM "Listing" l${indexFor(kind, view)} WHERE ${visible(view, now)}`;
}

/** The key `skip` rows past `from` (inclusive) in the view's newest-first order (an index-only step). */
export function keyAtSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  from: SeekKey | undefined,
  skip: number,
): Prisma.Sql {
  return walk(kind, view, now, {
    columns: () => Prisma.raw(`l."listedAt", l."id"`),
    after: atOrAfter(from),
    order: NEWEST_FIRST,
    skip,
    limit: 1,
  });
}

/** `limit` rows of the view from `skip` rows past `from` (inclusive), newest first. */
export function pageSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  page: { from?: SeekKey | undefined; skip: number; limit: number },
): Prisma.Sql {
  // The skipped entries are stepped over in the index alone (SQLite read the table row of each one:
  // about 3.6 us a row); only the page's own rows are fetched, by rowid (SQLite) or id (PostgreSQL).
  const keys = walk(kind, view, now, {
    columns: keyColumn(kind),
    after: atOrAfter(page.from),
    order: NEWEST_FIRST,
    skip: page.skip,
    limit: page.limit,
  });
  return Prisma.sql`SELECT ${selectColumns} FROM "Listing" l WHERE l.${rowKey(kind)} IN (${keys}) ORDER BY ${NEWEST_FIRST}`;
}

/**
 * From `key` on (inclusive) in a sorted view's order. An order that runs one direction throughout
 * (most popular first: calls down, newest first within a tie) is a row comparison the sort index
 * seeks to. Cheapest first runs price up but newest first within a price: the index range starts at
 * the key's price, and the rows of that price listed after the key are stepped over (dearest first is
 * the same backwards: price down, oldest first within a price).
 */
function sortedAtOrAfter(view: CatalogView, key: SeekKey | undefined): Prisma.Sql {
  if (!key) return Prisma.empty;
  const { by, ties } = sortOf(view);
  const tieStep = Prisma.raw(ties === "newest" ? "<=" : ">=");
  if (!by) return Prisma.sql` AND (l."listedAt", l."id") ${tieStep} (${key.listedAt}, ${key.id})`;
  const column = columnOf(by);
  const [atOrPast, past] = by.direction === "desc" ? ["<=", "<"] : [">=", ">"];
  if ((by.direction === "desc") === (ties === "newest"))
    return Prisma.sql` AND (${column}, l."listedAt", l."id") ${Prisma.raw(atOrPast)} (${key.sortValue}, ${key.listedAt}, ${key.id})`;
  return Prisma.sql` AND ${column} ${Prisma.raw(atOrPast)} ${key.sortValue} AND (${column} ${Prisma.raw(past)} ${key.sortValue} OR (l."listedAt", l."id") ${tieStep} (${key.listedAt}, ${key.id}))`;
}

/** The key `skip` rows past `from` (inclusive) in a sorted view's order (an index-only step on its sort index). */
export function sortedKeyAtSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  from: SeekKey | undefined,
  skip: number,
): Prisma.Sql {
  const columns = () => Prisma.sql`l."listedAt", l."id"${sortColumnsOf(view, ` AS "sortValue"`)}`;
  return walk(kind, view, now, { columns, after: sortedAtOrAfter(view, from), order: orderOf(view), skip, limit: 1 });
}

/** `limit` rows of a sorted view (any but the default order) from `skip` rows past `from` (inclusive): the skipped entries are stepped over in its sort index. */
export function sortedPageSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  page: { from?: SeekKey | undefined; skip: number; limit: number },
): Prisma.Sql {
  const order = orderOf(view);
  const keys = walk(kind, view, now, {
    columns: keyColumn(kind),
    after: sortedAtOrAfter(view, page.from),
    order,
    skip: page.skip,
    limit: page.limit,
  });
  return Prisma.sql`SELECT ${selectColumns} FROM "Listing" l WHERE l.${rowKey(kind)} IN (${keys}) ORDER BY ${order}`;
}

/** The oldest `limit` rows listed strictly after `since`, oldest first. */
export function listedAfterSql(
  kind: DatabaseKind,
  view: CatalogView,
  now: Date,
  since: Date,
  limit: number,
): Prisma.Sql {
  return Prisma.sql`SELECT ${selectColumns} FROM "Listing" l${indexFor(kind, view)}
    WHERE ${visible(view, now)} AND l."listedAt" > ${since} ORDER BY l."listedAt" ASC, l."id" ASC LIMIT ${limit}`;
}

/**
 * The rows of these ids, looked up by key, that the view shows. SQLite chose the view's state index
 * for `id IN (...)` and tested every live row against the list (1.2 ms for 84 ids at 10k listings,
 * whatever the statistics said); the ids as the outer loop of a CROSS JOIN (which SQLite never
 * reorders) make it a lookup per id (one statement text for any count, the ids as a JSON array).
 */
const ofIdsInView = (kind: DatabaseKind, view: CatalogView, now: Date, ids: string[]) =>
  kind === "sqlite"
    ? Prisma.sql`FROM json_each(${JSON.stringify(ids)}) AS ids CROSS JOIN "Listing" l ON l."id" = ids."value" WHERE ${visible(view, now)}`
    : Prisma.sql`FROM "Listing" l WHERE l."id" IN (${Prisma.join(ids)}) AND ${visible(view, now)}`;

/** The listings of these ids the view shows (in no particular order). */
export function inViewByIdsSql(kind: DatabaseKind, view: CatalogView, now: Date, ids: string[]): Prisma.Sql {
  return Prisma.sql`SELECT ${selectColumns} ${ofIdsInView(kind, view, now, ids)}`;
}

/** Which of these ids the view shows: a ranked search's total, without reading the rows it does not show on the page. */
export function idsInViewSql(kind: DatabaseKind, view: CatalogView, now: Date, ids: string[]): Prisma.Sql {
  return Prisma.sql`SELECT l."id" ${ofIdsInView(kind, view, now, ids)}`;
}

/** One listing by id, when it is live (active, not expired; or an indexed row our probe confirmed); seed rows too. */
export function liveByIdSql(id: string, now: Date): Prisma.Sql {
  return Prisma.sql`SELECT ${selectColumns} FROM "Listing" l WHERE l."id" = ${id} AND l."state" IN ('active', 'indexed') AND l."expiresAt" > ${now}`;
}

/** Every stored row in any state. */
export const rawCountSql = Prisma.sql`SELECT COUNT(*) AS "total" FROM "Listing"`;

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
