// Hostile text on every free-text way into the catalog: search parameters on every search route,
// the MCP list_market tool (through the official client), and the listing body on the dry run and
// the paid route. Each is a 4xx JSON error naming the field, before storage, on both databases,
// and nothing is logged at error level. A storage failure in a read is a 503 JSON, logged once.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  startSeller,
  type Seller,
  SELLER_PAY_TO,
  summariseListing,
} from "../support/sellers.js";

const SELLER = SELLER_PAY_TO;
const JSON_TYPE = "application/json; charset=utf-8";

/** C0 controls (NUL, SOH, BS, tab, LF, CR, ESC, US) and DEL. */
const CONTROLS = ["\u0000", "\u0001", "\u0008", "\t", "\n", "\r", "\u001b", "\u001f", "\u007f"];
const show = (char: string) => `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/** Every search route with each text parameter it has: `q` is an alias of `query` on the lenient routes only. */
const SEARCH_TEXT: Array<[string, string]> = [
  ["/search", "query"],
  ["/search", "q"],
  ["/search.json", "query"],
  ["/search.json", "q"],
  ["/resources/search", "query"],
  ["/resources/search", "q"],
  ["/resources/search.json", "query"],
  ["/resources/search.json", "q"],
  ["/discovery/search", "query"],
  ["/discovery/search.json", "query"],
];
const SEARCH_ROUTES = [
  "/search",
  "/search.json",
  "/resources/search",
  "/resources/search.json",
  "/discovery/search",
  "/discovery/search.json",
];

/** An inputSchema nested `depth` objects deep. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let level = 1; level < depth; level++) schema = { items: schema };
  return schema;
}

/** Nesting levels of a JSON value, objects and arrays alike. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

interface ErrorBody {
  error: string;
  message: string;
  fields?: Array<{ in: string; field: string; message: string }>;
}

describe.each(databaseKinds)("hostile input on $kind", (kind) => {
  let market: CatalogServer;
  let seller: Seller;
  let client: Client;
  const logged: unknown[][] = [];

  beforeAll(async () => {
    market = await startCatalogServer(kind, {
      ALLOW_LOOPBACK_SELLERS: "true",
      PAYMENT_RATE_PER_CLIENT: "100000",
      PROBE_RATE_PER_CLIENT: "10000",
      PROBE_RATE_PER_HOST: "10000",
    });
    const asset = market.server.contexts.listings.market.asset;
    seller = await startSeller(() =>
      challengeAnswer(challenge([requirement({ payTo: SELLER, amount: "30000", asset })])),
    );
    await market.list({ description: "Weather forecasts for any city on earth" });
    await market.list({ description: "Translates text between any two languages" });
    const { logger } = market.server.contexts.listings;
    for (const level of ["error", "fatal"] as const)
      vi.spyOn(logger, level).mockImplementation((...args: unknown[]) => void logged.push(args));
    client = new Client({ name: "hostile-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${market.server.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await market?.close();
    await seller?.close();
  });
  beforeEach(() => {
    logged.length = 0;
  });

  async function get(path: string) {
    const response = await market.server.fetch(path);
    const text = await response.text();
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      text,
      body: JSON.parse(text) as ErrorBody,
    };
  }

  function expectRefusal(answer: Awaited<ReturnType<typeof get>>, parameter: string, label: string) {
    expect(answer.status, label).toBe(400);
    expect(answer.type, label).toBe(JSON_TYPE);
    expect(answer.body.error, label).toBe("invalid_request");
    expect(answer.body.fields, label).toContainEqual({
      in: "query",
      field: parameter,
      message: "must not contain control characters (U+0000 to U+001F, U+007F)",
    });
  }

  describe("search text", () => {
    it.each(SEARCH_TEXT)("%s refuses control characters in %s with a 400 naming it", async (route, parameter) => {
      for (const control of CONTROLS) {
        for (const text of [`abc${control}`, `${control}`, `we${control}ather`]) {
          const label = `${route}?${parameter}=${JSON.stringify(text)}`;
          const answer = await get(`${route}?${parameter}=${encodeURIComponent(text)}`);
          expectRefusal(answer, parameter, label);
        }
      }
      expect(logged).toEqual([]);
    });

    it.each(SEARCH_ROUTES)(
      "%s refuses control characters in network, scheme and cursor, and no other filter is a 5xx",
      async (route) => {
        const query = route.startsWith("/discovery") ? "query=weather&" : "";
        for (const control of ["\u0000", "\u0007", "\u007f"]) {
          expectRefusal(
            await get(`${route}?${query}cursor=${encodeURIComponent(`eip155${control}8453`)}`),
            "cursor",
            `${route} cursor ${show(control)}`,
          );
          // network and scheme have their own formats (CAIP-2, a scheme name), which no control character fits.
          for (const parameter of ["network", "scheme"]) {
            const answer = await get(`${route}?${query}${parameter}=${encodeURIComponent(`eip155${control}8453`)}`);
            expect(answer.status, `${route} ${parameter} ${show(control)}`).toBe(400);
            expect(answer.body.fields?.map((field) => field.field)).toContain(parameter);
          }
        }
        for (const [parameter, value] of [
          ["payTo", "0x\u0000"],
          ["type", "http\u0000"],
          ["cursor", "\u00ff".repeat(40)],
          ["cursor", "x".repeat(600)],
          ["limit", "1\u0000"],
          ["offset", "%00"],
          ["includeSeed", "true\u0000"],
        ] as const) {
          const answer = await get(`${route}?${query}${parameter}=${encodeURIComponent(value)}`);
          expect(answer.status, `${route} ${parameter}`).toBe(400);
          expect(answer.type).toBe(JSON_TYPE);
          expect(
            answer.body.fields?.map((field) => field.field),
            `${route} ${parameter}`,
          ).toContain(parameter);
        }
        expect(logged).toEqual([]);
      },
    );

    it("still finds text that is merely unusual: non-ASCII, C1 controls, emoji, quotes, SQL and FTS syntax", async () => {
      for (const text of [
        "café",
        "\u0085weather",
        "🌦 weather",
        `"weather" OR 1=1 --`,
        "weather*",
        "%_\\",
        "NEAR(a b)",
      ]) {
        for (const route of SEARCH_ROUTES) {
          const response = await market.server.fetch(`${route}?query=${encodeURIComponent(text)}`);
          expect(response.status, `${route} ${text}`).toBe(200);
        }
      }
      const found = await market.json<{ items: Array<{ description: string }> }>("/search?q=weather");
      expect(found.body.items.map((item) => item.description)).toEqual(["Weather forecasts for any city on earth"]);
      expect(logged).toEqual([]);
    });
  });

  describe("the MCP tool list_market", () => {
    const call = (args: Record<string, unknown>) =>
      client.callTool({ name: "list_market", arguments: args }) as Promise<CallToolResult>;
    const textOf = (result: CallToolResult) =>
      result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");

    it("refuses control characters in query and cursor as a tool error naming the argument", async () => {
      for (const control of CONTROLS) {
        for (const [argument, value] of [
          ["query", `abc${control}`],
          ["query", control],
          ["cursor", `c${control}`],
        ] as const) {
          const result = await call({ [argument]: value });
          const label = `${argument} ${show(control)}`;
          expect(result.isError, label).toBe(true);
          expect(textOf(result), label).toContain(argument);
          expect(textOf(result), label).toContain("control characters");
        }
      }
      expect(logged).toEqual([]);
    });

    it("advertises the contract's own pattern and length for query", async () => {
      const { tools } = await client.listTools();
      const query = tools.find((tool) => tool.name === "list_market")!.inputSchema.properties!.query as {
        pattern?: string;
        maxLength?: number;
      };
      const contract = market.server.contexts.listings.contract.document as {
        components: { parameters: Record<string, { name: string; schema: { pattern: string; maxLength: number } }> };
      };
      const fromContract = Object.values(contract.components.parameters).find(
        (parameter) => parameter.name === "query",
      )!.schema;
      expect(fromContract.pattern).toEqual(expect.any(String));
      expect(query.pattern).toBe(fromContract.pattern);
      expect(query.maxLength).toBe(fromContract.maxLength);
    });

    it("still searches plain text", async () => {
      const result = await call({ query: "weather" });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain("Weather forecasts for any city on earth");
    });
  });

  describe("the listing body", () => {
    const body = (overrides: Record<string, unknown> = {}) => summariseListing(seller, overrides);
    const post = async (path: string, payload: unknown) => {
      const response = await market.server.fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
      });
      const text = await response.text();
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        body: JSON.parse(text) as ErrorBody & { ok?: boolean; checks?: Array<{ name: string; reason?: string }> },
      };
    };

    /** The dry run and the unpaid paid route answer alike: 400 invalid_listing naming `field`, before any probe or challenge. */
    async function expectRefusedOnBothRoutes(payload: Record<string, unknown>, field: string, label: string) {
      const probes = seller.requests.length;
      for (const path of ["/listings/validate", "/listings"]) {
        const answer = await post(path, payload);
        expect(answer.status, `${path} ${label}`).toBe(400);
        expect(answer.type).toBe(JSON_TYPE);
        expect(answer.body.error, `${path} ${label}`).toBe("invalid_listing");
        expect(
          answer.body.fields?.map((entry) => entry.field),
          `${path} ${label}`,
        ).toEqual([field]);
      }
      expect(seller.requests.length, label).toBe(probes);
    }

    it("refuses a description with control characters other than tab and line feed", async () => {
      for (const control of CONTROLS.filter((char) => char !== "\t" && char !== "\n")) {
        await expectRefusedOnBothRoutes(
          body({ description: `Summarises pages${control} into bullets` }),
          "/description",
          show(control),
        );
      }
      await expectRefusedOnBothRoutes(
        body({ description: "Summarises pages \ud800 into bullets" }),
        "/description",
        "unpaired surrogate",
      );
      const formatted = await post(
        "/listings/validate",
        body({ description: "Summarises pages:\n\t- five bullets\n\t- one title" }),
      );
      expect(formatted.status).toBe(200);
      expect(logged).toEqual([]);
    });

    it("refuses an inputSchema deeper than 32 levels or larger than 16 KiB, on both routes, before payment", async () => {
      expect(depthOf(nested(32))).toBe(32);
      expect((await post("/listings/validate", body({ inputSchema: nested(32) }))).status).toBe(200);
      for (const depth of [33, 3000])
        await expectRefusedOnBothRoutes(body({ inputSchema: nested(depth) }), "/inputSchema", `depth ${depth}`);
      const deepArray = JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) as unknown;
      await expectRefusedOnBothRoutes(
        body({ inputSchema: { type: "array", examples: deepArray } }),
        "/inputSchema",
        "deep array",
      );

      const large = { type: "object", description: "x".repeat(16 * 1024) };
      await expectRefusedOnBothRoutes(body({ inputSchema: large }), "/inputSchema", "over 16 KiB");
      const fits = { type: "object", description: "x".repeat(16 * 1024 - 60) };
      expect(Buffer.byteLength(JSON.stringify(fits))).toBeLessThanOrEqual(16 * 1024);
      expect((await post("/listings/validate", body({ inputSchema: fits }))).status).toBe(200);
      expect(logged).toEqual([]);
    });

    it("refuses an inputSchema with a NUL or an unpaired surrogate that no database could store", async () => {
      await expectRefusedOnBothRoutes(
        body({ inputSchema: { type: "string", description: "a\u0000b" } }),
        "/inputSchema",
        "NUL in a value",
      );
      await expectRefusedOnBothRoutes(
        body({ inputSchema: { type: "object", properties: { "a\u0000": { type: "string" } } } }),
        "/inputSchema",
        "NUL in a key",
      );
      await expectRefusedOnBothRoutes(
        body({ inputSchema: { type: "string", description: "\udc00" } }),
        "/inputSchema",
        "unpaired surrogate",
      );
      const multiline = await post(
        "/listings/validate",
        body({ inputSchema: { type: "string", description: "line one\nline two\ttab \u{1F600}" } }),
      );
      expect(multiline.status).toBe(200);
      expect(logged).toEqual([]);
    });

    it("the dry run names the normalised form a resource with < or quotes is listed in", async () => {
      const answer = await post("/listings/validate", body({ resource: `${seller.url}/api/<summarise>?q="x"` }));
      expect(answer.status).toBe(200);
      const resource = answer.body.checks!.find((check) => check.name === "resource")!;
      expect(resource.reason).toBe(
        `${seller.url}/api/%3Csummarise%3E?q=%22x%22 is a well-formed https URL (listed in this normalised form)`,
      );
    });

    it("refuses a too-deep inputSchema in the MCP validate_listing tool as a tool error", async () => {
      const result = (await client.callTool({
        name: "validate_listing",
        arguments: body({ inputSchema: nested(3000) }),
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(result.content.map((block) => (block.type === "text" ? block.text : "")).join("")).toContain(
        "/inputSchema nests deeper than 32 levels",
      );
      expect(logged).toEqual([]);
    });
  });

  describe("a storage failure in a catalog read", () => {
    it("is a 503 JSON naming no internals, logged once with its stack, not once per request", async () => {
      const { prisma } = market.server.database;
      await prisma.$executeRawUnsafe(`ALTER TABLE "Listing" RENAME TO "ListingAway"`);
      try {
        for (let i = 0; i < 5; i++) {
          const response = await market.server.fetch(`/search?query=${encodeURIComponent(`storage failure ${i}`)}`);
          const text = await response.text();
          expect(response.status, text).toBe(503);
          expect(response.headers.get("content-type")).toBe(JSON_TYPE);
          expect(response.headers.get("retry-after")).toBe("5");
          expect(JSON.parse(text)).toMatchObject({ error: "storage_unavailable" });
          expect(text).not.toMatch(/Listing|prisma|SQL|at \w+ \(/i);
        }
        const tool = (await client.callTool({
          name: "list_market",
          arguments: { query: "storage failure" },
        })) as CallToolResult;
        expect(tool.isError).toBe(true);
      } finally {
        await prisma.$executeRawUnsafe(`ALTER TABLE "ListingAway" RENAME TO "Listing"`);
      }
      expect(logged.length, JSON.stringify(logged).slice(0, 2000)).toBeLessThanOrEqual(1);
      expect((await market.server.fetch("/search?query=storage+restored")).status).toBe(200);
    });
  });
});
