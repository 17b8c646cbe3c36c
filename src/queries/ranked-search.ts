// The catalog search through the ranking engine (src/search/): BM25 and meaning, fused with trust
// signals. The engine ranks ids; the rows come from the catalog reader, which applies every catalog
// filter again (seed, expiry, extensions...), so a filter the engine does not know is still applied.
import type { SearchService } from "../search/service.js";
import type { RankReasons, SearchDegraded, SearchFilters, SearchMode, TrustFilter } from "../search/types.js";
import { DEFAULT_SORT, firstKeyOrder } from "../contract/catalog-sorts.js";
import type { CatalogChangeFeed } from "../storage/catalog/catalog-notices.js";
import type { CatalogView, Listing, ListingStore, Page } from "../storage/listing/listing-store.js";

/** Which matching answered a search, and why it is not the one asked when it is not. */
export interface SearchRanking {
  mode: SearchMode | "substring";
  reason?: "semantic-off" | SearchDegraded | undefined;
  /** Each result's rank reasons, by listing id (absent when substring matching answered). */
  reasons?: Map<string, RankReasons> | undefined;
  /** The closest listings below the relevance floor, apart from the results. */
  nearMisses?: Listing[] | undefined;
  /** Constraints read from the question's words (question-constraints.ts). */
  interpreted?: Record<string, string> | undefined;
  /**
   * The engine had not yet taken in every write of the reply's catalog state (another instance's,
   * until the next poll): the answer is right for now but not kept under the state's token.
   */
  behind?: boolean | undefined;
}

/**
 * The search service as the catalog queries use it. The engine is kept up to date by the follow
 * job and by change notices (src/search/service.ts changed()), never by a search: a search only
 * asks whether it holds the catalog state the reply is read at, awaiting a sync already running.
 */
export class CatalogRanker {
  private started = false;

  constructor(readonly service: SearchService) {}

  /** Loads the catalog into the engine; searches answer with substring matching until it is done. */
  async start(now: Date): Promise<void> {
    await this.service.start(now);
    this.started = true;
  }

  /** Loaded, and its engine's thread running. */
  get ready(): boolean {
    return this.started && this.service.usable;
  }

  /**
   * Syncs the engine on every catalog change notice: this instance's writes at their commit (the one
   * write path, catalog-transactions.ts), and on PostgreSQL other instances' by LISTEN (the feed;
   * when it is down the follow job's poll alone brings them). Returns the unsubscribe.
   */
  follow(store: Pick<ListingStore, "onChange">, feed: CatalogChangeFeed | undefined, now: () => Date): () => void {
    const changed = () => this.service.changed(now());
    const stops = [store.onChange(changed), feed?.onChange(changed)];
    return () => stops.forEach((stop) => stop?.());
  }

  /**
   * Whether the engine holds every write of the catalog at `version` (a search's catalog state),
   * once the sync running, if any, is done. No database read: false means another instance's write
   * the next poll brings in (docs/catalog.md, search).
   */
  caughtUp(version: number): Promise<boolean> {
    return this.service.caughtUp(version);
  }
}

/** The view's filters on facts the engine keeps per listing (none: every hit passes and no check runs). */
function trustFilter(view: CatalogView): TrustFilter | undefined {
  const { payTo, health, verified, minCalls } = view;
  if (payTo === undefined && health === undefined && verified !== true && minCalls === undefined) return undefined;
  return { payTo, health, verified, minCalls };
}

/** The view's filters as the engine applies them while it picks candidates (never after it cut them). */
function engineFilters(view: CatalogView, now: Date): SearchFilters {
  return {
    minPriceMicros: view.minPriceMicros,
    maxPriceMicros: view.maxPriceMicros,
    tags: view.tags,
    trust: trustFilter(view),
    source: view.source === undefined ? "listed" : view.source === "all" ? undefined : view.source,
    includeSeed: view.includeSeed,
    extension: view.extensionKey,
    at: now.getTime(),
  };
}

/** The most hits a ranked search finds; its page is cut from them (a page with `limit` RANKED_HITS has them all). */
export const RANKED_HITS = 1000;

/**
 * A ranked page: every hit the engine found that the view shows, best first (or in the `sort` asked),
 * paged. Null when the engine's thread has too many searches waiting (the caller answers without it).
 */
export async function rankedPage(
  ranker: CatalogRanker,
  store: ListingStore,
  view: CatalogView,
  text: string,
  mode: SearchMode,
  page: { limit: number; offset: number; now: Date },
): Promise<{ page: Page<Listing>; ranking: SearchRanking } | null> {
  const outcome = await ranker.service.search(text, {
    mode,
    limit: RANKED_HITS,
    filters: engineFilters(view, page.now),
  });
  if (!outcome) return null;
  const ids = outcome.hits.map((hit) => hit.id);
  // The default order is the engine's rank; another sorts the hits by its first key (rank within a tie).
  const sort = view.sort && view.sort !== DEFAULT_SORT ? firstKeyOrder(view.sort) : undefined;
  let shown: Page<Listing>;
  if (sort || ids.length <= page.offset + page.limit) {
    // Every hit is read whole: a sort needs their fields, and a short answer shows them all anyway.
    let rows = await store.catalog.inViewByIds(view, ids, page.now);
    if (sort) rows = [...rows].sort(sort);
    shown = { rows: rows.slice(page.offset, page.offset + page.limit), total: rows.length };
  } else {
    // Which hits the view shows (ids only), then the page's rows: a question's 70-100 hits were read
    // whole to show 20 (1.2 ms of a 2k-listing search's request-thread CPU on a loaded machine).
    const inView = await store.catalog.idsInView(view, ids, page.now);
    const ranked = ids.filter((id) => inView.has(id));
    shown = {
      rows: await store.catalog.inViewByIds(view, ranked.slice(page.offset, page.offset + page.limit), page.now),
      total: ranked.length,
    };
  }
  const nearIds = outcome.nearMisses.map((hit) => hit.id);
  const nearMisses =
    page.offset === 0 && nearIds.length && shown.total === 0
      ? await store.catalog.inViewByIds(view, nearIds, page.now)
      : [];
  const reasons = new Map([...outcome.hits, ...outcome.nearMisses].map((hit) => [hit.id, hit.reasons]));
  return {
    page: shown,
    ranking: { mode: outcome.mode, reason: outcome.degraded, reasons, nearMisses },
  };
}
