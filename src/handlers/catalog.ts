// The catalog area (spec/catalog.tsp): the catalog lists and searches, the foreign-only view,
// the discovery index, linkset and crawl list, and the status counts.
import { x402DiscoveryManifest, x402RouteManifest } from "../documents/x402-discovery.js";
import { taggedJson } from "../contract/rendered.js";
import { crawlDocument, discoveryIndex, linkset } from "../documents/directory.js";
import { listDocument, searchDocument, searchJson } from "../documents/discovery.js";
import { foreignDocument } from "../documents/foreign.js";
import { statusDocument } from "../documents/status.js";
import {
  catalogCounts,
  catalogState,
  foreignPage,
  listPage,
  passingAnswer,
  searchPage,
  type ListQuery,
  type SearchQuery,
} from "../queries/catalog.js";
import type { CatalogAreaContext, Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

async function renderList(query: ListQuery, services: CatalogAreaContext) {
  const state = await catalogState(services);
  return taggedJson(listDocument(services, await listPage(services, state, query)), state.token);
}

async function renderSearch(query: SearchQuery, route: "catalog" | "search", services: CatalogAreaContext) {
  const state = await catalogState(services);
  const view = await searchPage(services, state, query, route);
  return taggedJson(searchDocument(services, view), passingAnswer(view.ranking) ? null : state.token, searchJson);
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
  const state = await catalogState(services);
  const { rows, counts } = await foreignPage(services, state);
  return taggedJson(foreignDocument(services, rows, counts, state.changedAt), state.token);
};

/** `/discovery` and aliases. */
const getDiscoveryIndex: Handler<"getDiscoveryIndex"> = (_input, services) => ({
  status: 200,
  body: discoveryIndex(services),
});

/** `/bazaar.links.json`, `/linkset.json`. */
const getLinkset: Handler<"getLinkset"> = (_input, services) => ({
  status: 200,
  contentType: "application/linkset+json",
  body: linkset(services.market),
});

/** `/.well-known/x402`: the x402 `discovery` extension's manifest of this host. */
const getX402Discovery: Handler<"getX402Discovery"> = (_input, services) => ({
  status: 200,
  body: x402DiscoveryManifest(services.market, {
    peers: services.discovery.peers,
    signer: services.discovery.signer.address,
    updated: services.discovery.startedAt,
  }),
});

/** `/.well-known/x402.json`: this origin's paid route, as the well-known manifest describes it. */
const getX402RouteManifest: Handler<"getX402RouteManifest"> = (_input, services) => ({
  status: 200,
  body: x402RouteManifest(services.market, services.discovery.startedAt),
});

/** `/status.json`, `/status`: counts and the listing fee. */
const getStatus: Handler<"getStatus"> = async (_input, services) => {
  const state = await catalogState(services);
  return taggedJson(statusDocument(services, await catalogCounts(services, state), state.changedAt), state.token);
};

/** `/crawl.json`, `/crawl`. */
const getCrawl: Handler<"getCrawl"> = (_input, services) => ({ status: 200, body: crawlDocument(services) });

export const catalogHandlers: AreaHandlers<"catalog"> = {
  getX402Discovery,
  getX402RouteManifest,
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
