// What the catalog bench asks for: each read as users send it, once with one URL repeated (the
// response cache answers) and once with a distinct URL per request (the handler and the database
// answer). Each scenario also knows the catalog read (src/storage/catalog/catalog-reads.ts) its URL makes,
// so the bench can time that read's SQL on its own (db-share.ts).
import type { CatalogReads } from "../../src/storage/catalog/catalog-reads.js";
import { catalogView } from "../../src/storage/catalog/catalog-filters.js";
import { benchSeller, COMMON_WORDS, type SeededCatalog } from "./seed-listings.js";

export interface Scenario {
  name: string;
  /** The one URL the cached run repeats, if the read has one. */
  cachedPath?: string;
  /** A new URL per call for the uncached run. */
  nextPath(): string;
}

/** The same URL shape the service parses, as the catalog read it makes (the default, foreign-first view). */
export function readOf(path: string): (reads: CatalogReads, now: Date, token: string) => Promise<unknown> {
  const url = new URL(path, "http://bench");
  const number = (name: string, fallback: number) =>
    url.searchParams.has(name) ? Number(url.searchParams.get(name)) : fallback;
  const query = url.searchParams;
  const view = catalogView(
    {
      health: (query.get("health") ?? undefined) as "healthy" | undefined,
      verified: query.get("verified") === "true" || undefined,
      sort: (query.get("sort") ?? undefined) as "popular" | "price" | undefined,
    },
    false,
  )!;
  switch (url.pathname) {
    case "/discovery/resources":
      return (reads, now, token) =>
        reads.page(view, { limit: number("limit", 50), offset: number("offset", 0), now, token });
    case "/discovery/search":
      return (reads, now, token) =>
        reads.search(view, url.searchParams.get("query")!.trim(), {
          limit: number("limit", 20),
          offset: number("offset", 0),
          now,
          token,
        });
    case "/feed.json": {
      const since = url.searchParams.get("since");
      return (reads, now) =>
        reads.feed(view, { since: since ? new Date(since) : undefined, limit: number("limit", 50), now });
    }
    case "/status.json":
      return (reads, now, token) => reads.counts(now, token);
    default:
      throw new Error(`no catalog read for ${path}`);
  }
}

const int = (from: number, to: number) => from + Math.floor(Math.random() * (to - from + 1));

/**
 * Distinct spellings of one number (leading zeros), cycled: for reads whose URLs are few (offset 0,
 * the last rows), so that consecutive requests never meet a cached URL. The cycle is longer than the
 * response cache holds (4 MiB, 5,000 URLs), so each URL has left it before it comes round again.
 */
function spellings(cycle: number): (value: number) => string {
  let n = 0;
  return (value) => `${"0".repeat(n++ % cycle)}${value}`;
}

/** Scenarios over a seeded catalog; `commonWordMatches`: how many rows match "service". */
export function scenarios(catalog: SeededCatalog, commonWordMatches: number): Scenario[] {
  const { size } = catalog;
  const offset0 = spellings(300);
  const deep = spellings(300);
  // Status takes no parameters; '?' and a run of '&' is the same request to the router. The cycle
  // of 3,000 status documents (1.3 KB each) is more than the response cache's 4 MiB holds.
  let statusCount = 0;
  const sellerSubstring = () => {
    const address = benchSeller(int(1, catalog.sellers)).slice(2).toLowerCase();
    const length = int(8, 12);
    const start = int(0, 40 - length);
    return address.slice(start, start + length);
  };
  return [
    {
      name: "resources page",
      cachedPath: "/discovery/resources",
      nextPath: () => `/discovery/resources?limit=${int(1, 20)}&offset=${int(0, size - 1)}`,
    },
    {
      name: "resources offset 0",
      nextPath: () => `/discovery/resources?limit=${int(1, 20)}&offset=${offset0(0)}`,
    },
    {
      name: `resources offset size-50..size-20`,
      cachedPath: `/discovery/resources?limit=20&offset=${size - 50}`,
      nextPath: () => `/discovery/resources?limit=${int(1, 20)}&offset=${deep(int(size - 50, size - 20))}`,
    },
    {
      name: "search, distinct queries (80% seller-address substrings, 20% common words at random limit/offset)",
      cachedPath: `/discovery/search?query=${benchSeller(1).slice(-12).toLowerCase()}`,
      nextPath: () =>
        Math.random() < 0.8
          ? `/discovery/search?query=${sellerSubstring()}&limit=${int(1, 20)}`
          : `/discovery/search?query=${COMMON_WORDS[int(0, COMMON_WORDS.length - 1)]}&limit=${int(1, 20)}&offset=${int(0, 200)}`,
    },
    {
      name: `search "service", distinct pages (${commonWordMatches} matches)`,
      cachedPath: "/discovery/search?query=service",
      nextPath: () =>
        `/discovery/search?query=service&limit=${int(1, 20)}&offset=${int(0, Math.max(0, commonWordMatches - 1))}`,
    },
    {
      name: "resources sort=popular, health=healthy, distinct pages",
      cachedPath: "/discovery/resources?sort=popular&health=healthy",
      nextPath: () =>
        `/discovery/resources?sort=popular&health=healthy&limit=${int(1, 20)}&offset=${int(0, Math.min(size - 1, 5_000))}`,
    },
    {
      name: "resources sort=price, verified=true, distinct pages",
      cachedPath: "/discovery/resources?sort=price&verified=true",
      nextPath: () =>
        `/discovery/resources?sort=price&verified=true&limit=${int(1, 20)}&offset=${int(0, Math.min(Math.floor(size * 0.4) - 1, 5_000))}`,
    },
    {
      name: "search sort=price, distinct queries (seller-address substrings)",
      cachedPath: `/discovery/search?sort=price&query=${benchSeller(1).slice(-12).toLowerCase()}`,
      nextPath: () => `/discovery/search?sort=price&query=${sellerSubstring()}&limit=${int(1, 20)}`,
    },
    {
      name: "feed.json, since a random instant of the seeded range",
      cachedPath: "/feed.json",
      nextPath: () =>
        `/feed.json?since=${new Date(int(catalog.oldest.getTime(), catalog.newest.getTime())).toISOString()}`,
    },
    {
      name: "status.json (uncached: '?' + 0..2999 '&')",
      cachedPath: "/status.json",
      nextPath: () => `/status.json?${"&".repeat(statusCount++ % 3000)}`,
    },
  ];
}
