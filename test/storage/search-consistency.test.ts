// A search's first read and the price and tag filters, on both databases. A search with few matches
// is read in one statement: its total and its page come from one snapshot, so a write that lands
// while the search is being answered cannot leave a page short of the rows its total counts. The
// price and tag filters are SQL of their own (catalog-sql.ts visible): checked here against a plain
// filter of every row, PostgreSQL included.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogReader } from "../../src/storage/catalog-reader.js";
import { CatalogReads } from "../../src/storage/catalog/catalog-reads.js";
import type { Listing } from "../../src/storage/listing/listing-store.js";
import { StateMemo } from "../../src/storage/catalog/state-memo.js";
import { testDatabaseKinds } from "./databases.js";
import { at, catalogSearch, listingInput, openStore, type StoreContext } from "./fixtures.js";

const NOW = at(0);
const PRICES = ["0.01", "0.05", "0.25", "1.5"];
const TAGS = [["weather"], ["weather", "Forecast"], ["stock_quote"], ["100%", "forecast"], null];

const newestFirst = (a: Listing, b: Listing) =>
  b.listedAt.getTime() - a.listedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

describe.each(testDatabaseKinds())("search reads on $kind", (kind) => {
  let ctx: StoreContext;

  beforeAll(async () => {
    ctx = await openStore(kind);
    const data = Array.from({ length: 40 }, (_, i) => {
      const priceUsdc = PRICES[i % PRICES.length]!;
      const tags = TAGS[i % TAGS.length];
      return {
        ...listingInput({ description: `Kappa lookup ${i}` }),
        priceUsdc,
        priceAtomic: String(Number(priceUsdc) * 1_000_000),
        priceMicros: BigInt(Math.round(Number(priceUsdc) * 1_000_000)),
        tags: tags ? JSON.stringify(tags) : null,
        inputSchema: undefined,
        state: "active",
        listedAt: at(-100 + i),
        expiresAt: at(10_000),
      };
    });
    await ctx.db.prisma.listing.createMany({ data });
  }, 60_000);
  afterAll(() => ctx?.close());

  it("answers a search's total and page from one snapshot while a write lands between its reads", async () => {
    // A reader that deletes one of the matches after each statement it runs: what a concurrent
    // delisting does to a search whose reads are spread over several statements.
    const victims = (
      await ctx.db.prisma.listing.findMany({ where: { description: { startsWith: "Kappa lookup" } } })
    ).sort(newestFirst);
    let deleted = 0;
    const interleaving: CatalogReader = {
      rows: async (sql, options) => {
        const rows = await ctx.db.reader.rows(sql, options);
        await ctx.db.prisma.listing.delete({ where: { id: victims[deleted++]!.id } });
        return rows;
      },
      close: () => {},
    };
    const reads = new CatalogReads(kind.kind, interleaving, new StateMemo({ maxWeight: 64 }));
    const page = await reads.search({ includeSeed: false }, "kappa", {
      limit: 10,
      offset: 0,
      now: NOW,
      token: "snapshot",
    });
    // The first match was deleted after the search's read: the reply is the catalog before it, whole.
    expect(page.total).toBe(victims.length);
    expect(page.rows.map((row) => row.id)).toEqual(victims.slice(0, 10).map((row) => row.id));
  });

  it.each([
    ["a price floor", { minPrice: "0.05" }],
    ["a price ceiling", { maxPrice: "0.25" }],
    ["a price range", { minPrice: "0.05", maxPrice: "0.25" }],
    ["one tag, any case", { tags: "WEATHER" }],
    ["two tags, both required", { tags: "weather,forecast" }],
    ["a tag with LIKE's wildcards in it", { tags: "stock_quote" }],
    ["a tag that is a percent", { tags: "100%" }],
    ["a tag and a price", { tags: "forecast", maxPrice: "0.05" }],
  ])("filters a search and a list by %s exactly as a plain filter of every row", async (_name, filters) => {
    const all = (
      await ctx.db.prisma.listing.findMany({ where: { state: "active", description: { startsWith: "Kappa lookup" } } })
    ).sort(newestFirst);
    const wanted = (filters as { tags?: string }).tags?.toLowerCase().split(",") ?? [];
    const min = "minPrice" in filters ? BigInt(Number(filters.minPrice) * 1_000_000) : undefined;
    const max = "maxPrice" in filters ? BigInt(Number(filters.maxPrice) * 1_000_000) : undefined;
    const expected = all.filter((row) => {
      const tags = (JSON.parse(row.tags ?? "[]") as string[]).map((tag) => tag.toLowerCase());
      return (
        (min === undefined || row.priceMicros >= min) &&
        (max === undefined || row.priceMicros <= max) &&
        wanted.every((tag) => tags.includes(tag))
      );
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(all.length);
    for (const query of ["kappa", ""]) {
      const page = await catalogSearch(ctx.store, {
        ...filters,
        query,
        includeSeed: false,
        limit: 100,
        offset: 0,
        now: NOW,
      });
      expect(
        page.rows.map((row) => row.id),
        `query "${query}"`,
      ).toEqual(expected.map((row) => row.id));
      expect(page.total).toBe(expected.length);
    }
    const cheapest = await catalogSearch(ctx.store, {
      ...filters,
      sort: "price",
      includeSeed: false,
      limit: 100,
      offset: 0,
      now: NOW,
    });
    expect(cheapest.rows.map((row) => row.id).sort()).toEqual(expected.map((row) => row.id).sort());
  });
});
