// `/`: what the marketplace is, the search and filter form, the catalog as cards, paging.
import type { VNode } from "preact";
import type { components } from "../../generated/openapi.js";
import { clip, formatInstant, formatShare, pathWithQuery, shortAddress } from "./format.js";
import { renderPage } from "./layout.js";

type CatalogItem = components["schemas"]["CatalogItem"];
type DiscoveryDocument = components["schemas"]["DiscoveryDocument"];

/** The home page's filters as the request gave them (defaults filled in). */
export interface HomeFilters {
  query: string;
  network: string;
  health: "any" | "healthy" | "unhealthy" | "drifted";
  verified: boolean;
  includeSeed: boolean;
  sort: "newest" | "popular" | "price";
  minCalls?: number;
  limit: number;
  offset: number;
}

export interface HomeView {
  siteName: string;
  document: DiscoveryDocument;
  filters: HomeFilters;
  /** Networks the filter offers (the marketplace's). */
  networks: string[];
  /** The JSON document this page shows (`/bazaar.json?...` or `/search?...`). */
  jsonTwin: string;
  /** Live third-party listings by health (the status document's counts), shown above an unfiltered catalog. */
  byHealth?: Record<"healthy" | "unhealthy" | "drifted" | "unknown", number>;
}

const HEALTH_LABELS = { any: "Any", healthy: "Healthy", unhealthy: "Unhealthy", drifted: "Drifted" } as const;
const SORT_LABELS = { newest: "Newest first", popular: "Most used (30 days)", price: "Cheapest first" } as const;

/** The page's own address with other filters or another offset (the defaults left out). */
export function homePath(filters: HomeFilters, change: Partial<HomeFilters> = {}): string {
  const next = { ...filters, ...change };
  return pathWithQuery("/", {
    query: next.query,
    network: next.network,
    health: next.health === "any" ? undefined : next.health,
    verified: next.verified ? "true" : undefined,
    includeSeed: next.includeSeed ? "true" : undefined,
    minCalls: next.minCalls,
    sort: next.sort === "newest" ? undefined : next.sort,
    limit: next.limit === 20 ? undefined : next.limit,
    offset: next.offset || undefined,
  });
}

export function HealthBadge({ health }: { health: CatalogItem["metadata"]["health"] }): VNode {
  const uptime = health.uptime24h === undefined ? "" : `, ${formatShare(health.uptime24h)} up in 24 h`;
  return <span class={`badge ${health.status}`}>{`${health.status}${uptime}`}</span>;
}

/** A card's title when the seller's 402 names no service: its host and first path segment (the description follows below). */
function nameOf(resource: string): string {
  try {
    const url = new URL(resource);
    const segment = url.pathname.split("/").find(Boolean);
    return clip(`${url.host}${segment ? `/${segment}` : ""}`, 60);
  } catch {
    return clip(resource, 60);
  }
}

function Card({ item }: { item: CatalogItem }): VNode {
  const { metadata } = item;
  const requirement = item.accepts[0];
  return (
    <li class="card">
      <h3>
        <a href={`/listing/${encodeURIComponent(metadata.listingId)}`}>{item.serviceName ?? nameOf(item.resource)}</a>
        {metadata.leftoverSeed && <span class="badge"> demo</span>}
      </h3>
      <p class="desc">{clip(item.description, 200)}</p>
      <p class="mono">
        <span class="badge">{item.method}</span> {item.resource}
      </p>
      <ul class="facts">
        <li>
          <strong>{metadata.priceUsdc} USDC</strong> per call
        </li>
        <li>
          <HealthBadge health={metadata.health} />
        </li>
        {metadata.ownerVerified && (
          <li>
            <span class="badge verified">verified owner</span>
          </li>
        )}
        {metadata.usage && <li>{`${metadata.usage.l30DaysTotalCalls} calls, ${metadata.usage.l30DaysUniquePayers} payers in 30 days`}</li>}
        <li>
          seller <span class="mono">{shortAddress(metadata.salePayTo)}</span>
        </li>
        {requirement && <li>{requirement.network}</li>}
        <li>until {formatInstant(metadata.expiresAt)}</li>
      </ul>
      {item.tags && <p class="facts">{item.tags.map((tag) => `#${tag}`).join(" ")}</p>}
    </li>
  );
}

function Filters({ filters, networks }: { filters: HomeFilters; networks: string[] }): VNode {
  return (
    <form class="filters" method="get" action="/" role="search" aria-label="Search the catalog">
      <div class="grow">
        <label for="query">Search</label>
        <input id="query" name="query" type="search" value={filters.query} maxLength={200} placeholder="weather, summarise, 0x…" />
      </div>
      <div>
        <label for="network">Network</label>
        <select id="network" name="network">
          <option value="" selected={filters.network === ""}>
            Any
          </option>
          {networks.map((network) => (
            <option key={network} value={network} selected={filters.network === network}>
              {network}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="health">Health</label>
        <select id="health" name="health">
          {Object.entries(HEALTH_LABELS).map(([value, label]) => (
            <option key={value} value={value} selected={filters.health === value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="sort">Order</label>
        <select id="sort" name="sort">
          {Object.entries(SORT_LABELS).map(([value, label]) => (
            <option key={value} value={value} selected={filters.sort === value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label class="check" for="verified">
          <input id="verified" name="verified" type="checkbox" value="true" checked={filters.verified} />
          Verified owners only
        </label>
      </div>
      <div>
        <button type="submit">Search</button>
      </div>
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

/** Whether the page shows the catalog as it first opens (no search, no filter). */
function unfiltered(filters: HomeFilters): boolean {
  return !filters.query && !filters.network && filters.health === "any" && !filters.verified && filters.minCalls === undefined && !filters.includeSeed;
}

function Empty({ filters }: { filters: HomeFilters }): VNode {
  if (unfiltered(filters)) {
    return (
      <p>
        No seller has listed an endpoint here yet. <a href={homePath(filters, { includeSeed: true })}>Show this marketplace's own demo endpoints</a> (marked
        “demo”: they answer with sample data), or <a href="/sell.html">list yours</a>.
      </p>
    );
  }
  return (
    <p>
      No listing matches these filters. <a href="/">Clear the filters</a> or try another word.
    </p>
  );
}

const HEALTH_COLORS = { healthy: "#1f7a3a", unknown: "#6b7380", unhealthy: "#b42318", drifted: "#b54708" } as const;

/** The catalog at a glance: how many live listings are healthy, not re-probed yet, unhealthy or drifted. */
function Summary({ byHealth }: { byHealth: NonNullable<HomeView["byHealth"]> }): VNode | null {
  const parts = (Object.keys(HEALTH_COLORS) as Array<keyof typeof HEALTH_COLORS>).map((status) => ({ status, count: byHealth[status] }));
  const total = parts.reduce((sum, part) => sum + part.count, 0);
  if (total === 0) return null;
  const summary = parts.map((part) => `${part.count} ${part.status === "unknown" ? "not re-probed yet" : part.status}`).join(", ");
  let x = 0;
  return (
    <section aria-labelledby="glance">
      <h2 id="glance">At a glance</h2>
      <figure class="chart">
        <svg viewBox="0 0 600 24" role="img" aria-label={`Live listings by health: ${summary}`} xmlns="http://www.w3.org/2000/svg">
          {parts.map((part) => {
            const width = (part.count / total) * 600;
            const rect = <rect key={part.status} x={x} y="0" width={width} height="24" fill={HEALTH_COLORS[part.status]} />;
            x += width;
            return rect;
          })}
        </svg>
        <figcaption class="twin">{`${total} live listings: ${summary}.`}</figcaption>
      </figure>
    </section>
  );
}

function Home({ document, filters, networks, byHealth }: HomeView): VNode {
  const { items, pagination, listingFee } = document;
  const searching = filters.query !== "";
  return (
    <>
      <h1>Paid APIs for agents, paid per call with x402</h1>
      <p class="lead">
        {`A free catalog of HTTP endpoints that charge per call in USDC over x402: find one, call it, and pay its seller directly — the marketplace never holds funds. Sellers list an endpoint for a ${listingFee.usdc} USDC fee (${listingFee.ttlDays} days).`}{" "}
        <a href="/sell.html">List yours</a>.
      </p>
      {byHealth && unfiltered(filters) && filters.offset === 0 && <Summary byHealth={byHealth} />}
      <Filters filters={filters} networks={networks} />
      <h2 id="results" aria-live="polite">
        {searching ? `${pagination.total} matching “${filters.query}”` : `${pagination.total} listings`}
      </h2>
      {!unfiltered(filters) && items.length > 0 && (
        <p>
          <a href="/">Clear the filters</a>
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
