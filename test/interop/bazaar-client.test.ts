// The SDK's Bazaar client (@x402/extensions withBazaar over @x402/core's HTTPFacilitatorClient), with
// our origin as its facilitator URL: it calls <url>/discovery/resources and <url>/discovery/search.
import { HTTPFacilitatorClient } from "@x402/core/http";
import { withBazaar } from "@x402/extensions/bazaar";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER, WORD, listFixtureCatalog } from "./bazaar-support.js";

const PER_SELLER = { a: 5, b: 4, c: 3 };
const TOTAL = PER_SELLER.a + PER_SELLER.b + PER_SELLER.c;
/** Seller a declares bazaar on its first listing, b on all of its. */
const WITH_BAZAAR = 1 + PER_SELLER.b;

describe("the SDK's Bazaar client against our origin", () => {
  let market: CatalogServer;
  let bazaar: ReturnType<typeof withBazaar<HTTPFacilitatorClient>>["extensions"]["bazaar"];
  const called: string[] = [];

  beforeAll(async () => {
    market = await startCatalogServer(databaseKinds[0]!, { LOAD_SEED: "true" });
    await listFixtureCatalog(market, PER_SELLER);
    // A trailing slash, as a user may paste the origin: the client strips it.
    bazaar = withBazaar(new HTTPFacilitatorClient({ url: `${market.server.url}/` })).extensions.bazaar;
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
      called.push(String(input instanceof Request ? input.url : input));
      return realFetch(input, init);
    });
  });
  afterEach(() => {
    called.length = 0;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await market?.close();
  });

  const pathsCalled = () => [...new Set(called.map((url) => new URL(url).pathname))];

  describe("listResources", () => {
    it("calls <origin>/discovery/resources and reads our catalog", async () => {
      const page = await bazaar.listResources();
      expect(pathsCalled()).toEqual(["/discovery/resources"]);
      expect(new URL(called[0]!).origin).toBe(market.server.url);
      expect(page.x402Version).toBe(2);
      expect(page.pagination.total).toBe(TOTAL);
      expect(page.items).toHaveLength(TOTAL);
    });

    it("pages by offset to every item exactly once", async () => {
      const seen: string[] = [];
      let total = Number.NaN;
      for (let offset = 0; offset < 100; offset += 5) {
        const page = await bazaar.listResources({ limit: 5, offset });
        expect(page.pagination).toEqual({ limit: 5, offset, total: TOTAL });
        total = page.pagination.total;
        if (page.items.length === 0) break;
        seen.push(...page.items.map((item) => item.resource));
      }
      expect(seen).toHaveLength(total);
      expect(new Set(seen).size).toBe(TOTAL);
    });

    it("applies each filter", async () => {
      const byPayTo = await bazaar.listResources({ payTo: SELLER.b.toLowerCase() });
      expect(byPayTo.items).toHaveLength(PER_SELLER.b);
      expect(byPayTo.items.every((item) => item.accepts.every((accept) => accept.payTo === SELLER.b))).toBe(true);

      const withExtension = await bazaar.listResources({ extensions: "bazaar" });
      expect(withExtension.pagination.total).toBe(WITH_BAZAAR);
      expect(withExtension.items.every((item) => item.extensions?.bazaar !== undefined)).toBe(true);

      for (const params of [{ type: "http" }, { network: "eip155:8453" }, { scheme: "exact" }]) {
        expect((await bazaar.listResources(params)).pagination.total, JSON.stringify(params)).toBe(TOTAL);
      }
      for (const params of [
        { type: "mcp" },
        { network: "eip155:1" },
        { scheme: "upto" },
        { extensions: "payment-identifier" },
        { payTo: "0x0000000000000000000000000000000000000001" },
      ]) {
        const page = await bazaar.listResources(params);
        expect(page.items, JSON.stringify(params)).toEqual([]);
        expect(page.pagination.total, JSON.stringify(params)).toBe(0);
      }

      const combined = await bazaar.listResources({
        payTo: SELLER.a,
        extensions: "bazaar",
        network: "eip155:8453",
        scheme: "exact",
        type: "http",
      });
      expect(combined.items.map((item) => item.description)).toEqual([`The ${WORD} service a0`]);
      expect(pathsCalled()).toEqual(["/discovery/resources"]);
    });

    it("surfaces our 400 naming a malformed filter", async () => {
      await expect(bazaar.listResources({ network: "!!!" })).rejects.toThrow(/\(400\).*network/);
    });
  });

  describe("search", () => {
    /** Pages the way a caller of the SDK does: pass back pagination.cursor until it is null. */
    async function searchAll(
      params: Parameters<typeof bazaar.search>[0],
    ): Promise<{ resources: string[]; pages: number }> {
      const resources: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await bazaar.search({ ...params, ...(cursor !== undefined && { cursor }) });
        pages++;
        resources.push(...page.resources.map((item) => item.resource));
        const next = page.pagination?.cursor;
        if (next === null || next === undefined) return { resources, pages };
        expect(pages, "runaway paging").toBeLessThan(50);
        cursor = next;
      }
    }

    it("calls <origin>/discovery/search and reads resources", async () => {
      const page = await bazaar.search({ query: WORD });
      expect(pathsCalled()).toEqual(["/discovery/search"]);
      expect(page.x402Version).toBe(2);
      expect(page.resources).toHaveLength(TOTAL);
      expect(page.pagination?.cursor).toBeNull();
    });

    it("follows pagination.cursor to every match exactly once", async () => {
      const { resources, pages } = await searchAll({ query: WORD, limit: 5 });
      expect(pages).toBe(Math.ceil(TOTAL / 5));
      expect(resources).toHaveLength(TOTAL);
      expect(new Set(resources).size).toBe(TOTAL);
    });

    it("applies the filters on every page", async () => {
      const bySeller = await searchAll({ query: WORD, payTo: SELLER.a.toUpperCase().replace("0X", "0x"), limit: 2 });
      expect(bySeller.pages).toBe(Math.ceil(PER_SELLER.a / 2));
      expect(new Set(bySeller.resources).size).toBe(PER_SELLER.a);
      expect(bySeller.resources.every((resource) => resource.startsWith("https://a"))).toBe(true);

      const declaring = await searchAll({ query: WORD, extensions: "bazaar", limit: 2 });
      expect(declaring.resources).toHaveLength(WITH_BAZAAR);
      expect(new Set(declaring.resources).size).toBe(WITH_BAZAAR);

      const everything = await searchAll({
        query: WORD,
        type: "http",
        network: "eip155:8453",
        scheme: "exact",
        limit: 4,
      });
      expect(new Set(everything.resources).size).toBe(TOTAL);

      for (const params of [
        { type: "mcp" },
        { network: "eip155:999999999" },
        { scheme: "batch-settlement" },
        { extensions: "payment-identifier" },
      ]) {
        const page = await bazaar.search({ query: WORD, ...params });
        expect(page.resources, JSON.stringify(params)).toEqual([]);
        expect(page.pagination?.cursor, JSON.stringify(params)).toBeNull();
      }
      expect(pathsCalled()).toEqual(["/discovery/search"]);
    });

    it("finds one seller's listings by a part of its address", async () => {
      const { resources } = await searchAll({ query: SELLER.c.slice(-8), limit: 1 });
      expect(new Set(resources).size).toBe(PER_SELLER.c);
      expect(resources).toHaveLength(PER_SELLER.c);
    });

    it("surfaces our 400 naming a malformed filter", async () => {
      await expect(bazaar.search({ query: WORD, payTo: "0x12" })).rejects.toThrow(/\(400\).*payTo/);
    });
  });
});
