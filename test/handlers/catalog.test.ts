// The catalog area: the catalog lists and searches, the foreign-only view, the discovery index,
// linkset and crawl list, and the status counts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { describeAreaRoutes, jsonOf, type RouteAnswer } from "./area-routes.js";

interface Item {
  resource: string;
  method: string;
  accepts: Array<{
    amount: string;
    payTo: string;
    asset: string;
    scheme: string;
    network: string;
    maxTimeoutSeconds: number;
    extra: object;
  }>;
  metadata: {
    listingId: string;
    priceUsdc: string;
    leftoverSeed: boolean;
    expiresAt: string;
    salePayTo: string;
    saleTakeBps: number;
  };
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
    expect(seeded.body.items.map((item) => new URL(item.resource).pathname).sort()).toEqual([
      "/kr-echo",
      "/kr-fortune",
      "/kr-time",
    ]);
    expect(
      seeded.body.items.every(
        (item) =>
          item.metadata.leftoverSeed && item.resource.startsWith(market.server.contexts.listings.config.publicBaseUrl),
      ),
    ).toBe(true);
    expect(seeded.body.filters).toBeUndefined();
  });

  it("builds every item exactly as the spec's tables say, with exact atomic amounts", async () => {
    const created = await market.list({
      priceUsdc: "0.03",
      method: "GET",
      resource: "https://weather.example.com/today",
    });
    const { body } = await resources();
    const item = body.items.find((candidate) => candidate.metadata.listingId === created.id)!;
    const { market: facts } = market.server.contexts.listings;
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
        source: "listed",
        leftoverSeed: false,
        // Inserted directly: no fee paid by its owner, never re-probed, no sales.
        ownerVerified: false,
        health: { status: "unknown" },
      },
    });
  });

  it("converts prices exactly, never through floats", async () => {
    const cases: Array<[string, string]> = [
      ["0.000001", "1"],
      ["1.1", "1100000"],
      ["0.29", "290000"],
      ["123456.789012", "123456789012"],
    ];
    const ids = new Map<string, string>();
    for (const [price] of cases) ids.set((await market.list({ priceUsdc: price })).id, price);
    const { body } = await resources("?limit=200");
    for (const item of body.items.filter((candidate) => ids.has(candidate.metadata.listingId))) {
      const price = ids.get(item.metadata.listingId)!;
      expect(item.accepts[0]!.amount).toBe(cases.find(([p]) => p === price)![1]);
    }
  });

  it("applies the seed filter parameters as the spec's table says", async () => {
    const seedCount = async (query: string) =>
      (await resources(query)).body.items.filter((item) => item.metadata.leftoverSeed).length;
    for (const query of ["?includeSeed=true", "?excludeSeed=false", "?leftoverSeed=true", "?foreign=false"])
      expect(await seedCount(query), query).toBe(3);
    for (const query of ["", "?includeSeed=false", "?excludeSeed=true", "?leftoverSeed=false", "?foreign=true"])
      expect(await seedCount(query), query).toBe(0);
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

  it("hides an expired listing from every view and count at that instant, without any write", async () => {
    const doomed = await market.list({ description: "This listing is about to expire soon" });
    const visible = async () => {
      const ids = (await resources("?limit=200")).body.items.map((item) => item.metadata.listingId);
      const search = (await market.json<ListDocument>("/discovery/search?query=about%20to%20expire")).body.items.length;
      const feed = (await market.json<ListDocument>("/feed.json?limit=200")).body.items.some(
        (item) => item.metadata.listingId === doomed.id,
      );
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

describe.each(databaseKinds)("the catalog area on $kind", (kind) => {
  let market: CatalogServer;
  /** Two foreign listings, oldest first, beside the three hidden seed rows. */
  const listed: string[] = [];
  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true" });
    listed.push((await market.list({ description: "Weather forecast for any city, hourly" })).id);
    listed.push((await market.list({ description: "Translates text between any two languages" })).id);
  });
  afterAll(async () => {
    await market?.close();
  });

  const base = () => market.server.contexts.listings.config.publicBaseUrl;
  const ids = (answer: RouteAnswer) => jsonOf<ListDocument>(answer).items.map((item) => item.metadata.listingId);
  /** A catalog list: the foreign listings newest first, no seed row, under a weak ETag. */
  const foreignFirst = (answer: RouteAnswer) => {
    expect(answer.headers.get("etag")).toMatch(/^W\//);
    expect(ids(answer)).toEqual([...listed].reverse());
    expect(jsonOf<ListDocument>(answer).pagination).toMatchObject({ offset: 0, total: 2 });
  };
  const weatherOnly = (answer: RouteAnswer) => {
    expect(answer.headers.get("etag")).toMatch(/^W\//);
    expect(ids(answer)).toEqual([listed[0]]);
    expect(jsonOf(answer).query).toBe("weather");
  };

  describeAreaRoutes("catalog", () => market.server, {
    getCatalog: { status: 200, check: foreignFirst },
    listResources: { status: 200, check: foreignFirst },
    searchResources: { status: 200, request: { query: "?query=weather" }, check: weatherOnly },
    searchCatalog: { status: 200, request: { query: "?q=weather" }, check: weatherOnly },
    getForeignCatalog: {
      status: 200,
      check(answer) {
        expect(ids(answer)).toEqual([...listed].reverse());
        expect(jsonOf(answer)).toMatchObject({ sellerListingCount: 2, sellerListingCountIncludingSeed: 5 });
      },
    },
    getDiscoveryIndex: {
      status: 200,
      check(answer) {
        expect(jsonOf(answer)).toMatchObject({
          resources: `${base()}/discovery/resources`,
          search: `${base()}/discovery/search`,
          catalog: `${base()}/bazaar.json`,
        });
      },
    },
    getLinkset: {
      status: 200,
      check(answer) {
        // RFC 9264's media type; at /.well-known/api-catalog (RFC 9727) the first context lists the API.
        expect(answer.type).toBe("application/linkset+json");
        const [catalog, context] = jsonOf<{ linkset: Array<Record<string, unknown>> }>(answer).linkset;
        expect(catalog).toEqual({
          anchor: `${base()}/.well-known/api-catalog`,
          item: [expect.objectContaining({ href: `${base()}/` })],
        });
        expect(context).toMatchObject({
          "service-desc": [expect.objectContaining({ href: `${base()}/openapi.json` })],
        });
      },
    },
    getX402Discovery: {
      status: 200,
      check(answer) {
        const manifest = jsonOf(answer);
        // discovery.md: x402Version an integer (not `version`), a kind, bare resource pointers on this host, `updated`.
        expect(manifest).toMatchObject({
          x402Version: 2,
          kind: "resource-server",
          resources: [{ url: `${base()}/listings`, method: "POST" }],
        });
        expect(manifest.version).toBeUndefined();
        expect(Number.isInteger(manifest.x402Version)).toBe(true);
        expect(Date.parse(manifest.updated)).not.toBeNaN();
        for (const resource of manifest.resources as Array<{ url: string }>)
          expect(new URL(resource.url).host).toBe(new URL(base()).host);
        expect(manifest.catalog.snapshotSigner).toMatch(/^0x[0-9a-fA-F]{40}$/);
      },
    },
    getX402RouteManifest: {
      status: 200,
      check(answer) {
        const manifest = jsonOf(answer);
        expect(manifest).toMatchObject({
          x402Version: 2,
          items: [{ type: "http", input: { method: "POST", routeTemplate: "/listings" } }],
        });
        expect(Number.isInteger(manifest.lastUpdated)).toBe(true);
        // Advisory, and the same terms as the live 402 of POST /listings.
        expect(manifest.items[0].accepts[0]).toMatchObject({
          scheme: "exact",
          amount: "100000",
          payTo: market.server.contexts.listings.market.payTo,
        });
      },
    },
    getStatus: {
      status: 200,
      check(answer) {
        expect(jsonOf(answer)).toMatchObject({
          ok: true,
          sellerListingCount: 2,
          sellerListingCountForeign: 2,
          sellerListingCountSeed: 3,
        });
      },
    },
    getCrawl: {
      status: 200,
      check(answer) {
        const { routes } = jsonOf<{ routes: Array<{ priority: number; url: string }> }>(answer);
        expect(new URL(routes[0]!.url).pathname).toBe("/discovery");
        for (const route of routes) expect(route.url.startsWith(`${base()}/`), route.url).toBe(true);
      },
    },
  });

  it("searches seed rows only when asked, on every search route", async () => {
    for (const path of [
      "/discovery/search?query=kr-&includeSeed=true",
      "/search?q=kr-&includeSeed=true",
      "/search?q=kr-&leftoverSeed=true",
    ]) {
      const { body } = await market.json<ListDocument>(path);
      expect(body.items.map((item) => new URL(item.resource).pathname).sort(), path).toEqual([
        "/kr-echo",
        "/kr-fortune",
        "/kr-time",
      ]);
    }
    expect((await market.json<ListDocument>("/search?q=kr-&includeSeed=true&excludeSeed=true")).body.items).toEqual([]);
  });
});
