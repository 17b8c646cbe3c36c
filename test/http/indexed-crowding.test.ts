// Indexed rows against a paid listing over HTTP, on each database: a source can serve any number of
// keyword-stuffed free rows, and none of them may hide or outrank the paid listing for its own words.
// 2,000 rows here, 25 times the 80 candidates a side picks, where the filter used to cut after them
// (test/search/adversarial-ranking.test.ts holds 10,000 against the engine itself); no backfill, so
// the model does not spend the suite's CPU embedding them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sellerAddress, startCatalogServer, T0, type CatalogServer } from "../support/catalog.js";
import { testDatabaseKinds } from "../storage/databases.js";

const STUFFED = 2_000;
type Item = {
  metadata: { listingId: string; source: string; rankReasons?: { stuffing?: boolean; trust: { indexed: boolean } } };
};
interface SearchDocument {
  items: Item[];
  searchMode?: string;
}

describe.each(testDatabaseKinds())("indexed rows crowding a paid listing on $kind", (database) => {
  let market: CatalogServer;
  let paid: string;

  beforeAll(async () => {
    market = await startCatalogServer(database, { SEARCH_SEMANTIC: "true", SEARCH_BACKFILL_DUTY: "0" });
    ({ id: paid } = await market.list({
      description: "Hourly and 7-day weather forecast for any city: temperature, rain and wind.",
    }));
    const day = 24 * 60 * 60 * 1000;
    const rows = Array.from({ length: STUFFED }, (_, n) => ({
      resource: `https://free-weather-${n}.example/forecast`,
      method: "GET",
      priceUsdc: "0.001",
      priceAtomic: "1000",
      priceMicros: 1000n,
      description:
        "weather forecast weather forecast weather forecast weather forecast weather forecast free weather forecast",
      sellerPayTo: sellerAddress(500 + (n % 50)),
      network: "eip155:8453",
      state: "indexed",
      listedAt: new Date(T0.getTime() - day),
      expiresAt: new Date(T0.getTime() + 30 * day),
      indexedKey: `GET https://free-weather-${n}.example/forecast`,
      indexedSource: "bazaar:stuffed.example",
    }));
    const prisma = market.server.database.prisma as unknown as {
      listing: { createMany(args: { data: unknown[] }): Promise<unknown> };
    };
    for (let at = 0; at < rows.length; at += 1000) await prisma.listing.createMany({ data: rows.slice(at, at + 1000) });
    // The engine takes the rows in as it follows the database.
    const ranker = (market.server.contexts.catalog as { ranker?: { service: { stats(): Promise<{ size: number }> } } })
      .ranker!.service;
    const deadline = Date.now() + 240_000;
    while (
      (await ranker.stats()).size < STUFFED + 1 ||
      (await market.json<SearchDocument>("/discovery/search?query=weather")).body.searchMode !== "hybrid"
    ) {
      if (Date.now() > deadline) throw new Error(`the engine holds ${(await ranker.stats()).size} listings`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 300_000);
  afterAll(async () => {
    await market?.close();
  });

  it(`the default search (paid listings) still answers the paid listing first, beside ${STUFFED} stuffed indexed rows`, async () => {
    const { body } = await market.json<SearchDocument>(
      `/discovery/search?query=${encodeURIComponent("weather forecast")}`,
    );
    expect(body.items[0]?.metadata.listingId).toBe(paid);
  });

  it("with source=all the paid listing ranks first, the indexed rows after it, marked", async () => {
    const { body } = await market.json<SearchDocument>(
      `/discovery/search?query=${encodeURIComponent("weather forecast")}&source=all&limit=5`,
    );
    expect(body.items[0]?.metadata.listingId).toBe(paid);
    const rest = body.items.slice(1);
    expect(rest.length).toBeGreaterThan(0);
    for (const item of rest)
      expect(item.metadata).toMatchObject({
        source: "indexed",
        rankReasons: { stuffing: true, trust: { indexed: true } },
      });
  });
});
