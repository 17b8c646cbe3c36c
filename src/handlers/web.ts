// The web area (spec/web.tsp): pages for people, rendered from the very documents agents read
// (the catalog and search documents, the listing document, the sell playbook and fee card), with
// the same ETag/304 and response cache as those documents.
import type { operations } from "../../generated/openapi.js";
import { taggedText } from "../contract/rendered.js";
import { listDocument, searchDocument } from "../documents/discovery.js";
import { feeCard } from "../documents/listing-fee.js";
import { sellPlaybook } from "../documents/playbooks.js";
import { linkTo } from "../market/links.js";
import { catalogCounts, catalogState, listPage, liveListing, searchPage, type CatalogState } from "../queries/catalog.js";
import { listingDocumentOf } from "../queries/listing-document.js";
import { contentSecurityPolicy } from "../web/assets.js";
import { pathWithQuery } from "../web/format.js";
import { homePage, type HomeFilters } from "../web/home-page.js";
import { listingPage, missingListingPage } from "../web/listing-page.js";
import { sellPage } from "../web/sell-page.js";
import type { Handler, ListingReadContext } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

type HomeQuery = NonNullable<operations["getHomePage"]["parameters"]["query"]>;

const PAGE_HEADERS = { "Content-Security-Policy": contentSecurityPolicy(), "X-Content-Type-Options": "nosniff" as const };
const SCRIPT_PAGE_HEADERS = { ...PAGE_HEADERS, "Content-Security-Policy": contentSecurityPolicy({ script: true }) };

const LISTING_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A rendered page with its weak ETag and headers, reusable while the catalog freshness `token` holds. */
function htmlPage(html: string, token: string, headers: typeof PAGE_HEADERS = PAGE_HEADERS) {
  const reply = taggedText(html, "text/html", token);
  return { ...reply, headers: { ...reply.headers, ...headers } };
}

function filtersOf(query: HomeQuery): HomeFilters {
  return {
    query: query.query?.trim() ?? "",
    network: query.network ?? "",
    health: query.health ?? "any",
    verified: query.verified === true,
    includeSeed: query.includeSeed === true,
    sort: query.sort ?? "newest",
    minCalls: query.minCalls,
    limit: query.limit ?? 20,
    offset: query.offset ?? 0,
  };
}

/**
 * The document the home page shows and its address: the catalog (`/bazaar.json`) read as its
 * handler reads it, or with a search text the search (`/discovery/search`).
 */
async function homeDocument(filters: HomeFilters, services: ListingReadContext, state: CatalogState) {
  const { limit, offset } = filters;
  const trust = {
    network: filters.network || undefined,
    health: filters.health === "any" ? undefined : filters.health,
    verified: filters.verified || undefined,
    minCalls: filters.minCalls,
    sort: filters.sort === "newest" ? undefined : filters.sort,
    includeSeed: filters.includeSeed || undefined,
  };
  if (filters.query) {
    const query = { query: filters.query, ...trust, limit, offset };
    const document = searchDocument(services, await searchPage(services, state, query, "catalog"));
    return { document, jsonTwin: pathWithQuery("/discovery/search", query) };
  }
  const list = await listPage(services, state, { ...trust, limit, offset });
  const document = listDocument(services, { ...list, describeFilters: false });
  return { document, jsonTwin: pathWithQuery("/bazaar.json", { ...trust, limit, offset }) };
}

/** `/`: the catalog as cards, with search, filters and paging. */
const getHomePage: Handler<"getHomePage"> = async (input, services) => {
  const state = await catalogState(services);
  const filters = filtersOf(input.query);
  const [{ document, jsonTwin }, counts] = await Promise.all([homeDocument(filters, services, state), catalogCounts(services, state)]);
  const html = homePage({ siteName: services.market.name, document, filters, networks: [services.market.network], jsonTwin, byHealth: counts.byHealth });
  return htmlPage(html, state.token);
};

/** `/listing/{id}`: the listing document (`GET /listings/{id}`) as a page; an HTML 404 when it is not live. */
const getListingPage: Handler<"getListingPage"> = async (input, services) => {
  const { id } = input.params;
  const { token } = await catalogState(services);
  const listing = LISTING_ID.test(id) ? await liveListing(services, id) : null;
  if (!listing) {
    return { status: 404, headers: PAGE_HEADERS, contentType: "text/html", body: missingListingPage(services.market.name, id) };
  }
  const document = await listingDocumentOf(listing, services);
  const html = listingPage({ siteName: services.market.name, marketUrl: services.market.baseUrl, document, jsonTwin: `/listings/${listing.id}` });
  return htmlPage(html, token);
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
