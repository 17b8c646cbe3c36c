// Finding one listing through the free catalog routes (there is no route by id: search pages are walked).
import type { CatalogItem, MarketplaceClient } from "./marketplace-client.js";
import { ToolkitError } from "./errors.js";

const PAGE = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function searchPage(client: MarketplaceClient, query: string | undefined, cursor: string | undefined) {
  const { data, error, response } = await client.GET("/search", {
    params: { query: { includeSeed: true, limit: PAGE, ...(query && { query }), ...(cursor && { cursor }) } },
  });
  if (!data)
    throw new ToolkitError("request", `GET /search answered ${response.status}: ${error?.message ?? "no body"}`);
  return data;
}

/** The active listing with this id (seed rows included), or null. */
export async function findListingById(client: MarketplaceClient, id: string): Promise<CatalogItem | null> {
  let cursor: string | undefined;
  do {
    const page = await searchPage(client, undefined, cursor);
    const found = page.items.find((item) => item.metadata.listingId === id);
    if (found) return found;
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return null;
}

/** The active listing whose resource URL is exactly `resource`, or null. */
export async function findListingByResource(client: MarketplaceClient, resource: string): Promise<CatalogItem | null> {
  let cursor: string | undefined;
  do {
    const page = await searchPage(client, resource, cursor);
    const found = page.items.find((item) => item.resource === resource);
    if (found) return found;
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return null;
}

/** A listing by id (a UUID) or by its resource URL. */
export function findListing(client: MarketplaceClient, idOrResource: string): Promise<CatalogItem | null> {
  return UUID.test(idOrResource) ? findListingById(client, idOrResource) : findListingByResource(client, idOrResource);
}
