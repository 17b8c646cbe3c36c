// The trust filters (health, verified, minCalls) and orders (popular, price, priceDesc, uptime) give exactly what a
// plain filter and sort of every row would, on both databases: catalog pages, searches with few
// matches (ranked in memory) and with many (walking the sort index), and the feed.
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEW_MATCHES, SEEK_STRIDE } from "../../src/storage/catalog/catalog-reads.js";
import { catalogView } from "../../src/storage/catalog/catalog-filters.js";
import type { CatalogView, Listing } from "../../src/storage/listing/listing-store.js";
import { testDatabaseKinds } from "./databases.js";
import { at, listingInput, openStore, type StoreContext } from "./fixtures.js";

const ROWS = 600;
const NOW = at(0);
const HEALTH = ["healthy", "unhealthy", "drifted", "unknown"] as const;
// Ties, and a fraction (1/3) that must survive a seek key's round trip exactly.
const UPTIMES = [0, 0.25, 1 / 3, 0.5, 0.9, 0.999, 1];

function rowFor(i: number) {
  const input = listingInput({ description: i % 2 === 0 ? `Omega service ${i}` : `Plain service ${i}` });
  const priceMicros = BigInt(1_000 + ((i * 7919) % 50) * 1_000);
  return {
    ...input,
    sellerPayTo: getAddress(input.sellerPayTo),
    priceUsdc: (Number(priceMicros) / 1e6).toString(),
    priceAtomic: priceMicros.toString(),
    priceMicros,
    inputSchema: undefined,
    // A few rows indexed from other catalogs: shown with source=all only.
    state: i % 37 === 0 ? "failed" : i % 13 === 0 ? "indexed" : "active",
    leftoverSeed: false,
    healthStatus: HEALTH[i % 4]!,
    ownerVerified: i % 3 === 0,
    // Many ties: the order within a tie is newest first.
    calls30d: (i * 31) % 17,
    uptime7d: UPTIMES[(i * 5) % UPTIMES.length]!,
    listedAt: at(-ROWS + Math.floor(i / 2)),
    expiresAt: at(10_000),
  };
}

const newestFirst = (a: Listing, b: Listing) =>
  b.listedAt.getTime() - a.listedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
const ORDERS = {
  newest: newestFirst,
  popular: (a: Listing, b: Listing) => b.calls30d - a.calls30d || newestFirst(a, b),
  price: (a: Listing, b: Listing) =>
    a.priceMicros < b.priceMicros ? -1 : a.priceMicros > b.priceMicros ? 1 : newestFirst(a, b),
  // Dearest first is cheapest first read backwards: oldest first within a price.
  priceDesc: (a: Listing, b: Listing) =>
    a.priceMicros > b.priceMicros ? -1 : a.priceMicros < b.priceMicros ? 1 : newestFirst(b, a),
  uptime: (a: Listing, b: Listing) => b.uptime7d - a.uptime7d || newestFirst(a, b),
};

describe.each(testDatabaseKinds())("trust filters and orders on $kind", (kind) => {
  let ctx: StoreContext;
  let visible: Listing[];

  beforeAll(async () => {
    ctx = await openStore(kind);
    await ctx.db.prisma.listing.createMany({ data: Array.from({ length: ROWS }, (_, i) => rowFor(i)) });
    visible = (await ctx.db.prisma.listing.findMany()).filter((row) => row.expiresAt > NOW);
  }, 60_000);
  afterAll(() => ctx?.close());

  const ids = (rows: Listing[]) => rows.map((row) => row.id);
  const expectedFor = (view: CatalogView, match: (row: Listing) => boolean = () => true) =>
    visible
      .filter((row) => (view.source === "all" ? ["active", "indexed"] : ["active"]).includes(row.state))
      .filter(
        (row) =>
          (!view.health || row.healthStatus === view.health) &&
          (!view.verified || row.ownerVerified) &&
          row.calls30d >= (view.minCalls ?? 0),
      )
      .filter(match)
      .sort(ORDERS[view.sort ?? "newest"]);

  const views: Array<[string, CatalogView]> = [
    ["healthy only", catalogView({ health: "healthy" }, false)!],
    ["drifted, most sold first", catalogView({ health: "drifted", sort: "popular" }, false)!],
    ["verified, cheapest first", catalogView({ verified: true, sort: "price" }, false)!],
    ["at least 9 sales, most sold first", catalogView({ minCalls: 9, sort: "popular" }, false)!],
    ["everything, cheapest first", catalogView({ health: "any", sort: "price" }, false)!],
    ["everything, most sold first", catalogView({ sort: "popular" }, false)!],
    ["everything, dearest first", catalogView({ sort: "priceDesc" }, false)!],
    ["verified, dearest first", catalogView({ verified: true, sort: "priceDesc" }, false)!],
    ["everything, most reliable first", catalogView({ sort: "uptime" }, false)!],
    ["healthy, most reliable first", catalogView({ health: "healthy", sort: "uptime" }, false)!],
    [
      "at least 5 sales, verified, most reliable first",
      catalogView({ minCalls: 5, verified: true, sort: "uptime" }, false)!,
    ],
    // Both sources: two ranges of the sort index merged.
    ["both sources, most reliable first", catalogView({ source: "all", sort: "uptime" }, false)!],
    ["both sources, dearest first", catalogView({ source: "all", sort: "priceDesc" }, false)!],
    // Not a contract value: the web page reads its healthy-first order one health group at a time.
    ["not re-probed yet, cheapest first", catalogView({ health: "unknown", sort: "price" }, false)!],
  ];

  it.each(views)("%s: every page of the catalog is the plain filter and sort's", async (_name, view) => {
    const expected = expectedFor(view);
    expect(expected.length).toBeGreaterThan(20);
    for (const shared of ["state", undefined]) {
      const seen: string[] = [];
      for (let offset = 0; offset < expected.length + 10; offset += 23) {
        const page = await ctx.store.catalog.page(view, { limit: 23, offset, now: NOW, token: shared });
        expect(page.total).toBe(expected.length);
        seen.push(...ids(page.rows));
      }
      expect(seen).toEqual(ids(expected));
    }
  });

  it.each([
    ["everything, cheapest first", catalogView({ health: "any", sort: "price" }, false)!],
    ["everything, most sold first", catalogView({ sort: "popular" }, false)!],
    ["everything, dearest first", catalogView({ sort: "priceDesc" }, false)!],
    ["everything, most reliable first", catalogView({ sort: "uptime" }, false)!],
    ["both sources, most reliable first", catalogView({ source: "all", sort: "uptime" }, false)!],
  ])(
    "%s: a deep page seeks to a checkpoint of the sorted order (every SEEK_STRIDE rows) and is the plain sort's, ties included",
    async (_name, view) => {
      const expected = expectedFor(view);
      expect(expected.length).toBeGreaterThan(2 * SEEK_STRIDE);
      for (const offset of [255, 256, 257, 300, 511, 512, 513, expected.length - 20, expected.length - 1]) {
        for (const shared of [`seek ${offset}`, "seek", undefined]) {
          const page = await ctx.store.catalog.page(view, { limit: 20, offset, now: NOW, token: shared });
          expect(ids(page.rows), `offset ${offset} ${shared ?? "no token"}`).toEqual(
            ids(expected.slice(offset, offset + 20)),
          );
        }
      }
    },
  );

  it.each(views)(
    "%s: a search with many matches (walking the order's index) and one with few (ranked in memory) page the same way",
    async (_name, view) => {
      const many = expectedFor(view, (row) => /omega/i.test(row.description));
      const searched = async (text: string, total: number) => {
        const seen: string[] = [];
        for (let offset = 0; offset < total; offset += 29) {
          const page = await ctx.store.catalog.search(view, text, { limit: 29, offset, now: NOW, token: "search" });
          expect(page.total).toBe(total);
          seen.push(...ids(page.rows));
        }
        return seen;
      };
      const manyFound = await searched("omega", many.length);
      // A sorted search orders every match by the sort; the default keeps relevance (all are class 0 here).
      expect(manyFound).toEqual(ids(many));
      const few = expectedFor(view, (row) => /omega service 1\d\d\b/i.test(row.description));
      expect(few.length).toBeLessThanOrEqual(FEW_MATCHES);
      expect(
        await searched("omega service 1", expectedFor(view, (row) => /omega service 1/i.test(row.description)).length),
      ).toEqual(ids(expectedFor(view, (row) => /omega service 1/i.test(row.description))));
    },
  );

  it("a search with more than FEW_MATCHES matches takes the walking path under a filter too", () => {
    expect(expectedFor({ includeSeed: false }, (row) => /service/i.test(row.description)).length).toBeGreaterThan(
      FEW_MATCHES,
    );
  });

  it("the feed keeps newest first under a health filter", async () => {
    const expected = expectedFor({ includeSeed: false, health: "unhealthy" }).slice(0, 40);
    expect(ids(await ctx.store.feed({ limit: 40, now: NOW, health: "unhealthy" }))).toEqual(ids(expected));
    expect(ids(await ctx.store.feed({ limit: 40, now: NOW, health: "any" }))).toEqual(
      ids(expectedFor({ includeSeed: false }).slice(0, 40)),
    );
  });
});
