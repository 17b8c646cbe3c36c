// The public search through the ranking engine (SEARCH_SEMANTIC=on), over HTTP: a buyer's words
// find the listing that means them, each result says why it ranks there, a look-alike of a verified
// seller ranks below it and is flagged, price and tag filters apply (in SQL on both databases), and
// a long answer pages as one list.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sellerAddress, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { testDatabaseKinds } from "../storage/databases.js";

interface Item {
  serviceName?: string;
  metadata: {
    listingId: string;
    lookalike?: boolean;
    match?: "strong" | "weak";
    rankReasons?: {
      relevance: number;
      match: "strong" | "weak";
      textMatch?: { terms: string[] };
      meaningMatch?: { similarity: number };
      trust: { factor: number; verifiedOwner: boolean };
      lookalikeOf?: { brand: string; payTo: string };
    };
  };
}
interface SearchDocument {
  items: Item[];
  searchMode?: string;
  searchModeReason?: string;
  nearMisses?: Item[];
  interpretedFilters?: Record<string, string>;
  pagination: { total: number; cursor: string | null };
}

describe.each(testDatabaseKinds())("hybrid search over HTTP on $kind", (database) => {
  let market: CatalogServer;
  const ids: Record<string, string> = {};
  const search = (path: string) => market.json<SearchDocument>(path);
  const idsOf = (body: SearchDocument) => body.items.map((item) => item.metadata.listingId);

  beforeAll(async () => {
    market = await startCatalogServer(database, { SEARCH_SEMANTIC: "true" });
    const list = async (
      serviceName: string,
      description: string,
      tags: string[],
      priceUsdc: string,
      sellerPayTo?: string,
    ) =>
      (
        await market.list({
          description,
          priceUsdc,
          metadata: { serviceName, tags },
          ...(sellerPayTo ? { sellerPayTo } : {}),
        })
      ).id;
    ids.transcribe = await list(
      "ScribeFlow",
      "Transcribes audio and video recordings into text with speaker labels and timestamps.",
      ["audio", "transcription"],
      "0.02",
      sellerAddress(1),
    );
    ids.weather = await list(
      "Nimbus",
      "Hourly and 7-day weather forecasts: temperature, precipitation probability and wind.",
      ["weather"],
      "0.01",
    );
    ids.fx = await list(
      "Ledgerly FX",
      "Live currency exchange rates between 160 currencies, updated every minute.",
      ["finance", "currency"],
      "0.05",
    );
    ids.geocode = await list(
      "Pinpoint",
      "Turns a street address into latitude and longitude coordinates.",
      ["maps", "geocoding"],
      "0.01",
    );
    ids.copy = await list(
      "ScribeFIow",
      "Transcribes audio recordings into text with speakers and timestamps. Cheap!",
      ["audio", "transcription"],
      "0.01",
      sellerAddress(2),
    );
    await market.server.database.prisma.listing.update({
      where: { id: ids.transcribe },
      data: { ownerVerified: true },
    });
    // The copy paid its own fee too (so it is verified): listed later, by another seller, at another origin.
    await market.server.database.prisma.listing.update({ where: { id: ids.copy }, data: { ownerVerified: true } });
    // The engine loads the catalog in the background; until then, searches say so and match substrings.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { body } = await search("/discovery/search?query=forecast");
      if (body.searchMode === "hybrid") break;
      expect(body).toMatchObject({ searchMode: "substring", searchModeReason: "semantic-not-ready" });
      if (Date.now() > deadline) throw new Error("the search engine did not become ready");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 180_000);
  afterAll(async () => {
    await market?.close();
  });

  it("finds a listing by what it does, in a buyer's words, where substring matching finds nothing", async () => {
    const substring = await search(
      `/discovery/search?mode=substring&query=${encodeURIComponent("transcribe my audio recordings")}`,
    );
    expect(substring.body.searchMode).toBe("substring");
    expect(substring.body.searchModeReason).toBeUndefined();
    expect(idsOf(substring.body)).toEqual([]);
    // mode=lexical is the engine's BM25 (stemmed words), not the whole question as one substring.
    const lexical = await search(
      `/discovery/search?mode=lexical&query=${encodeURIComponent("transcribe my audio recordings")}`,
    );
    expect(lexical.body.searchMode).toBe("lexical");
    expect(idsOf(lexical.body)[0]).toBe(ids.transcribe);
    const hybrid = await search(`/discovery/search?query=${encodeURIComponent("transcribe my audio recordings")}`);
    expect(hybrid.status).toBe(200);
    expect(hybrid.body.searchMode).toBe("hybrid");
    // Meaning matches of lower similarity follow (a tiny catalog), below the listing that means it.
    expect(idsOf(hybrid.body)[0]).toBe(ids.transcribe);
    expect(idsOf(hybrid.body).indexOf(ids.weather!)).not.toBe(1);
  });

  it("says why each result ranks where it does", async () => {
    const { body } = await search("/search?q=exchange%20rates%20for%20currencies");
    const first = body.items[0]!;
    expect(first.metadata.listingId).toBe(ids.fx);
    expect(first.metadata.rankReasons?.textMatch?.terms.length).toBeGreaterThan(0);
    expect(first.metadata.rankReasons?.trust.factor).toBeGreaterThan(0);
    expect(first.metadata.lookalike).toBe(false);
    // Relevance and match strength apart from trust, which only breaks near ties.
    expect(first.metadata.match).toBe(first.metadata.rankReasons!.match);
    expect(first.metadata.rankReasons!.relevance).toBeGreaterThan(0.4);
    expect(first.metadata.rankReasons!.trust.factor).toBeGreaterThanOrEqual(0.94);
    expect(first.metadata.rankReasons!.trust.factor).toBeLessThanOrEqual(1.06);
  });

  it("answers nothing when nothing matches, with the closest listings apart as near misses", async () => {
    const { body } = await search(`/discovery/search?query=${encodeURIComponent("qzxv wkjhg plorf")}`);
    expect(body.searchMode).toBe("hybrid");
    expect(body.items).toEqual([]);
    expect(body.pagination.total).toBe(0);
    for (const item of body.nearMisses ?? []) expect(item.metadata.rankReasons!.relevance).toBeLessThan(0.4);
  });

  it("reads a price cap and 'cheapest' from the question's words, and says so", async () => {
    const { body } = await search(
      `/discovery/search?query=${encodeURIComponent("transcribe audio recordings under 2 cents")}`,
    );
    expect(body.interpretedFilters).toEqual({ maxPrice: "0.02" });
    expect(idsOf(body)).toContain(ids.transcribe);
    const cheap = await search(
      `/discovery/search?query=${encodeURIComponent("transcribe audio recordings under 1.5 cents")}`,
    );
    expect(idsOf(cheap.body)).not.toContain(ids.transcribe);
    // An explicit parameter wins over the words.
    const explicit = await search(
      `/discovery/search?query=${encodeURIComponent("transcribe audio under 1 cent")}&maxPrice=0.05`,
    );
    expect(explicit.body.interpretedFilters).toBeUndefined();
    expect(idsOf(explicit.body)).toContain(ids.transcribe);
    const cheapest = await search(`/discovery/search?query=${encodeURIComponent("cheapest audio transcription")}`);
    expect(cheapest.body.interpretedFilters).toEqual({ sort: "price" });
    expect(idsOf(cheapest.body)[0]).toBe(ids.copy);
  });

  it("ranks a look-alike of an established brand below it, and flags it, though the copy is verified too", async () => {
    const { body } = await search(
      `/discovery/search?query=${encodeURIComponent("ScribeFlow transcribes audio recordings")}`,
    );
    const order = idsOf(body);
    expect(order).toContain(ids.copy);
    expect(order.indexOf(ids.transcribe!)).toBeLessThan(order.indexOf(ids.copy!));
    const copy = body.items.find((item) => item.metadata.listingId === ids.copy)!;
    expect(copy.metadata.lookalike).toBe(true);
    expect(copy.metadata.rankReasons?.trust.verifiedOwner).toBe(true);
    expect(copy.metadata.rankReasons?.lookalikeOf).toEqual({ brand: "ScribeFlow", payTo: sellerAddress(1) });
    const original = body.items.find((item) => item.metadata.listingId === ids.transcribe)!;
    expect(original.metadata).toMatchObject({ lookalike: false, rankReasons: { trust: { verifiedOwner: true } } });
  });

  it("applies minPrice, maxPrice and tags, in every mode and on the lists", async () => {
    const cheap = await search("/discovery/search?mode=lexical&query=transcribes&maxPrice=0.015");
    expect(idsOf(cheap.body)).toEqual([ids.copy]);
    const dear = await search("/discovery/search?mode=lexical&query=transcribes&minPrice=0.02");
    expect(idsOf(dear.body)).toEqual([ids.transcribe]);
    // Hybrid adds weaker meaning matches, all inside the range.
    const cheapHybrid = idsOf((await search("/discovery/search?query=transcribes&maxPrice=0.015")).body);
    expect(cheapHybrid[0]).toBe(ids.copy);
    expect(cheapHybrid).not.toContain(ids.transcribe);
    expect(cheapHybrid).not.toContain(ids.fx);
    const dearHybrid = idsOf((await search("/discovery/search?query=transcribes&minPrice=0.02&maxPrice=0.02")).body);
    expect(dearHybrid).toEqual([ids.transcribe]);
    const tagged = await search("/search?q=coordinates%20for%20an%20address&tags=MAPS");
    expect(idsOf(tagged.body)).toEqual([ids.geocode]);
    const none = await search("/search?q=coordinates%20for%20an%20address&tags=maps,weather");
    expect(idsOf(none.body)).toEqual([]);
    expect((await search("/search?q=x&minPrice=abc")).status).toBe(400);
    // The lists take them too.
    expect(idsOf((await search("/discovery/resources?maxPrice=0.015&tags=audio")).body)).toEqual([ids.copy]);
    expect(idsOf((await search("/bazaar.json?minPrice=0.05")).body)).toEqual([ids.fx]);
    expect((await search("/discovery/resources?maxPrice=1.0000001")).status).toBe(400);
  });

  it("answers with substring matching when asked, the old shape", async () => {
    const { body } = await search("/discovery/search?mode=substring&query=forecast");
    expect(idsOf(body)).toEqual([ids.weather]);
    expect(body.items[0]!.metadata.rankReasons).toBeUndefined();
  });

  it("pages through a long answer as one list, and counts only what the view shows", async () => {
    const query = encodeURIComponent("transcribe audio, weather forecasts, exchange rates or street addresses");
    const whole = (await search(`/discovery/search?query=${query}&limit=50`)).body;
    expect(whole.items.length).toBeGreaterThanOrEqual(4);
    expect(whole.pagination.total).toBe(whole.items.length);
    const pageThrough = async (limit: number) => {
      const seen: string[] = [];
      const totals = new Set<number>();
      let cursor: string | null = null;
      do {
        const { body }: { body: SearchDocument } = await search(
          `/discovery/search?query=${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
        );
        seen.push(...idsOf(body));
        totals.add(body.pagination.total);
        cursor = body.pagination.cursor;
      } while (cursor);
      return { seen, totals: [...totals] };
    };
    expect(await pageThrough(2)).toEqual({ seen: idsOf(whole), totals: [whole.items.length] });

    // A listing that expired after the engine indexed it: the engine still finds it, the view hides it.
    const hidden = idsOf(whole)[1]!;
    await market.server.database.prisma.listing.update({
      where: { id: hidden },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const shown = idsOf(whole).filter((id) => id !== hidden);
    expect(await pageThrough(3)).toEqual({ seen: shown, totals: [shown.length] });
  });
});
