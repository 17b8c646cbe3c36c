/**
 * Type-level tests of the client (src/client), checked by `tsc --noEmit`: each `@ts-expect-error`
 * fails the build if the line below it ever compiles, i.e. if the contract stops guarding it.
 */
import { createMarketplaceClient, type ListingRequest } from "../../src/client/index.js";

const client = createMarketplaceClient({ baseUrl: "http://localhost:8402" });
const listing: ListingRequest = {
  resource: "https://seller.example/api",
  method: "POST",
  priceUsdc: "0.02",
  description: "x",
  sellerPayTo: "0x0000000000000000000000000000000000000001",
};

// Correct calls compile, and their data is typed from the contract.
export async function correct(): Promise<string[]> {
  const { data: search } = await client.GET("/search", {
    params: { query: { query: "weather", limit: 5, includeSeed: true } },
  });
  const { data: report } = await client.POST("/listings/validate", { body: listing });
  const { data: feed } = await client.GET("/feed.json", {
    params: { query: { since: "2030-01-01T00:00:00.000Z" }, header: { "If-None-Match": 'W/"x"' } },
  });
  return [...(search?.items.map((item) => item.resource) ?? []), String(report?.ok), feed?.nextSince ?? ""];
}

export async function wrong(): Promise<void> {
  // @ts-expect-error a path that is not in the contract
  await client.GET("/weather", {});
  // @ts-expect-error a method the path does not declare
  await client.POST("/status.json");
  // @ts-expect-error an unknown query parameter
  await client.GET("/search", { params: { query: { limt: 5 } } });
  // @ts-expect-error a query parameter of the wrong type
  await client.GET("/feed.json", { params: { query: { limit: "5" } } });
  // @ts-expect-error a body missing required fields
  await client.POST("/listings/validate", { body: { resource: "https://seller.example/api" } });
  // @ts-expect-error a body field of the wrong type
  await client.POST("/listings", { body: { ...listing, priceUsdc: 0.02 } });
  // @ts-expect-error a method outside the contract's enum
  await client.POST("/listings/validate", { body: { ...listing, method: "PUT" } });
  const { data } = await client.GET("/status.json");
  // @ts-expect-error the response is typed: a count is a number, not a string
  const count: string | undefined = data?.sellerListingCount;
  void count;
}
