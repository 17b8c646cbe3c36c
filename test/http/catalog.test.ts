import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

interface Item {
  resource: string;
  method: string;
  accepts: Array<{ amount: string; payTo: string; asset: string; scheme: string; network: string; maxTimeoutSeconds: number; extra: object }>;
  metadata: { listingId: string; priceUsdc: string; leftoverSeed: boolean; expiresAt: string; salePayTo: string; saleTakeBps: number };
}
interface ListDocument {
  items: Item[];
  pagination: { limit: number; offset: number; total: number };
  filters?: Record<string, string>;
}

describe.each(databaseKinds)("catalog views on $kind", (kind) => {
  let market: CatalogServer;
  const resources = (query = "") => market.json<ListDocument>(`/discovery/resources${query}`);

  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true" });
  });
  afterAll(async () => {
    await market?.close();
  });

  it("starts with only the hidden seed rows", async () => {
    const { status, body } = await resources();
    expect(status).toBe(200);
    expect(body.items).toEqual([]);
    expect(body.pagination).toEqual({ limit: 50, offset: 0, total: 0 });
    expect(body.filters).toBeDefined();
    const seeded = await resources("?includeSeed=true");
    expect(seeded.body.items.map((item) => new URL(item.resource).pathname).sort()).toEqual(["/kr-echo", "/kr-fortune", "/kr-time"]);
    expect(seeded.body.items.every((item) => item.metadata.leftoverSeed && item.resource.startsWith(market.server.services.config.publicBaseUrl))).toBe(true);
    expect(seeded.body.filters).toBeUndefined();
  });

  it("builds every item exactly as the spec's tables say, with exact atomic amounts", async () => {
    const created = await market.list({ priceUsdc: "0.03", method: "GET", resource: "https://weather.example.com/today" });
    const { body } = await resources();
    const item = body.items.find((candidate) => candidate.metadata.listingId === created.id)!;
    const { market: facts } = market.server.services;
    expect(item).toEqual({
      x402Version: 2,
      type: "http",
      resource: "https://weather.example.com/today",
      method: "GET",
      description: created.description,
      mimeType: "application/json",
      lastUpdated: created.updatedAt.toISOString(),
      accepts: [
        {
          scheme: "exact",
          network: "eip155:8453",
          amount: "30000",
          asset: facts.asset,
          payTo: created.sellerPayTo,
          maxTimeoutSeconds: 300,
          extra: { name: "USD Coin", version: "2" },
        },
      ],
      metadata: {
        marketplace: facts.name,
        listingId: created.id,
        priceUsdc: "0.03",
        listedAt: created.listedAt.toISOString(),
        expiresAt: new Date(created.listedAt.getTime() + 30 * DAY_MS).toISOString(),
        salePayTo: created.sellerPayTo,
        saleTakeBps: 0,
        leftoverSeed: false,
      },
    });
  });

  it("converts prices exactly, never through floats", async () => {
    const cases: Array<[string, string]> = [["0.000001", "1"], ["1.1", "1100000"], ["0.29", "290000"], ["123456.789012", "123456789012"]];
    const ids = new Map<string, string>();
    for (const [price] of cases) ids.set((await market.list({ priceUsdc: price })).id, price);
    const { body } = await resources("?limit=200");
    for (const item of body.items.filter((candidate) => ids.has(candidate.metadata.listingId))) {
      const price = ids.get(item.metadata.listingId)!;
      expect(item.accepts[0]!.amount).toBe(cases.find(([p]) => p === price)![1]);
    }
  });

  it("applies the seed filter parameters as the spec's table says", async () => {
    const seedCount = async (query: string) => (await resources(query)).body.items.filter((item) => item.metadata.leftoverSeed).length;
    for (const query of ["?includeSeed=true", "?excludeSeed=false", "?leftoverSeed=true", "?foreign=false"]) expect(await seedCount(query), query).toBe(3);
    for (const query of ["", "?includeSeed=false", "?excludeSeed=true", "?leftoverSeed=false", "?foreign=true"]) expect(await seedCount(query), query).toBe(0);
    const catalog = await market.json<ListDocument>("/bazaar.json?includeSeed=true");
    expect(catalog.body.items.filter((item) => item.metadata.leftoverSeed)).toHaveLength(3);
  });

  it("pages newest first with limit and offset and reports the total", async () => {
    const all = (await resources("?limit=200")).body;
    const total = all.pagination.total;
    expect(total).toBeGreaterThanOrEqual(5);
    const listedAt = all.items.map((item) => item.metadata.listingId);
    const first = (await resources("?limit=2&offset=0")).body;
    const second = (await resources("?limit=2&offset=2")).body;
    expect(first.pagination).toEqual({ limit: 2, offset: 0, total });
    expect([...first.items, ...second.items].map((item) => item.metadata.listingId)).toEqual(listedAt.slice(0, 4));
    expect((await resources(`?offset=${total}`)).body.items).toEqual([]);
  });

  it("serves identical bytes at every alias", async () => {
    const bodies = await Promise.all(
      ["/discovery/resources", "/discovery/resources.json", "/resources", "/resources.json"].map(async (path) => (await market.server.fetch(path)).text()),
    );
    expect(new Set(bodies).size).toBe(1);
    const catalogs = await Promise.all(
      ["/bazaar.json", "/catalog.json", "/catalog", "/market.json", "/market", "/discovery/catalog.json", "/discovery/catalog"].map(async (path) => (await market.server.fetch(path)).text()),
    );
    expect(new Set(catalogs).size).toBe(1);
  });

  it("hides an expired listing from every view and count at that instant, without any write", async () => {
    const doomed = await market.list({ description: "This listing is about to expire soon" });
    const visible = async () => {
      const ids = (await resources("?limit=200")).body.items.map((item) => item.metadata.listingId);
      const search = (await market.json<ListDocument>("/discovery/search?query=about%20to%20expire")).body.items.length;
      const feed = (await market.json<ListDocument>("/feed.json?limit=200")).body.items.some((item) => item.metadata.listingId === doomed.id);
      const status = (await market.json<{ sellerListingCount: number }>("/status.json")).body.sellerListingCount;
      return { listed: ids.includes(doomed.id), search, feed, status };
    };
    const before = await visible();
    expect(before).toMatchObject({ listed: true, search: 1, feed: true });
    market.clock.set(new Date(doomed.expiresAt.getTime() - 1));
    expect((await visible()).listed).toBe(true);
    market.clock.set(doomed.expiresAt);
    const after = await visible();
    expect(after).toMatchObject({ listed: false, search: 0, feed: false });
    expect(after.status).toBeLessThan(before.status);
  });
});
