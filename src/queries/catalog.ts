// The catalog's queries: what every route, MCP tool and A2A skill that shows the catalog reads, from
// the request's parameters to the rows a document renders. Handlers call these and hand the result
// to a builder in src/documents/ or src/web/, which only renders. Every read of one reply is made at
// one catalog state (`catalogState`): its token is the reply's ETag and keys the reads' memo.
import type { operations } from "../../generated/openapi.js";
import type { CatalogFreshness } from "../catalog/freshness.js";
import { decodeCursor, type CursorScope } from "../catalog/search-cursor.js";
import { isDefaultSeedView, showsSeed } from "../catalog/seed-filter.js";
import type { ListView, SearchView } from "../documents/discovery.js";
import { FOREIGN_PAGE_SIZE } from "../documents/foreign.js";
import type { ListingEventStore } from "./listing-event-store.js";
import type { CatalogFilters } from "../storage/catalog/catalog-filters.js";
import {
  EMPTY_PAGE,
  catalogView,
  type FeedQuery,
  type Listing,
  type ListingStore,
} from "../storage/listing/listing-store.js";
import { readConstraints } from "./question-constraints.js";
import { rankedPage, type CatalogRanker, type SearchRanking } from "./ranked-search.js";

/** The feed read's parameters (its health and source filters are the feeds' query). */
export type { FeedQuery };

/** What the catalog queries read from. */
export interface CatalogQueryContext {
  store: ListingStore;
  /** The catalog's change log: listing transitions, seller feeds. */
  events: ListingEventStore;
  freshness: CatalogFreshness;
  now(): Date;
  /** The ranking engine (src/search/); null with SEARCH_SEMANTIC=off: substring matching answers. */
  ranker: CatalogRanker | null;
}

/** The catalog state a reply is read at: `token` changes exactly when anything it shows may have. */
export interface CatalogState {
  token: string;
  /** When the catalog last changed (documents show it as updatedAt). */
  changedAt: Date;
  /** The catalog version (bumped by every catalog write): what the ranking engine is compared to. */
  version: number;
}

export async function catalogState(context: CatalogQueryContext): Promise<CatalogState> {
  const { token, stamp } = await context.freshness.current();
  return { token, changedAt: stamp.changedAt, version: stamp.version };
}

/**
 * A query whose health filter may also be one health group: the web page reads its healthy-first
 * order group by group, `unknown` (not re-probed yet) among them, which the contract's filter lacks.
 */
type WithHealthGroup<Query> = Omit<Query, "health"> & { health?: CatalogFilters["health"] };

/** The query of the catalog lists (`/bazaar.json`, `/discovery/resources` and their aliases). */
export type ListQuery = WithHealthGroup<NonNullable<operations["getCatalog"]["parameters"]["query"]>>;

/**
 * The search parameters of the discovery routes (and of the MCP tool `list_market`): those of the
 * lenient `/search`, whose `query` is optional; `/discovery/search`'s (`query` required) fit them.
 */
export type SearchQuery = WithHealthGroup<NonNullable<operations["searchCatalog"]["parameters"]["query"]>>;

export const DEFAULT_LIST_LIMIT = 50;
export const DEFAULT_SEARCH_LIMIT = 20;

/** A page of a catalog list, newest first (or in the `sort` asked). */
export async function listPage(context: CatalogQueryContext, state: CatalogState, query: ListQuery): Promise<ListView> {
  const limit = query.limit ?? DEFAULT_LIST_LIMIT;
  const offset = query.offset ?? 0;
  const view = catalogView(query, showsSeed(query, "catalog"));
  const page = view
    ? await context.store.catalog.page(view, { limit, offset, now: context.now(), token: state.token })
    : EMPTY_PAGE;
  return { page, limit, offset, describeFilters: isDefaultSeedView(query) };
}

/**
 * A page of the catalog search. `route` selects the seed-filter semantics (`search` is the lenient
 * `/search`). A bad cursor throws a 400 naming `cursor`.
 */
/** What a search asks: its question as given, the text the ranking reads, and the constraints read from the question's words. */
export interface SearchQuestion {
  question: string | null;
  text: string | null;
  interpreted: Record<string, string>;
}

/**
 * A search's question and the text ranked: constraints in the question's words ("under a cent",
 * "cheapest") become filters where no explicit parameter set them, and leave the text.
 */
export function searchQuestion(query: Pick<SearchQuery, "query" | "q" | "mode" | "maxPrice" | "sort">): SearchQuestion {
  const question = (query.query ?? query.q)?.trim() || null;
  const read = question && query.mode !== "substring" ? readConstraints(question) : undefined;
  const interpreted: Record<string, string> = {};
  if (read?.maxPrice !== undefined && query.maxPrice === undefined) interpreted.maxPrice = read.maxPrice;
  // `newest` is the contract's default: only another sort given is a buyer's own.
  if (read?.sort !== undefined && (query.sort === undefined || query.sort === "newest")) interpreted.sort = read.sort;
  return { question, text: read && Object.keys(interpreted).length ? read.text : question, interpreted };
}

export async function searchPage(
  context: CatalogQueryContext,
  state: CatalogState,
  query: SearchQuery,
  route: "catalog" | "search",
): Promise<SearchView> {
  const asked = query.mode ?? "hybrid";
  const { question, text, interpreted } = searchQuestion(query);
  const filtered: SearchQuery = { ...query, ...interpreted };
  const includeSeed = showsSeed(filtered, route);
  const scope: CursorScope = {
    query: question,
    includeSeed,
    type: query.type,
    payTo: query.payTo,
    network: query.network,
    scheme: query.scheme,
    extensions: query.extensions,
    ranking: [
      asked,
      filtered.minPrice ?? null,
      filtered.maxPrice ?? null,
      query.tags ?? null,
      query.source ?? "listed",
      filtered.sort ?? null,
    ],
  };
  const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
  const offset = query.cursor === undefined ? (query.offset ?? 0) : decodeCursor(query.cursor, scope);
  const view = catalogView(filtered, includeSeed);
  const echo = Object.keys(interpreted).length ? interpreted : undefined;
  if (!view)
    return { page: EMPTY_PAGE, limit, offset, scope, ranking: text ? { mode: asked, interpreted: echo } : undefined };
  const ranker = context.ranker;
  let unranked: SearchRanking["reason"] = ranker ? "semantic-not-ready" : "semantic-off";
  if (text && asked !== "substring" && ranker?.ready) {
    const now = context.now();
    // No read to sync: this instance's writes started a sync at their commit (awaited here if it
    // still runs); another instance's the follow job's poll or a change notice brings in.
    const behind = !(await ranker.caughtUp(state.version));
    const ranked = await rankedPage(ranker, context.store, view, text, asked, { limit, offset, now });
    if (ranked)
      return {
        page: ranked.page,
        limit,
        offset,
        scope,
        ranking: { ...ranked.ranking, interpreted: echo, ...(behind && { behind }) },
      };
    unranked = "semantic-saturated";
  }
  // The whole question as one substring: asked for (mode=substring), or the engine could not answer.
  const page = await context.store.catalog.search(view, text ?? "", {
    limit,
    offset,
    now: context.now(),
    token: state.token,
  });
  const ranking: SearchRanking | undefined = text
    ? { mode: "substring", reason: asked === "substring" ? undefined : unranked, interpreted: echo }
    : undefined;
  return { page, limit, offset, scope, ranking };
}

/**
 * Whether a search was answered without the engine (or without the model's vector) because it was loading or busy, or by an
 * engine behind the catalog state: such an answer changes without a catalog write, so it is never reused under the catalog's
 * freshness token.
 */
export const passingAnswer = (
  ranking: { reason?: string | undefined; behind?: boolean | undefined } | undefined,
): boolean =>
  ranking?.behind === true ||
  ranking?.reason === "semantic-not-ready" ||
  ranking?.reason === "semantic-saturated" ||
  ranking?.reason === "model-busy";

/** The newest `limit` third-party listings (`GET /listings`, the foreign catalog), and how many there are. */
export function newestForeign(context: CatalogQueryContext, state: CatalogState, limit: number) {
  return context.store.catalog.page(
    { includeSeed: false },
    { limit, offset: 0, now: context.now(), token: state.token },
  );
}

/** The catalog's counts (`/status.json`, the foreign catalog): visible foreign and seed rows, every stored row, by health, delisted. */
export function catalogCounts(context: CatalogQueryContext, state: CatalogState) {
  return context.store.counts(context.now(), state.token);
}

/** The foreign catalog (`/foreign.json`): its newest page and the counts. */
export async function foreignPage(context: CatalogQueryContext, state: CatalogState) {
  const [page, counts] = await Promise.all([
    newestForeign(context, state, FOREIGN_PAGE_SIZE),
    catalogCounts(context, state),
  ]);
  return { rows: page.rows, counts };
}

/** Third-party listings for the feeds: newest first, or with `since` the oldest `limit` listed after it (FeedQuery). */
export function feedRows(context: CatalogQueryContext, query: Omit<FeedQuery, "now">): Promise<Listing[]> {
  return context.store.feed({ ...query, now: context.now() });
}

/** One live listing by id, or null. */
export function liveListing(context: CatalogQueryContext, id: string): Promise<Listing | null> {
  return context.store.catalog.live(id, context.now());
}
