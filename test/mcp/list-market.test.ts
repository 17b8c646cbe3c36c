// list_market through the SDK's own client: its arguments are the query parameters of GET /search
// (searchCatalog) as generated/openapi.json declares them, and it answers what GET /search answers.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, sellerAddress, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import {
  rawContract as raw,
  type RawParameter as Parameter,
  type SchemaNode as Node,
} from "../support/raw-contract.js";

/** searchCatalog's query parameters, read from the raw contract: no code under test involved. */
function searchParameters(): Parameter[] {
  const operation = Object.values(raw.paths)
    .flatMap((item) => Object.values(item))
    .find((candidate) => candidate.operationId === "searchCatalog")!;
  const target = (ref: string) => ref.split("/").pop()!;
  return operation
    .parameters!.map((parameter) => (parameter.$ref ? raw.components.parameters[target(parameter.$ref)]! : parameter))
    .filter((parameter) => parameter.in === "query")
    .map((parameter) => ({ ...parameter, schema: resolved(parameter.schema) }));
}

/** A parameter's schema with its reference resolved: `$ref`, or `allOf: [{ $ref }]` beside its own keywords (a default). */
function resolved(schema: Node): Node {
  const target = (ref: string) => raw.components.schemas[ref.split("/").pop()!]!;
  if (schema.$ref) return target(schema.$ref as string);
  const [only, ...more] = (schema.allOf as Node[] | undefined) ?? [];
  if (only?.$ref && more.length === 0) {
    const { allOf: _, ...own } = schema;
    return { ...target(only.$ref as string), ...own };
  }
  return schema;
}

const CONSTRAINTS = ["type", "pattern", "minLength", "maxLength", "minimum", "maximum", "enum", "default"] as const;
const INT32_MAX = 2 ** 31 - 1;

let market: CatalogServer;
let client: Client;
let listMarket: Tool;
const translatorPayTo = sellerAddress(0x7a);

const call = (args: Record<string, unknown>) =>
  client.callTool({ name: "list_market", arguments: args }) as Promise<CallToolResult>;
/** GET /search with the same arguments as query parameters. */
const searchPath = (args: Record<string, unknown>) =>
  `/search?${new URLSearchParams(Object.fromEntries(Object.entries(args).map(([key, value]) => [key, String(value)])))}`;
const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");

beforeAll(async () => {
  market = await startCatalogServer(databaseKinds[0]!, { LOAD_SEED: "true" });
  for (let i = 0; i < 3; i++)
    await market.list({ description: `Weather forecast service number ${i}`, sellerPayTo: sellerAddress(i) });
  await market.list({ description: "Translates text between any two languages", sellerPayTo: translatorPayTo });
  client = new Client({ name: "list-market-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${market.server.url}/mcp`)));
  listMarket = (await client.listTools()).tools.find((tool) => tool.name === "list_market")!;
});

afterAll(async () => {
  await client?.close();
  await market?.close();
});

describe("list_market's input schema", () => {
  it("has one property per query parameter of searchCatalog, in the contract's order, and refuses others", () => {
    const parameters = searchParameters();
    expect(parameters.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(["query", "includeSeed", "limit", "offset", "cursor"]),
    );
    expect(Object.keys(listMarket.inputSchema.properties ?? {})).toEqual(parameters.map((parameter) => parameter.name));
    expect(listMarket.inputSchema.required ?? []).toEqual(
      parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
    );
    expect(listMarket.inputSchema.additionalProperties).toBe(false);
  });

  it("gives each property its parameter's description, type and constraints", () => {
    const properties = listMarket.inputSchema.properties as Record<string, Node>;
    for (const { name, description, schema } of searchParameters()) {
      const property = properties[name]!;
      expect(property.description, name).toBe(description);
      for (const keyword of CONSTRAINTS) {
        // An int32 without its own bound is held to the int32 range, as the HTTP route holds it.
        const int32Bound = schema.format === "int32" && keyword === "maximum" && schema.maximum === undefined;
        if (int32Bound) expect(property.maximum, `${name}.maximum`).toBe(INT32_MAX);
        else expect(property[keyword], `${name}.${keyword}`).toEqual(schema[keyword]);
      }
    }
  });
});

describe("list_market's answers", () => {
  const cases: Array<Record<string, string | number | boolean>> = [
    {},
    { q: "weather", limit: 2 },
    { query: "weather", offset: 1 },
    { includeSeed: true, limit: 200 },
    { leftoverSeed: "true", limit: 200 },
    // GET /search's own seed rule: an explicit excludeSeed=true wins over includeSeed=true.
    { includeSeed: true, excludeSeed: true, limit: 200 },
    { foreign: false, limit: 200 },
    { payTo: translatorPayTo },
    { type: "mcp" },
    { network: "eip155:8453", scheme: "exact", limit: 3 },
  ];

  it.each(cases)("are GET /search's document for %o", async (args) => {
    const result = await call(args);
    expect(result.isError, textOf(result)).toBeFalsy();
    const http = await market.json(searchPath(args));
    expect(http.status).toBe(200);
    expect(result.structuredContent).toEqual(http.body);
  });

  it("differ where the arguments do: a payTo, a seed filter and the excludeSeed rule all change the page", async () => {
    const page = async (args: Record<string, unknown>) =>
      (await call(args)).structuredContent as {
        items: Array<{ accepts: Array<{ payTo: string }>; metadata: { leftoverSeed: boolean } }>;
      };
    expect((await page({ payTo: translatorPayTo })).items.map((item) => item.accepts[0]!.payTo)).toEqual([
      translatorPayTo,
    ]);
    expect((await page({ includeSeed: true, limit: 200 })).items.some((item) => item.metadata.leftoverSeed)).toBe(true);
    expect(
      (await page({ includeSeed: true, excludeSeed: true, limit: 200 })).items.some(
        (item) => item.metadata.leftoverSeed,
      ),
    ).toBe(false);
  });

  it.each([
    [{ offset: INT32_MAX + 1 }, "offset"],
    [{ leftoverSeed: "yes" }, "leftoverSeed"],
    [{ type: "ftp" }, "type"],
    [{ payTo: "0x12" }, "payTo"],
    [{ q: "a".repeat(201) }, "q"],
    [{ network: "eip155:\u0007" }, "network"],
    [{ q: "we\u0007ather" }, "q must not contain control characters"],
    [{ extensions: "two words" }, "extensions"],
  ] as Array<[Record<string, unknown>, string]>)(
    "refuses %o as a tool error naming the argument, as GET /search answers 400",
    async (args, named) => {
      const result = await call(args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(named);
      const http = await market.json(searchPath(args));
      expect(http.status).toBe(400);
    },
  );
});
