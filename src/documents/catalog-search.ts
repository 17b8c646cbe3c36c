import type { operations } from "../../generated/openapi.js";
import type { CatalogReadContext } from "./context.js";
import { searchDocument, type DiscoveryDocument } from "./discovery.js";
import { decodeCursor, type CursorScope } from "../catalog/search-cursor.js";
import { showsSeed } from "../catalog/seed-filter.js";
import { EMPTY_PAGE, catalogView } from "../storage/listing-store.js";

/**
 * The search parameters of the discovery routes (and of the MCP tool `list_market`): those of the
 * lenient `/search`, whose `query` is optional; `/discovery/search`'s (`query` required) fit them.
 */
export type SearchQuery = NonNullable<operations["searchCatalog"]["parameters"]["query"]>;

export const DEFAULT_SEARCH_LIMIT = 20;

/**
 * One page of the catalog search, as a discovery document. `route` selects the seed-filter
 * semantics (`search` is the lenient `/search`). A bad cursor throws a 400 naming `cursor`. `token`,
 * the catalog's freshness, lets reads of the same catalog state share their counts.
 */
export async function searchCatalogDocument(
  query: SearchQuery,
  route: "catalog" | "search",
  services: CatalogReadContext,
  token?: string,
): Promise<DiscoveryDocument> {
  const text = (query.query ?? query.q)?.trim() || null;
  const includeSeed = showsSeed(query, route);
  const scope: CursorScope = {
    query: text,
    includeSeed,
    type: query.type,
    payTo: query.payTo,
    network: query.network,
    scheme: query.scheme,
    extensions: query.extensions,
  };
  const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
  const offset = query.cursor === undefined ? (query.offset ?? 0) : decodeCursor(query.cursor, scope);
  const view = catalogView(query, includeSeed);
  const page = view ? await services.store.catalog.search(view, text ?? "", { limit, offset, now: services.now(), token }) : EMPTY_PAGE;
  return searchDocument(services, { page, limit, offset, scope });
}
