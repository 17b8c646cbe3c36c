// The SQL of every catalog read, for both databases. Each read walks one index in the order it
// returns: Listing_visible_idx (state, listedAt, id, leftoverSeed, expiresAt) for the catalog,
// Listing_payTo_idx or Listing_extensions_idx when that filter is set. SQLite is told the index
// (INDEXED BY: the plan does not depend on statistics, and a query that could not use it fails
// instead of scanning); PostgreSQL's planner picks it from fresh statistics (migrate.ts, maintenance)
// and test/storage/catalog-plans.test.ts asserts the plans on both. The search's SQL (rank classes,
// trigram candidates) is in catalog-match-sql.ts, on the walks and conditions exported here.
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import { CATALOG_SORTS, DEFAULT_SORT, type CatalogSort, type SortRow } from "../../contract/catalog-sorts.js";
import type { DatabaseKind } from "../connection.js";
import { LISTING_COLUMNS } from "./listing-row.js";

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
export const rowKey = (kind: DatabaseKind) => Prisma.raw(kind === "sqlite" ? "rowid" : `"id"`);
export const selectColumns = Prisma.raw(LISTING_COLUMNS.map((c) => `l."${c}"`).join(", "));
export const NEWEST_FIRST = Prisma.raw(`l."listedAt" DESC, l."id" DESC`);

const sortOf = (view: CatalogView): SortRow => CATALOG_SORTS[view.sort ?? DEFAULT_SORT];

/** A seller's or an extension's rows are few: their index narrows first (a sort then orders that handful). */
export function indexFor(kind: DatabaseKind, view: CatalogView): Prisma.Sql {
  if (kind !== "sqlite") return Prisma.empty;
  const name = view.payTo ? "Listing_payTo_idx" : view.extensionKey ? "Listing_extensions_idx" : sortOf(view).index;
  return Prisma.raw(` INDEXED BY "${name}"`);
}

const tieDirection = (row: SortRow) => (row.ties === "newest" ? "DESC" : "ASC");

/** A view's order, as its sort index holds it: the sort's column, then listedAt and id (newest or oldest first within a tie). */
export function orderOf(view: CatalogView): Prisma.Sql {
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
export function visible(view: CatalogView, now: Date, state?: string): Prisma.Sql {
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

export const atOrAfter = (key: SeekKey | undefined) =>
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
