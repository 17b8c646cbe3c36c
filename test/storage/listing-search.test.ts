import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Listing } from "../../src/storage/listing/listing-store.js";
import { testDatabaseKinds } from "./databases.js";
import { at, catalogPage, catalogSearch, listingInput, openStore, type StoreContext } from "./fixtures.js";

const WEATHER_PAY_TO = "0x1234567890abcdef1234567890abcdef12345678";

describe.each(testDatabaseKinds())("catalog search on $kind", (kind) => {
  let ctx: StoreContext;
  let weather: Listing, quotes: Listing, translate: Listing, seed: Listing;

  const search = async (q: Partial<Parameters<typeof catalogSearch>[1]>) => {
    const page = await catalogSearch(ctx.store, { includeSeed: false, limit: 20, offset: 0, now: at(10), ...q });
    return { ids: page.rows.map((l) => l.id), total: page.total };
  };

  beforeAll(async () => {
    ctx = await openStore(kind);
    const { store } = ctx;
    weather = await store.createListing(
      listingInput({
        description: "Weather forecast for any city on Earth",
        resource: "https://api.weather-co.example/v1/now",
        sellerPayTo: WEATHER_PAY_TO,
      }),
      at(1),
    );
    quotes = await store.createListing(
      listingInput({ description: "Stock quotes in real time", resource: "https://quotes.example.org/forecast-proxy" }),
      at(2),
    );
    translate = await store.createListing(
      listingInput({ description: "Translate text between languages", resource: "https://translate.example.net/" }),
      at(3),
    );
    await store.upsertSeedListings(
      [
        {
          ...listingInput({
            description: "Demo forecast from the marketplace",
            resource: "https://market.example/kr-forecast",
          }),
          listedAt: at(4),
          expiresAt: at(50_000),
        },
      ],
      at(4),
    );
    [seed] = (await catalogPage(store, { includeSeed: true, limit: 1, offset: 0, now: at(5) })).rows as [Listing];
  });
  afterAll(() => ctx.close());

  it("matches a case-insensitive substring of the description, the resource URL and sellerPayTo", async () => {
    expect(await search({ query: "WEATHER FORE" })).toEqual({ ids: [weather.id], total: 1 });
    expect(await search({ query: "QUOTES.EXAMPLE" })).toEqual({ ids: [quotes.id], total: 1 });
    expect(getAddress(WEATHER_PAY_TO)).not.toBe(WEATHER_PAY_TO); // stored mixed-case
    expect(await search({ query: "90abcdef1234" })).toEqual({ ids: [weather.id], total: 1 });
    expect(await search({ query: "90ABCDEF1234" })).toEqual({ ids: [weather.id], total: 1 });
    expect(await search({ query: "zzzz" })).toEqual({ ids: [], total: 0 });
  });

  it("ranks description matches before resource matches, then newest first, and pages with totals", async () => {
    expect(await search({ query: "forecast" })).toEqual({ ids: [weather.id, quotes.id], total: 2 });
    expect(await search({ query: "forecast", includeSeed: true })).toEqual({
      ids: [seed.id, weather.id, quotes.id],
      total: 3,
    });
    expect(await search({ query: "forecast", includeSeed: true, limit: 1, offset: 1 })).toEqual({
      ids: [weather.id],
      total: 3,
    });
    expect(await search({ query: "forecast", includeSeed: true, limit: 5, offset: 3 })).toEqual({ ids: [], total: 3 });
    expect(await search({ query: "  " })).toEqual({ ids: [translate.id, quotes.id, weather.id], total: 3 });
  });

  it("filters by payTo (any case), network and scheme", async () => {
    expect(await search({ payTo: WEATHER_PAY_TO.toUpperCase().replace("0X", "0x") })).toEqual({
      ids: [weather.id],
      total: 1,
    });
    expect(await search({ query: "forecast", payTo: translate.sellerPayTo })).toEqual({ ids: [], total: 0 });
    expect(await search({ network: "eip155:1" })).toEqual({ ids: [], total: 0 });
    expect((await search({ network: "eip155:8453", scheme: "exact" })).total).toBe(3);
    expect(await search({ scheme: "upto" })).toEqual({ ids: [], total: 0 });
  });

  it("handles short queries and treats LIKE and FTS syntax as plain text", async () => {
    expect(await search({ query: "ca" })).toEqual({ ids: [weather.id, quotes.id], total: 2 });
    for (const query of ["%", "_", "50%", '"', 'say "hi"', "a OR b", "*", "\\"]) {
      expect(await search({ query }), query).toEqual({ ids: [], total: 0 });
    }
  });

  it("keeps the index in step with updates and deletes", async () => {
    const { store } = ctx;
    const zebra = await store.createListing(listingInput({ description: "Ephemeral zebra service" }), at(-500));
    expect((await search({ query: "zebra", now: at(-499) })).ids).toEqual([zebra.id]);
    await store.deleteExpired(at(-1));
    await store.createListing(listingInput({ description: "Something else entirely" }), at(6));
    expect(await search({ query: "zebra" })).toEqual({ ids: [], total: 0 });
    await store.upsertSeedListings(
      [
        {
          ...listingInput({ description: "Demo okapi from the marketplace", resource: seed.resource, method: "POST" }),
          listedAt: at(4),
          expiresAt: at(50_000),
        },
      ],
      at(7),
    );
    expect((await search({ query: "okapi", includeSeed: true })).ids).toEqual([seed.id]);
    expect((await search({ query: "Demo forecast", includeSeed: true })).ids).toEqual([]);
  });
});
