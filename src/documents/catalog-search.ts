import type { operations } from "../../generated/openapi.js";
import type { CatalogReadContext } from "./context.js";
import { searchDocument, type DiscoveryDocument } from "./discovery.js";
import { decodeCursor, type CursorScope } from "../catalog/search-cursor.js";
import { showsSeed } from "../catalog/seed-filter.js";

/**
 * The search parameters of the discovery routes (and of the MCP tool `list_market`): those of the
 * lenient `/search`, whose `query` is optional; `/discovery/search`'s (`query` required) fit them.
 */
export type SearchQuery = NonNullable<operations["searchCatalog"]["parameters"]["query"]>;

export const DEFAULT_SEARCH_LIMIT = 20;

/**
 * One page of the catalog search, as a discovery document. `route` selects the seed-filter
 * semantics (`search` is the lenient `/search`). A bad cursor throws a 400 naming `cursor`.
 */
export async function searchCatalogDocument(query: SearchQuery, route: "catalog" | "search", services: CatalogReadContext): Promise<DiscoveryDocument> {
  const text = (query.query ?? query.q)?.trim() || null;
  const scope: CursorScope = {
    query: text,
    includeSeed: showsSeed(query, route),
    type: query.type,
    payTo: query.payTo,
    network: query.network,
    scheme: query.scheme,
  };
  const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
  const offset = query.cursor === undefined ? (query.offset ?? 0) : decodeCursor(query.cursor, scope);
  // Every listed endpoint is an HTTP resource: an `mcp` type filter matches nothing.
  const page =
    query.type === "mcp"
      ? { rows: [], total: 0 }
      : await services.store.search({ ...scope, query: text ?? undefined, limit, offset, now: services.now() });
  return searchDocument(services, { page, limit, offset, cursor: query.cursor ?? null, scope });
}
