// The web area (spec/web.tsp): pages for people, rendered from the very documents agents read
// (the catalog and search documents, the listing document, the sell playbook and fee card), with
// the same ETag/304 and response cache as those documents.
import type { operations } from "../../generated/openapi.js";
import type { Listing } from "../catalog/rows.js";
import { taggedText } from "../contract/rendered.js";
import { listDocument, searchDocument } from "../documents/discovery.js";
import { feeCard } from "../documents/listing-fee.js";
import { sellPlaybook } from "../documents/playbooks.js";
import { linkTo } from "../market/links.js";
import {
  catalogCounts,
  catalogState,
  listPage,
  liveListing,
  passingAnswer,
  searchPage,
  type CatalogState,
} from "../queries/catalog.js";
import { listingDocumentOf } from "../queries/listing-document.js";
import { RANKED_HITS } from "../queries/ranked-search.js";
import { contentSecurityPolicy } from "../web/assets.js";
import { pathWithQuery } from "../web/format.js";
import { homePage, isUnfiltered, type HomeFilters } from "../web/home-page.js";
import { listingPage, missingListingPage } from "../web/listing-page.js";
import { sellPage } from "../web/sell-page.js";
import type { Handler, ListingReadContext } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

type HomeQuery = NonNullable<operations["getHomePage"]["parameters"]["query"]>;

const PAGE_HEADERS = {
  "Content-Security-Policy": contentSecurityPolicy(),
  "X-Content-Type-Options": "nosniff" as const,
};
const SCRIPT_PAGE_HEADERS = { ...PAGE_HEADERS, "Content-Security-Policy": contentSecurityPolicy({ script: true }) };

const LISTING_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A rendered page with its weak ETag and headers, reusable while the catalog freshness `token` holds. */
function htmlPage(html: string, token: string | null, headers: typeof PAGE_HEADERS = PAGE_HEADERS) {
  const reply = taggedText(html, "text/html", token);
  return { ...reply, headers: { ...reply.headers, ...headers } };
}

function filtersOf(query: HomeQuery): HomeFilters {
  const text = query.query?.trim() ?? "";
  return {
    query: text,
    network: query.network ?? "",
    health: query.health ?? "any",
    source: query.source ?? "listed",
    verified: query.verified === true,
    includeSeed: query.includeSeed === true,
    sort: query.sort ?? (text ? "relevance" : "newest"),
    minPrice: query.minPrice ?? "",
    maxPrice: query.maxPrice ?? "",
    tags: query.tags?.trim() ?? "",
    minCalls: query.minCalls,
    limit: query.limit ?? 20,
    offset: query.offset ?? 0,
  };
}

/** The order of the page's health groups when no health is chosen: healthy first, then not re-probed yet, drifted, unhealthy. */
const HEALTH_GROUPS = ["healthy", "unknown", "drifted", "unhealthy"] as const;
type HealthGroup = (typeof HEALTH_GROUPS)[number] | "any";

/**
 * The document the home page shows and its address: the catalog (`/bazaar.json`) read as its
 * handler reads it, or with a search text the search (`/discovery/search`). With no health chosen,
 * healthy listings come first: the page is cut from the health groups one after another, each in
 * the chosen order (each group is the twin's document with that `health`), and the total is the
 * twin's. A page reads the total and the one or two groups it shows (at most all four). A search
 * the engine ranks finds every hit in one run anyway: its hits are grouped in memory instead (one
 * run, not one per group), keeping the engine's order within each group as its per-group reads would.
 */
async function homeDocument(filters: HomeFilters, services: ListingReadContext, state: CatalogState) {
  const { limit, offset } = filters;
  const trust = {
    network: filters.network || undefined,
    verified: filters.verified || undefined,
    minCalls: filters.minCalls,
    sort: filters.sort === "newest" || filters.sort === "relevance" ? undefined : filters.sort,
    includeSeed: filters.includeSeed || undefined,
    minPrice: filters.minPrice || undefined,
    maxPrice: filters.maxPrice || undefined,
    tags: filters.tags || undefined,
    source: filters.source === "listed" ? undefined : filters.source,
  };
  const health: HealthGroup = filters.health;
  const text = filters.query;
  const read = (group: HealthGroup, slice: { limit: number; offset: number }) =>
    text
      ? searchPage(services, state, { query: text, ...trust, health: group, ...slice }, "catalog")
      : listPage(services, state, { ...trust, health: group, ...slice });
  const groups = health === "any" ? HEALTH_GROUPS : [health];
  const engineRanks = text !== "" && services.ranker?.ready === true;
  const whole = await read(
    health,
    groups.length === 1 ? { limit, offset } : engineRanks ? { limit: RANKED_HITS, offset: 0 } : { limit: 0, offset: 0 },
  );
  let rows = whole.page.rows;
  const reasons = new Map("ranking" in whole ? whole.ranking?.reasons : undefined);
  const ranked = "ranking" in whole && whole.ranking !== undefined && whole.ranking.mode !== "substring";
  if (groups.length > 1 && engineRanks && ranked) {
    const groupOf = (row: Listing) => HEALTH_GROUPS.indexOf(row.healthStatus as (typeof HEALTH_GROUPS)[number]);
    rows = [...rows].sort((a, b) => groupOf(a) - groupOf(b)).slice(offset, offset + limit);
  } else if (groups.length > 1) {
    rows = [];
    let before = 0;
    for (const group of groups) {
      if (rows.length >= limit || before >= offset + limit || before >= whole.page.total) break;
      const part = await read(group, { offset: Math.max(offset - before, 0), limit: limit - rows.length });
      rows.push(...part.page.rows);
      for (const [id, why] of ("ranking" in part ? part.ranking?.reasons : undefined) ?? []) reasons.set(id, why);
      before += part.page.total;
    }
  }
  const twin = { ...trust, health: health === "any" ? undefined : health, limit, offset };
  if (text && "scope" in whole) {
    const ranking = whole.ranking && { ...whole.ranking, reasons };
    const document = searchDocument(services, {
      ...whole,
      page: { rows, total: whole.page.total },
      limit,
      offset,
      ranking,
    });
    return {
      document,
      jsonTwin: pathWithQuery("/discovery/search", { query: text, ...twin }),
      reusable: !passingAnswer(whole.ranking),
    };
  }
  const document = listDocument(services, {
    page: { rows, total: whole.page.total },
    limit,
    offset,
    describeFilters: false,
  });
  return { document, jsonTwin: pathWithQuery("/bazaar.json", twin), reusable: true };
}

/** The unfiltered first page's summary: the newest third-party listings and the most used ones (30-day sales). */
const SUMMARY_SIZE = 5;
async function homeSummary(services: ListingReadContext, state: CatalogState) {
  const [newest, popular] = await Promise.all([
    listPage(services, state, { limit: SUMMARY_SIZE, offset: 0 }),
    listPage(services, state, { sort: "popular", minCalls: 1, limit: SUMMARY_SIZE, offset: 0 }),
  ]);
  return {
    newest: listDocument(services, { ...newest, describeFilters: false }).items,
    mostUsed: listDocument(services, { ...popular, describeFilters: false }).items,
  };
}

/** `/`: the catalog as cards, with search, filters and paging. */
const getHomePage: Handler<"getHomePage"> = async (input, services) => {
  const state = await catalogState(services);
  const filters = filtersOf(input.query);
  const [{ document, jsonTwin, reusable }, counts, summary] = await Promise.all([
    homeDocument(filters, services, state),
    catalogCounts(services, state),
    isUnfiltered(filters) && filters.offset === 0 ? homeSummary(services, state) : undefined,
  ]);
  const html = homePage({
    siteName: services.market.name,
    document,
    filters,
    networks: [services.market.network],
    jsonTwin,
    byHealth: counts.byHealth,
    ...summary,
  });
  return htmlPage(html, reusable ? state.token : null);
};

/** `/listing/{id}`: the listing document (`GET /listings/{id}`) as a page; an HTML 404 when it is not live. */
const getListingPage: Handler<"getListingPage"> = async (input, services) => {
  const { id } = input.params;
  const { token } = await catalogState(services);
  const listing = LISTING_ID.test(id) ? await liveListing(services, id) : null;
  if (!listing) {
    return {
      status: 404,
      headers: PAGE_HEADERS,
      contentType: "text/html",
      body: missingListingPage(services.market.name, id),
    };
  }
  const { document, reusableUntil } = await listingDocumentOf(listing, services);
  const html = listingPage({
    siteName: services.market.name,
    marketUrl: services.market.baseUrl,
    document,
    jsonTwin: `/listings/${listing.id}`,
  });
  return reusableUntil === null ? htmlPage(html, null) : { ...htmlPage(html, token), cacheUntil: reusableUntil };
};

/** `/sell.html`: the fee, the requirements, the dry-run form and the commands to list. */
const getSellPage: Handler<"getSellPage"> = async (_input, services) => {
  const { token } = await catalogState(services);
  const { market } = services;
  const html = sellPage({
    siteName: market.name,
    marketUrl: market.baseUrl,
    playbook: sellPlaybook(market),
    fee: feeCard(market),
    listScript: linkTo(market, "listScript"),
    exampleBody: linkTo(market, "example"),
  });
  return htmlPage(html, token, SCRIPT_PAGE_HEADERS);
};

export const webHandlers: AreaHandlers<"web"> = { getHomePage, getListingPage, getSellPage };
