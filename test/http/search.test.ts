import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, sellerAddress, startCatalogServer, type CatalogServer } from "../support/catalog.js";

interface SearchDocument {
  query: string | null;
  items: Array<{
    resource: string;
    description: string;
    metadata: { listingId: string; leftoverSeed: boolean };
    accepts: Array<{ payTo: string }>;
  }>;
  resources: unknown[];
  pagination: { limit: number; offset: number; total: number; cursor: string | null; nextCursor: string | null };
}

describe.each(databaseKinds)("search on $kind", (kind) => {
  let market: CatalogServer;
  const search = (query: string) => market.json<SearchDocument>(query);
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true" });
    ids.inDescription = (
      await market.list({
        description: "Hourly WEATHER forecast for any city",
        resource: "https://alpha.example.com/forecast",
      })
    ).id;
    ids.inResource = (
      await market.list({
        description: "Forecasts the tides of any harbour",
        resource: "https://weather-api.example.com/tides",
      })
    ).id;
    ids.inPayTo = (
      await market.list({ description: "Translates text between languages", sellerPayTo: sellerAddress(0xbeef) })
    ).id;
    for (let i = 0; i < 7; i++) await market.list({ description: `Stock quote service number ${i}` });
  });
  afterAll(async () => {
    await market?.close();
  });

  it("matches description, resource URL and sellerPayTo case-insensitively, description matches first", async () => {
    const { status, body } = await search("/discovery/search?query=weather");
    expect(status).toBe(200);
    expect(body.query).toBe("weather");
    expect(body.items.map((item) => item.metadata.listingId)).toEqual([ids.inDescription, ids.inResource]);
    expect(body.resources).toEqual(body.items);
    const byPayTo = await search(`/discovery/search?query=${sellerAddress(0xbeef).slice(-10).toUpperCase()}`);
    expect(byPayTo.body.items.map((item) => item.metadata.listingId)).toEqual([ids.inPayTo]);
  });

  it("requires query on /discovery/search, not on /search, where q is its alias", async () => {
    expect((await search("/discovery/search")).status).toBe(400);
    const all = await search("/search?limit=200");
    expect(all.status).toBe(200);
    expect(all.body.query).toBeNull();
    expect(all.body.pagination.total).toBe(10);
    const viaQ = await search("/search?q=Weather");
    expect(viaQ.body.items.map((item) => item.metadata.listingId)).toEqual([ids.inDescription, ids.inResource]);
    for (const path of [
      "/search.json?q=weather",
      "/resources/search?q=weather",
      "/resources/search.json?query=weather",
    ]) {
      expect((await search(path)).body.items).toHaveLength(2);
    }
  });

  it("finds short queries too (below the trigram length)", async () => {
    expect((await search("/search?q=ti")).body.items.map((item) => item.metadata.listingId)).toContain(ids.inResource);
  });

  it("treats FTS and LIKE syntax in the query as plain text", async () => {
    for (const text of ['"weather', "weather OR stock", "%", "_", "weather*", "NEAR(a b)"]) {
      const { status } = await search(`/discovery/search?query=${encodeURIComponent(text)}`);
      expect(status, text).toBe(200);
    }
    expect((await search("/discovery/search?query=%25")).body.items).toEqual([]);
  });

  it("applies the seed filters, and on /search lets excludeSeed=true and leftoverSeed=false win", async () => {
    const seeds = async (path: string) =>
      (await search(path)).body.items.filter((item) => item.metadata.leftoverSeed).length;
    expect(await seeds("/discovery/search?query=demo")).toBe(0);
    expect(await seeds("/discovery/search?query=demo&includeSeed=true")).toBe(3);
    expect(await seeds("/search?q=demo&includeSeed=true")).toBe(3);
    expect(await seeds("/search?q=demo&includeSeed=true&excludeSeed=true")).toBe(0);
    expect(await seeds("/search?q=demo&leftoverSeed=true")).toBe(3);
    expect(await seeds("/search?q=demo&includeSeed=true&leftoverSeed=false")).toBe(0);
  });

  it("filters by payTo, network, scheme and type", async () => {
    const payTo = await search(`/discovery/search?query=t&payTo=${sellerAddress(0xbeef).toLowerCase()}`);
    expect(payTo.body.items.map((item) => item.metadata.listingId)).toEqual([ids.inPayTo]);
    expect((await search("/discovery/search?query=weather&network=eip155:1")).body.items).toEqual([]);
    expect((await search("/discovery/search?query=weather&scheme=upto")).body.items).toEqual([]);
    expect((await search("/discovery/search?query=weather&scheme=exact")).body.items).toHaveLength(2);
    expect((await search("/discovery/search?query=weather&type=mcp")).body.items).toEqual([]);
    expect((await search("/discovery/search?query=weather&type=http")).body.items).toHaveLength(2);
  });

  it.each(["cursor", "nextCursor"] as const)(
    "pages by pagination.%s (the next page's cursor) and visits every match exactly once",
    async (field) => {
      const seen: string[] = [];
      let path = "/discovery/search?query=stock&limit=3";
      let pages = 0;
      for (;;) {
        const { body } = await search(path);
        pages++;
        seen.push(...body.items.map((item) => item.metadata.listingId));
        // Bazaar clients read pagination.cursor, the user's spec names nextCursor: both carry the next page.
        expect(body.pagination.cursor).toBe(body.pagination.nextCursor);
        const next = body.pagination[field];
        if (!next) break;
        path = `/discovery/search?query=stock&limit=3&cursor=${encodeURIComponent(next)}`;
      }
      expect(pages).toBe(3);
      expect(seen).toHaveLength(7);
      expect(new Set(seen).size).toBe(7);
      const first = (await search("/discovery/search?query=stock&limit=3")).body;
      expect(first.pagination).toMatchObject({ limit: 3, offset: 0, total: 7, cursor: expect.any(String) });
      const last = (await search("/discovery/search?query=stock&limit=3&offset=6")).body;
      expect(last.pagination).toMatchObject({ offset: 6, total: 7, cursor: null, nextCursor: null });
    },
  );

  it("refuses a malformed cursor, and one that belongs to another search, naming cursor", async () => {
    const { body } = await search("/discovery/search?query=stock&limit=3");
    const cursor = encodeURIComponent(body.pagination.nextCursor!);
    for (const path of [
      "/discovery/search?query=stock&cursor=nonsense",
      `/discovery/search?query=weather&cursor=${cursor}`,
      `/discovery/search?query=stock&includeSeed=true&cursor=${cursor}`,
    ]) {
      const answer = await market.json<{ fields: Array<{ field: string }> }>(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.fields[0]!.field).toBe("cursor");
    }
  });

  it("refuses a cursor forged past any offset the contract can carry (int32), naming cursor", async () => {
    // The page would echo the offset in pagination.offset, which the contract declares int32.
    const { body } = await search("/discovery/search?query=stock&limit=3");
    const real = JSON.parse(Buffer.from(body.pagination.nextCursor!, "base64url").toString("utf8")) as {
      o: number;
      f: string;
    };
    for (const offset of [2 ** 31, Number.MAX_SAFE_INTEGER]) {
      const forged = Buffer.from(JSON.stringify({ ...real, o: offset })).toString("base64url");
      const answer = await market.json<{ fields: Array<{ field: string }> }>(
        `/discovery/search?query=stock&cursor=${forged}`,
      );
      expect(answer.status, String(offset)).toBe(400);
      expect(answer.body.fields[0]!.field).toBe("cursor");
    }
    const largest = Buffer.from(JSON.stringify({ ...real, o: 2 ** 31 - 1 })).toString("base64url");
    expect((await search(`/discovery/search?query=stock&cursor=${largest}`)).body.pagination).toMatchObject({
      offset: 2 ** 31 - 1,
      nextCursor: null,
    });
  });
});
