// `/`: what the marketplace is, the search form (filters folded away), the catalog as cards with
// healthy listings first, paging, and on the first unfiltered page the catalog at a glance.
import type { VNode } from "preact";
import type { components } from "../../generated/openapi.js";
import { CATALOG_SORTS, type CatalogSort } from "../contract/catalog-sorts.js";
import { Card } from "./catalog-card.js";
import { pathWithQuery } from "./format.js";
import { Summary, type SummaryView } from "./home-summary.js";
import { renderPage } from "./layout.js";

type DiscoveryDocument = components["schemas"]["DiscoveryDocument"];

/** The home page's filters as the request gave them (defaults filled in). */
export interface HomeFilters {
  query: string;
  network: string;
  health: "any" | "healthy" | "unhealthy" | "drifted";
  /** Paid listings (the default), rows indexed from other catalogs, or both. */
  source: "listed" | "indexed" | "all";
  verified: boolean;
  includeSeed: boolean;
  sort: components["schemas"]["Canonical.WebCatalogSort"];
  /** USDC decimals; empty: no bound. */
  minPrice: string;
  maxPrice: string;
  /** Comma-separated; empty: any. */
  tags: string;
  minCalls?: number | undefined;
  limit: number;
  offset: number;
}

export interface HomeView extends SummaryView {
  siteName: string;
  document: DiscoveryDocument;
  filters: HomeFilters;
  /** Networks the filter offers (the marketplace's). */
  networks: string[];
  /** The JSON document this page shows (`/bazaar.json?...` or `/discovery/search?...`). */
  jsonTwin: string;
}

const HEALTH_LABELS = {
  any: "Any (healthy first)",
  healthy: "Healthy",
  unhealthy: "Unhealthy",
  drifted: "Drifted",
} as const;
const SOURCE_LABELS = { listed: "Paid listings", indexed: "Indexed from other catalogs", all: "Both" } as const;
const SORT_LABELS: Record<HomeFilters["sort"], string> = {
  relevance: "Best match",
  ...(Object.fromEntries(Object.entries(CATALOG_SORTS).map(([sort, row]) => [sort, row.label])) as Record<
    CatalogSort,
    string
  >),
};

/** The order a page without `sort` shows: the search's rank with a search text, newest first without. */
const defaultSort = (filters: Pick<HomeFilters, "query">) => (filters.query ? "relevance" : "newest");

/** The page's own address with other filters or another offset (the defaults left out). */
export function homePath(filters: HomeFilters, change: Partial<HomeFilters> = {}): string {
  const next = { ...filters, ...change };
  return pathWithQuery("/", {
    query: next.query,
    network: next.network,
    health: next.health === "any" ? undefined : next.health,
    source: next.source === "listed" ? undefined : next.source,
    verified: next.verified ? "true" : undefined,
    includeSeed: next.includeSeed ? "true" : undefined,
    minPrice: next.minPrice,
    maxPrice: next.maxPrice,
    tags: next.tags,
    minCalls: next.minCalls,
    sort: next.sort === defaultSort(next) ? undefined : next.sort,
    limit: next.limit === 20 ? undefined : next.limit,
    offset: next.offset || undefined,
  });
}

/** How many of the folded filters are set (the fold's summary says so, and opens when any is). */
function foldedFiltersSet(filters: HomeFilters): number {
  return [
    filters.network,
    filters.health !== "any",
    filters.source !== "listed",
    filters.verified,
    filters.minPrice,
    filters.maxPrice,
    filters.tags,
  ].filter(Boolean).length;
}

function Select({
  id,
  label,
  value,
  options,
}: {
  id: string;
  label: string;
  value: string;
  options: Array<[string, string]>;
}): VNode {
  return (
    <div>
      <label for={id}>{label}</label>
      <select id={id} name={id}>
        {options.map(([option, text]) => (
          <option key={option} value={option} selected={value === option}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

function Filters({ filters, networks }: { filters: HomeFilters; networks: string[] }): VNode {
  const sorts = Object.entries(SORT_LABELS).filter(([value]) => filters.query || value !== "relevance");
  const sort = !filters.query && filters.sort === "relevance" ? "newest" : filters.sort;
  const set = foldedFiltersSet(filters);
  return (
    <form class="filters" method="get" action="/" role="search" aria-label="Search the catalog">
      <div class="bar">
        <div class="grow">
          <label for="query">Search</label>
          <input
            id="query"
            name="query"
            type="search"
            value={filters.query}
            maxLength={200}
            placeholder="weather, summarise, 0x…"
          />
        </div>
        <div class="order">
          <Select id="sort" label="Order" value={sort} options={sorts} />
        </div>
        <div class="go">
          <button type="submit">Search</button>
        </div>
      </div>
      <details class="more" open={set > 0}>
        <summary>{set > 0 ? `Filters (${set} set)` : "Filters"}</summary>
        <div class="grid">
          <Select
            id="network"
            label="Network"
            value={filters.network}
            options={[["", "Any"], ...networks.map((network): [string, string] => [network, network])]}
          />
          <Select id="health" label="Health" value={filters.health} options={Object.entries(HEALTH_LABELS)} />
          <Select id="source" label="Source" value={filters.source} options={Object.entries(SOURCE_LABELS)} />
          <div>
            <label for="minPrice">Min price (USDC)</label>
            <input
              id="minPrice"
              name="minPrice"
              inputMode="decimal"
              pattern="[0-9]{1,12}(\.[0-9]{1,6})?"
              value={filters.minPrice}
              placeholder="0.001"
            />
          </div>
          <div>
            <label for="maxPrice">Max price (USDC)</label>
            <input
              id="maxPrice"
              name="maxPrice"
              inputMode="decimal"
              pattern="[0-9]{1,12}(\.[0-9]{1,6})?"
              value={filters.maxPrice}
              placeholder="0.05"
            />
          </div>
          <div>
            <label for="tags">Tags (all of, comma-separated)</label>
            <input id="tags" name="tags" maxLength={200} value={filters.tags} placeholder="weather, maps" />
          </div>
          <div>
            <label class="check" for="verified">
              <input id="verified" name="verified" type="checkbox" value="true" checked={filters.verified} />
              Verified owners only
            </label>
          </div>
        </div>
        {filters.includeSeed && <input type="hidden" name="includeSeed" value="true" />}
      </details>
    </form>
  );
}

/** Page numbers around the current one (first and last always), gaps as null. */
function pageNumbers(current: number, count: number): Array<number | null> {
  const shown = new Set([1, count, current - 1, current, current + 1].filter((page) => page >= 1 && page <= count));
  const pages: Array<number | null> = [];
  for (const page of [...shown].sort((a, b) => a - b)) {
    if (pages.length > 0 && page - (pages[pages.length - 1] as number) > 1) pages.push(null);
    pages.push(page);
  }
  return pages;
}

function Pager({ filters, total }: { filters: HomeFilters; total: number }): VNode | null {
  const { offset, limit } = filters;
  if (total <= limit && offset === 0) return null;
  const last = Math.min(offset + limit, total);
  const current = Math.floor(offset / limit) + 1;
  const count = Math.max(1, Math.ceil(total / limit));
  return (
    <nav class="pager" aria-label="Pages">
      {offset > 0 ? (
        <a href={homePath(filters, { offset: Math.max(offset - limit, 0) })} rel="prev">
          ← Previous
        </a>
      ) : (
        <span />
      )}
      <span>
        {pageNumbers(current, count).map((page, index) =>
          page === null ? (
            <span key={`gap${index}`}> … </span>
          ) : page === current ? (
            <strong key={page} aria-current="page">{` ${page} `}</strong>
          ) : (
            <a key={page} href={homePath(filters, { offset: (page - 1) * limit })}>{` ${page} `}</a>
          ),
        )}
        {` (${total === 0 ? "no results" : `${offset + 1}–${last} of ${total}`})`}
      </span>
      {offset + limit < total ? (
        <a href={homePath(filters, { offset: offset + limit })} rel="next">
          Next →
        </a>
      ) : (
        <span />
      )}
    </nav>
  );
}

/** Whether the page shows the catalog as it first opens (no search, no filter; any order). */
export function isUnfiltered(filters: HomeFilters): boolean {
  return (
    !filters.query &&
    !filters.network &&
    filters.health === "any" &&
    filters.source === "listed" &&
    !filters.verified &&
    filters.minCalls === undefined &&
    !filters.includeSeed &&
    !filters.minPrice &&
    !filters.maxPrice &&
    !filters.tags
  );
}

function Empty({ filters }: { filters: HomeFilters }): VNode {
  if (isUnfiltered(filters)) {
    return (
      <p>
        No seller has listed an endpoint here yet.{" "}
        <a href={homePath(filters, { includeSeed: true })}>Show this marketplace's own demo endpoints</a> (marked
        “demo”: they answer with sample data), or <a href="/sell.html">list yours</a>.
      </p>
    );
  }
  if (filters.query) {
    return (
      <p>
        Nothing here answers “{filters.query}” well enough to buy: no listing passed the relevance floor. Try other
        words, or <a href="/">clear the filters</a>.
      </p>
    );
  }
  return (
    <p>
      No listing matches these filters. <a href="/">Clear the filters</a> or try another word.
    </p>
  );
}

function Results({ document, filters }: Pick<HomeView, "document" | "filters">): VNode {
  const { items, pagination } = document;
  const order = SORT_LABELS[!filters.query && filters.sort === "relevance" ? "newest" : filters.sort].toLowerCase();
  return (
    <section class="results" aria-labelledby="results">
      <h2 id="results" aria-live="polite">
        {filters.query ? `${pagination.total} matching “${filters.query}”` : `${pagination.total} listings`}
      </h2>
      {items.length > 0 && (
        <p class="muted">
          {filters.health === "any"
            ? `Healthy first, then not re-probed yet, drifted, unhealthy; ${order} within each.`
            : `${HEALTH_LABELS[filters.health]} listings only, ${order}.`}
          {!isUnfiltered(filters) && (
            <>
              {" "}
              <a href="/">Clear the filters</a>
            </>
          )}
        </p>
      )}
      {items.length === 0 ? (
        <Empty filters={filters} />
      ) : (
        <ul class="cards" aria-labelledby="results">
          {items.map((item) => (
            <Card key={item.metadata.listingId} item={item} />
          ))}
        </ul>
      )}
      <Pager filters={filters} total={pagination.total} />
    </section>
  );
}

function Home(view: HomeView): VNode {
  const { document, filters, networks } = view;
  const { listingFee } = document;
  const summary = isUnfiltered(filters) && filters.offset === 0 ? Summary(view) : null;
  return (
    <>
      <h1>Paid APIs for agents, paid per call with x402</h1>
      <p class="lead">
        A free catalog of HTTP endpoints that charge per call in USDC over x402: find one, call it, and pay its seller
        directly — the marketplace never holds funds.{" "}
        {/* Left out on a phone, where the results come first (the Sell link of the header leads there too). */}
        <span class="wide">
          {`Sellers list an endpoint for a ${listingFee.usdc} USDC fee (${listingFee.ttlDays} days). `}
          <a href="/sell.html">List yours</a>.
        </span>
      </p>
      <Filters filters={filters} networks={networks} />
      {/* Results come before the summary in the document: first on a phone, the summary beside them on a wide screen. */}
      <div class={summary ? "layout with-summary" : "layout"}>
        <Results document={document} filters={filters} />
        {summary}
      </div>
    </>
  );
}

export function homePage(view: HomeView): string {
  return renderPage({
    title: view.filters.query ? `Search: ${view.filters.query}` : "Catalog",
    siteName: view.siteName,
    description: "A catalog of x402-paid HTTP endpoints for AI agents: search, filter and inspect listings.",
    jsonTwin: view.jsonTwin,
    children: <Home {...view} />,
  });
}
