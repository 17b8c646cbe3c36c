// The catalog page's search when the ranking engine answers (SEARCH_SEMANTIC=on): healthy listings
// first, then not re-probed yet, drifted and unhealthy, each group in the engine's order (the JSON
// twin's order, grouped by a stable sort in memory), on every page and in a sorted order too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { testDatabaseKinds } from "../storage/databases.js";

type Item = { metadata: { listingId: string; health: { status: string } } };
interface SearchDocument {
  items: Item[];
  searchMode?: string;
}

const GROUP: Record<string, number> = { healthy: 0, unknown: 1, drifted: 2, unhealthy: 3 };
const [sqlite] = testDatabaseKinds();

describe("the catalog page over the ranking engine", () => {
  let market: CatalogServer;

  beforeAll(async () => {
    market = await startCatalogServer(sqlite!, { SEARCH_SEMANTIC: "true" });
    const plan = [
      ["Hourly weather forecasts for any city: temperature and rain.", "unhealthy"],
      ["Seven-day weather forecast with wind and humidity.", "healthy"],
      ["Weather alerts and storm warnings by region.", "unknown"],
      ["Historical weather observations since 1950.", "drifted"],
      ["Marine weather forecast for sailors: waves and tides.", "healthy"],
      ["Weather radar images as JSON tiles.", "unhealthy"],
    ] as const;
    for (const [i, [description, health]] of plan.entries()) {
      const { id } = await market.list({ description, priceUsdc: `0.0${i + 1}` });
      if (health !== "unknown") {
        await market.server.contexts.listings.store.transactions.write(market.clock.now(), async (tx) => {
          await tx.listing.update({ where: { id }, data: { healthStatus: health } });
          return { result: undefined, changed: true };
        });
      }
    }
    const deadline = Date.now() + 150_000;
    while ((await market.json<SearchDocument>("/discovery/search?query=weather")).body.searchMode !== "hybrid") {
      if (Date.now() > deadline) throw new Error("the search engine did not become ready");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // And every listing on the model's vector (the backfill job): a listing still on the encoder's
    // stand-in may fall on either side of the meaning threshold, so a filtered and an unfiltered
    // answer asked moments apart could disagree on a machine slow enough to leave the backfill behind.
    const search = (
      market.server.contexts.catalog as { ranker?: { service: { stats(): Promise<{ pending: number }> } } }
    ).ranker!.service;
    while ((await search.stats()).pending > 0) {
      if (Date.now() > deadline)
        throw new Error(`the backfill left ${(await search.stats()).pending} listings on the stand-in vector`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 180_000);
  afterAll(async () => {
    await market?.close();
  });

  const cards = async (path: string) => {
    const page = await (await market.server.fetch(path)).text();
    const start = page.indexOf('<ul class="cards"');
    if (start < 0) return [];
    return [...page.slice(start, page.indexOf("</section>", start)).matchAll(/<h3><a href="\/listing\/([^"]+)"/g)].map(
      (match) => match[1]!,
    );
  };

  it.each(["query=weather%20forecast", "query=weather%20forecast&sort=price", "query=weather&sort=priceDesc"])(
    "/?%s: healthy first, the engine's order within each group, on every page",
    async (query) => {
      const { body } = await market.json<SearchDocument>(`/discovery/search?${query}&limit=100`);
      expect(body.searchMode).toBe("hybrid");
      const expected = [...body.items]
        .sort((a, b) => GROUP[a.metadata.health.status]! - GROUP[b.metadata.health.status]!)
        .map((item) => item.metadata.listingId);
      expect(expected.length).toBeGreaterThan(2);
      expect(await cards(`/?${query}`)).toEqual(expected);
      const paged: string[] = [];
      for (let offset = 0; offset < expected.length; offset += 2)
        paged.push(...(await cards(`/?${query}&limit=2&offset=${offset}`)));
      expect(paged).toEqual(expected);
      // One health chosen: that group alone, as its JSON twin ranks it (the engine ranks within the
      // filtered rows, so ties between near scores may fall otherwise than in the unfiltered run).
      const healthy = expected.filter(
        (id) => body.items.find((item) => item.metadata.listingId === id)!.metadata.health.status === "healthy",
      );
      const twin = (
        await market.json<SearchDocument>(`/discovery/search?${query}&health=healthy&limit=100`)
      ).body.items.map((item) => item.metadata.listingId);
      expect([...twin].sort()).toEqual([...healthy].sort());
      expect(await cards(`/?${query}&health=healthy`)).toEqual(twin);
    },
  );
});
