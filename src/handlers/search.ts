import { searchCatalogDocument, type SearchQuery } from "../documents/catalog-search.js";
import { taggedJson } from "../contract/rendered.js";
import type { Handler, Services } from "../services.js";

async function renderSearch(query: SearchQuery, route: "catalog" | "search", services: Services) {
  const { token } = await services.freshness.current();
  return taggedJson(await searchCatalogDocument(query, route, services), token);
}

/** `/discovery/search`: facilitator-shaped search; the contract requires `query`. */
export const searchResources: Handler<"searchResources"> = (input, services) => renderSearch(input.query, "catalog", services);

/** `/search` and aliases: `query` or `q` optional; `excludeSeed=true` and `leftoverSeed=false` drop seed rows. */
export const searchCatalog: Handler<"searchCatalog"> = (input, services) => renderSearch(input.query, "search", services);
