import { listDocument } from "../documents/discovery.js";
import { taggedJson } from "../contract/rendered.js";
import { isDefaultSeedView, showsSeed, type SeedFilterQuery } from "../catalog/seed-filter.js";
import type { Handler, Services } from "../services.js";

interface ListQuery extends SeedFilterQuery {
  limit?: number;
  offset?: number;
}

async function renderList(query: ListQuery, services: Services) {
  const { token } = await services.freshness.current();
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const page = await services.store.page({ includeSeed: showsSeed(query, "catalog"), limit, offset, now: services.now() });
  return taggedJson(listDocument(services, { page, limit, offset, describeFilters: isDefaultSeedView(query) }), token);
}

/** `/bazaar.json` and aliases: the marketplace catalog, foreign-first. */
export const getCatalog: Handler<"getCatalog"> = (input, services) => renderList(input.query, services);

/** `/discovery/resources` and aliases: the facilitator-shaped catalog. */
export const listResources: Handler<"listResources"> = (input, services) => renderList(input.query, services);
