// The Bazaar discovery filter conformance vectors (x402 specs/extensions/bazaar_discovery_conformance.md),
// judged by the published script's own `evaluate`, on every catalog list and search route, plus
// positive controls the published vectors cannot make on this catalog.
//
// V7 (a network carried by some but not all items) cannot run here: a listing can only be on
// eip155:8453 (listing refuses any other, and the network filter is decided against that one
// network, not per row), so no network discriminates. network=eip155:8453 returning everything
// and network=eip155:999999999 returning nothing stand in for it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import {
  LIST_ROUTES,
  SEARCH_ROUTES,
  SELLER,
  VECTORS,
  WORD,
  evaluate,
  idsOf,
  listFixtureCatalog,
  resourcesAreUsable,
  withQuery,
  type ListBody,
} from "./bazaar-support.js";

/** Each route with what it needs to see the whole fixture catalog (`/discovery/search` requires a query). */
const ROUTES: Array<{ route: string; base: Record<string, string> }> = [
  ...LIST_ROUTES.map((route) => ({ route, base: {} })),
  ...SEARCH_ROUTES.map((route) => ({ route, base: { query: WORD } })),
];

describe("the ported evaluate agrees with the published script's self-test cases", () => {
  const resource = (
    network: string,
    over: { type?: string; scheme?: string; payTo?: string; ext?: Record<string, unknown> } = {},
  ) => ({
    resource: `https://example.test/${network}`,
    type: over.type ?? "http",
    x402Version: 2,
    accepts: [{ network, scheme: over.scheme ?? "exact", payTo: over.payTo ?? "0xabc" }],
    lastUpdated: 1,
    extensions: over.ext ?? { bazaar: {} },
  });
  const first = resource("eip155:1");
  const second = resource("eip155:2", {
    type: "mcp",
    scheme: "batch-settlement",
    payTo: "0x0000000000000000000000000000000000000001",
    ext: { "payment-identifier": {} },
  });
  const baseline = [first, second, resource("eip155:999999999")];
  const cases: Array<[string, Parameters<typeof evaluate>, string]> = [
    ["malformed 400", ["network", "malformed", "!!!", { status: 400, body: { error: "bad" } }], "ok"],
    ["empty error", ["network", "malformed", "!!!", { status: 400, body: { error: "" } }], "fail"],
    ["well-formed 400", ["network", "well-formed", "eip155:9", { status: 400, body: { error: "bad" } }], "fail"],
    ["positive 400", ["network", "positive", "eip155:1", { status: 400, body: { error: "bad" } }], "fail"],
    ["wrong array key", ["network", "well-formed", "eip155:9", { status: 200, body: { resources: [] } }], "incomplete"],
    [
      "empty total mismatch",
      ["network", "well-formed", "eip155:9", { status: 200, body: { items: [], pagination: { total: 2 } } }],
      "fail",
    ],
    ["bad item shape", ["network", "well-formed", "eip155:9", { status: 200, body: { items: [null] } }], "incomplete"],
    [
      "bad unapplied shape",
      ["network", "well-formed", "eip155:9", { status: 200, body: { items: baseline, unappliedFilters: "network" } }],
      "incomplete",
    ],
    [
      "unapplied",
      ["network", "well-formed", "eip155:9", { status: 200, body: { items: baseline, unappliedFilters: ["network"] } }],
      "ok",
    ],
    ["ignored", ["network", "well-formed", "eip155:9", { status: 200, body: { items: baseline } }], "fail"],
    [
      "accepts.extra is not a resource extension",
      [
        "extensions",
        "well-formed",
        "payment-identifier",
        {
          status: 200,
          body: {
            items: [
              { ...first, extensions: {}, accepts: [{ ...first.accepts[0], extra: { "payment-identifier": {} } }] },
            ],
          },
        },
      ],
      "fail",
    ],
    [
      "positive equal to baseline",
      ["network", "positive", "eip155:1", { status: 200, body: { items: [first] } }, [first]],
      "fail",
    ],
    ["positive subset", ["network", "positive", "eip155:1", { status: 200, body: { items: [first] } }, baseline], "ok"],
  ];
  it.each(cases)("%s", (_name, args, expected) => {
    expect(evaluate(...args)[0]).toBe(expected);
  });
});

describe.each(databaseKinds)("Bazaar list filters on $kind", (kind) => {
  let market: CatalogServer;
  const get = (path: string) => market.json<ListBody>(path);

  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true" });
    await listFixtureCatalog(market);
  });
  afterAll(async () => {
    await market?.close();
  });

  it("covers every list and search path of the contract", () => {
    expect(LIST_ROUTES).toEqual(
      expect.arrayContaining([
        "/discovery/resources",
        "/discovery/resources.json",
        "/resources",
        "/resources.json",
        "/bazaar.json",
      ]),
    );
    expect(SEARCH_ROUTES).toEqual(expect.arrayContaining(["/discovery/search", "/search", "/resources/search"]));
  });

  describe.each(ROUTES)("$route", ({ route, base }) => {
    let baseline: ListBody;
    const read = (params: Record<string, string | number | boolean>) =>
      get(withQuery(route, { ...base, limit: 50, ...params }));

    beforeAll(async () => {
      const { status, body } = await read({});
      expect(status).toBe(200);
      baseline = body;
    });

    it("V0: the baseline is the seven foreign listings, usable as the script reads them", () => {
      expect(resourcesAreUsable(baseline.items)).toBe(true);
      expect(baseline.items).toHaveLength(7);
      expect(baseline.pagination.total).toBe(7);
      expect(baseline.items.some((item) => item.metadata.leftoverSeed)).toBe(false);
    });

    for (const [id, param, valueKind, value] of VECTORS) {
      it(`${id}: ${param}=${value}`, async () => {
        const response = await read({ [param]: value });
        expect(evaluate(param, valueKind, value, response, baseline.items)).toEqual(["ok", expect.any(String)]);
        if (valueKind === "malformed") {
          expect(response.status).toBe(400);
          expect(response.body.error).toBe("invalid_request");
          expect(response.body.fields).toContainEqual({ in: "query", field: param, message: expect.any(String) });
        } else {
          // Stricter than the script: a well-formed value nothing carries is an empty page, never ignored.
          expect(response.status).toBe(200);
          expect(response.body.items).toEqual([]);
          expect(response.body.pagination.total).toBe(0);
          expect(response.body.unappliedFilters).toBeUndefined();
        }
      });
    }

    it("payTo in another letter case returns exactly that seller's items", async () => {
      const hex = SELLER.b.slice(2);
      const expected = idsOf(baseline.items.filter((item) => item.accepts[0]!.payTo === SELLER.b));
      expect(expected).toHaveLength(2);
      for (const payTo of [SELLER.b.toLowerCase(), `0x${hex.toUpperCase()}`]) {
        const response = await read({ payTo });
        expect(evaluate("payTo", "positive", payTo, response, baseline.items)[0]).toBe("ok");
        expect(idsOf(response.body.items)).toEqual(expected);
        expect(response.body.pagination.total).toBe(2);
      }
    });

    it("extensions=bazaar returns exactly the items carrying extensions.bazaar", async () => {
      const expected = idsOf(baseline.items.filter((item) => item.extensions?.bazaar !== undefined));
      expect(expected).toHaveLength(3);
      const response = await read({ extensions: "bazaar" });
      expect(evaluate("extensions", "positive", "bazaar", response, baseline.items)[0]).toBe("ok");
      expect(idsOf(response.body.items)).toEqual(expected);
      expect(response.body.pagination.total).toBe(3);
    });

    it("network=eip155:8453, scheme=exact and type=http keep every item", async () => {
      for (const [param, value] of [
        ["network", "eip155:8453"],
        ["scheme", "exact"],
        ["type", "http"],
      ] as const) {
        const response = await read({ [param]: value });
        expect(response.status, param).toBe(200);
        expect(idsOf(response.body.items), param).toEqual(idsOf(baseline.items));
        expect(response.body.pagination.total, param).toBe(7);
      }
    });

    it("filters combine with each other and with includeSeed", async () => {
      const both = await read({ payTo: SELLER.a.toLowerCase(), extensions: "bazaar" });
      expect(both.body.items.map((item) => item.description)).toEqual([`The ${WORD} service a0`]);

      const sellers = await read({ payTo: SELLER.c, scheme: "exact", network: "eip155:8453", type: "http" });
      expect(sellers.body.pagination.total).toBe(2);
      expect(sellers.body.items.every((item) => item.accepts[0]!.payTo === SELLER.c)).toBe(true);

      // The seed rows are the marketplace's own; the query word is in none, so only the list routes and
      // the lenient /search without a query show them.
      const seedPayTo = (await get("/discovery/resources?includeSeed=true&limit=50")).body.items.find(
        (item) => item.metadata.leftoverSeed,
      )!.accepts[0]!.payTo;
      const seedHidden = await read({ payTo: seedPayTo });
      expect(seedHidden.body.items).toEqual([]);
      expect(seedHidden.body.pagination.total).toBe(0);
      const withSeed = await read({ includeSeed: true, network: "eip155:8453" });
      const seedShown = base.query === undefined ? 3 : 0;
      expect(withSeed.body.items.filter((item) => item.metadata.leftoverSeed)).toHaveLength(seedShown);
      expect(withSeed.body.pagination.total).toBe(7 + seedShown);
      const seedOnly = await read({ includeSeed: true, payTo: seedPayTo.toLowerCase() });
      expect(seedOnly.body.pagination.total).toBe(seedShown);
      expect(seedOnly.body.items.every((item) => item.metadata.leftoverSeed)).toBe(true);
      const seedWithBazaar = await read({ includeSeed: true, extensions: "bazaar" });
      expect(idsOf(seedWithBazaar.body.items)).toEqual(
        idsOf(baseline.items.filter((item) => item.extensions?.bazaar !== undefined)),
      );
    });
  });

  it("/search lets excludeSeed=true win over includeSeed under a filter too", async () => {
    const { body } = await get("/search?includeSeed=true&excludeSeed=true&network=eip155:8453&limit=50");
    expect(body.pagination.total).toBe(7);
    expect(body.items.some((item) => item.metadata.leftoverSeed)).toBe(false);
  });

  it("names every malformed filter at once", async () => {
    for (const route of ["/discovery/resources", "/bazaar.json", `/discovery/search?query=${WORD}`, "/search"]) {
      const { status, body } = await get(
        withQuery(route, { type: "grpc", payTo: "0x12", network: "!!!", scheme: "a b", extensions: "-x" }),
      );
      expect(status, route).toBe(400);
      expect(body.error).toBe("invalid_request");
      expect(body.fields?.map((field) => field.field).sort(), route).toEqual([
        "extensions",
        "network",
        "payTo",
        "scheme",
        "type",
      ]);
      expect(body.fields?.every((field) => field.in === "query")).toBe(true);
    }
  });

  it("pages a filtered list by offset, every match exactly once, total steady", async () => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 2) {
      const { body } = await get(`/discovery/resources?extensions=bazaar&limit=2&offset=${offset}`);
      expect(body.pagination).toEqual({ limit: 2, offset, total: 3 });
      if (body.items.length === 0) break;
      seen.push(...body.items.map((item) => item.metadata.listingId));
    }
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
  });

  it("search: pagination.cursor is the next page's cursor, nextCursor the same, both null on the last page", async () => {
    for (const route of SEARCH_ROUTES) {
      const seen: string[] = [];
      let cursor: string | null | undefined;
      let pages = 0;
      do {
        const { status, body } = await get(
          withQuery(route, { query: WORD, payTo: SELLER.a.toLowerCase(), limit: 2, ...(cursor ? { cursor } : {}) }),
        );
        expect(status, route).toBe(200);
        expect(body.pagination.nextCursor).toBe(body.pagination.cursor);
        expect(body.items.every((item) => item.accepts[0]!.payTo === SELLER.a)).toBe(true);
        seen.push(...body.items.map((item) => item.metadata.listingId));
        cursor = body.pagination.cursor;
        pages++;
      } while (cursor && pages < 10);
      expect(cursor, route).toBeNull();
      expect(pages, route).toBe(2);
      expect(seen, route).toHaveLength(3);
      expect(new Set(seen).size, route).toBe(3);
    }
  });

  it("search: a cursor of another filter is refused with a 400 naming cursor", async () => {
    const first = await get(`/discovery/search?query=${WORD}&payTo=${SELLER.a}&limit=1`);
    const cursor = first.body.pagination.cursor!;
    expect(cursor).toEqual(expect.any(String));
    const other = await get(`/discovery/search?query=${WORD}&payTo=${SELLER.b}&limit=1&cursor=${cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.fields).toContainEqual({ in: "query", field: "cursor", message: expect.any(String) });
    const sameInOtherCase = await get(
      `/discovery/search?query=${WORD}&payTo=${SELLER.a.toLowerCase()}&limit=1&cursor=${cursor}`,
    );
    expect(sameInOtherCase.status).toBe(200);
    expect(sameInOtherCase.body.pagination.offset).toBe(1);
  });
});
