// The catalog area (spec/catalog.tsp): the catalog lists and searches, the foreign-only view,
// the discovery index, linkset and crawl list, and the status counts.
import type { operations } from "../../generated/openapi.js";
import { isDefaultSeedView, showsSeed } from "../catalog/seed-filter.js";
import { EMPTY_PAGE, catalogView } from "../storage/listing-store.js";
import { taggedJson } from "../contract/rendered.js";
import { searchCatalogDocument, type SearchQuery } from "../documents/catalog-search.js";
import { crawlDocument, discoveryIndex, linkset } from "../documents/directory.js";
import { listDocument } from "../documents/discovery.js";
import { FOREIGN_PAGE_SIZE, foreignDocument } from "../documents/foreign.js";
import { statusDocument } from "../documents/status.js";
import type { Handler, Services } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

/** The query of the catalog lists (`/bazaar.json`, `/discovery/resources` and their aliases). */
type ListQuery = NonNullable<operations["getCatalog"]["parameters"]["query"]>;

async function renderList(query: ListQuery, services: Services) {
  const { token } = await services.freshness.current();
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const view = catalogView(query, showsSeed(query, "catalog"));
  const page = view ? await services.store.catalog.page(view, { limit, offset, now: services.now(), token }) : EMPTY_PAGE;
  return taggedJson(listDocument(services, { page, limit, offset, describeFilters: isDefaultSeedView(query) }), token);
}

async function renderSearch(query: SearchQuery, route: "catalog" | "search", services: Services) {
  const { token } = await services.freshness.current();
  return taggedJson(await searchCatalogDocument(query, route, services, token), token);
}

/** `/bazaar.json` and aliases: the marketplace catalog, foreign-first. */
const getCatalog: Handler<"getCatalog"> = (input, services) => renderList(input.query, services);

/** `/discovery/resources` and aliases: the facilitator-shaped catalog. */
const listResources: Handler<"listResources"> = (input, services) => renderList(input.query, services);

/** `/discovery/search`: facilitator-shaped search; the contract requires `query`. */
const searchResources: Handler<"searchResources"> = (input, services) => renderSearch(input.query, "catalog", services);

/** `/search` and aliases: `query` or `q` optional; `excludeSeed=true` and `leftoverSeed=false` drop seed rows. */
const searchCatalog: Handler<"searchCatalog"> = (input, services) => renderSearch(input.query, "search", services);

/** `/foreign.json` and aliases: third-party listings only. */
const getForeignCatalog: Handler<"getForeignCatalog"> = async (_input, services) => {
  const { token, stamp } = await services.freshness.current();
  const now = services.now();
  const page = await services.store.catalog.page({ includeSeed: false }, { limit: FOREIGN_PAGE_SIZE, offset: 0, now, token });
  const counts = await services.store.counts(now, token);
  return taggedJson(foreignDocument(services, page.rows, counts, stamp.changedAt), token);
};

/** `/discovery` and aliases. */
const getDiscoveryIndex: Handler<"getDiscoveryIndex"> = (_input, services) => ({ status: 200, body: discoveryIndex(services) });

/** `/bazaar.links.json`, `/linkset.json`. */
const getLinkset: Handler<"getLinkset"> = (_input, services) => ({ status: 200, body: linkset(services.market) });

/** `/status.json`, `/status`: counts and the listing fee. */
const getStatus: Handler<"getStatus"> = async (_input, services) => {
  const { token, stamp } = await services.freshness.current();
  const counts = await services.store.counts(services.now(), token);
  return taggedJson(statusDocument(services, counts, stamp.changedAt), token);
};

/** `/crawl.json`, `/crawl`. */
const getCrawl: Handler<"getCrawl"> = (_input, services) => ({ status: 200, body: crawlDocument(services) });

export const catalogHandlers: AreaHandlers<"catalog"> = {
  getCatalog,
  listResources,
  searchResources,
  searchCatalog,
  getForeignCatalog,
  getDiscoveryIndex,
  getLinkset,
  getStatus,
  getCrawl,
};
