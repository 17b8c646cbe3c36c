// The catalog's orders, one row each, keyed by the contract's CatalogSort: a sort the contract
// gains fails `npm run typecheck` here until it has a row. Every reader takes its part from the
// row: the SQL (index, ORDER BY, keyset seek: storage/catalog/catalog-sql.ts), the few matches a search
// ranks in memory (storage/catalog/catalog-reads.ts), the ranking engine's hits (queries/ranked-search.ts)
// and the web page's order menu (web/home-page.tsx). It lives with the contract, below all of them.
import type { components } from "../../generated/openapi.js";
import type { Listing } from "../../generated/prisma/sqlite/client.js";

export type CatalogSort = components["schemas"]["CatalogSort"];

/** The columns an order may put first (each a number or a bigint in a row). */
export type SortColumn = "calls30d" | "priceMicros" | "uptime7d";

export interface SortRow {
  /** The web page's name of the order. */
  label: string;
  /** The index whose order this is (SQLite is told it: INDEXED BY). */
  index: string;
  /** The column ordered first and which way; none: listedAt and id alone. */
  by?: { column: SortColumn; direction: "asc" | "desc" };
  /** Within a tie of `by` (or throughout, without one): newest first or oldest first (listedAt, then id). */
  ties: "newest" | "oldest";
}

/** In the order the web page offers them. */
export const CATALOG_SORTS: { readonly [S in CatalogSort]: SortRow } = {
  newest: { label: "Newest first", index: "Listing_visible_idx", ties: "newest" },
  price: {
    label: "Cheapest first",
    index: "Listing_price_idx",
    by: { column: "priceMicros", direction: "asc" },
    ties: "newest",
  },
  // Listing_price_idx read backwards: oldest first within a price.
  priceDesc: {
    label: "Dearest first",
    index: "Listing_price_idx",
    by: { column: "priceMicros", direction: "desc" },
    ties: "oldest",
  },
  popular: {
    label: "Most used (30 days)",
    index: "Listing_popular_idx",
    by: { column: "calls30d", direction: "desc" },
    ties: "newest",
  },
  uptime: {
    label: "Most reliable (7-day uptime)",
    index: "Listing_uptime_idx",
    by: { column: "uptime7d", direction: "desc" },
    ties: "newest",
  },
};

/** The contract's default order: the catalog's own walk (the sorted paths serve every other one). */
export const DEFAULT_SORT = "newest" satisfies CatalogSort;

/** What an in-memory order reads of a row: a Listing, or a search's ranked match (listedAt in ms). */
export type SortFields = Pick<Listing, SortColumn | "id"> & { listedAt: Date | number };

type Compare = (a: SortFields, b: SortFields) => number;

const ascending = <T extends number | bigint | string>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);
const oldestFirst: Compare = (a, b) => Number(a.listedAt) - Number(b.listedAt) || ascending(a.id, b.id);

/** The order's first key alone: the ranking engine's hits keep their rank within a tie. */
export function firstKeyOrder(sort: CatalogSort): Compare {
  const { by, ties } = CATALOG_SORTS[sort];
  if (!by) return ties === "oldest" ? oldestFirst : (a, b) => oldestFirst(b, a);
  return by.direction === "asc"
    ? (a, b) => ascending(a[by.column], b[by.column])
    : (a, b) => ascending(b[by.column], a[by.column]);
}

/** The whole order, ties included, as the SQL of catalog-sql.ts returns it. */
export function fullOrder(sort: CatalogSort): Compare {
  const { by, ties } = CATALOG_SORTS[sort];
  const withinTie: Compare = ties === "oldest" ? oldestFirst : (a, b) => oldestFirst(b, a);
  if (!by) return withinTie;
  const first = firstKeyOrder(sort);
  return (a, b) => first(a, b) || withinTie(a, b);
}
