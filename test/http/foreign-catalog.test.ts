import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

interface Foreign {
  version: string;
  sellerListingCount: number;
  sellerListingCountIncludingSeed: number;
  items: Array<{ metadata: { listingId: string; leftoverSeed: boolean } }>;
  sellerListings: unknown[];
  howToBuy: string[];
  howToPoll: string[];
  howToSell: string[];
  listingFee: Record<string, unknown>;
  filters: Record<string, string>;
  links: Record<string, string>;
}

describe.each(databaseKinds)("foreign catalog on $kind", (kind) => {
  let market: CatalogServer;
  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true" });
  });
  afterAll(async () => {
    await market?.close();
  });

  it("shows third-party listings only, with counts with and without the seed rows", async () => {
    const a = await market.list();
    const b = await market.list();
    const { status, body } = await market.json<Foreign>("/foreign.json");
    expect(status).toBe(200);
    expect(body.items.map((item) => item.metadata.listingId)).toEqual([b.id, a.id]);
    expect(body.sellerListings).toEqual(body.items);
    expect(body).toMatchObject({
      version: "1.70.0",
      role: "marketplace",
      x402Version: 2,
      paid: false,
      sellerListingCount: 2,
      sellerListingCountIncludingSeed: 5,
    });
    expect(body.listingFee).toEqual({
      usdc: "0.10",
      ttlDays: 30,
      payTo: market.server.contexts.listings.market.payTo,
      path: "/listings",
      method: "POST",
      network: "eip155:8453",
      asset: market.server.contexts.listings.market.asset,
    });
    for (const list of [body.howToBuy, body.howToPoll, body.howToSell]) expect(list.length).toBeGreaterThan(0);
    expect(Object.keys(body.filters).sort()).toEqual([
      "equivalentResources",
      "equivalentSearch",
      "foreignParam",
      "leftoverSeedParam",
    ]);
  });

  it("is the same document at every alias", async () => {
    const texts = await Promise.all(
      ["/foreign.json", "/foreign", "/sellers.json", "/sellers", "/bazaar/foreign", "/bazaar/foreign.json"].map(
        async (path) => (await market.server.fetch(path)).text(),
      ),
    );
    expect(new Set(texts).size).toBe(1);
  });
});
