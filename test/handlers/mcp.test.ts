// The mcp area: every route of it, the MCP server over real HTTP (the SDK's own client for the happy
// paths, raw requests for the protocol errors), and the MCP documents against the live tools/list.
import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buyPlaybook, sellPlaybook } from "../../src/documents/playbooks.js";
import { databaseKinds, sellerAddress, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  startSeller,
  type Seller,
  SELLER_PAY_TO,
  summariseListing,
} from "../support/sellers.js";
import { startTestServer } from "../support/server.js";
import { describeAreaRoutes, jsonOf, type RouteAnswer } from "./area-routes.js";

const SELLER = SELLER_PAY_TO;
const TOOL_NAMES = ["list_market", "how_to_sell", "how_to_buy", "validate_listing"];
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

interface CatalogPage {
  query: string | null;
  items: Array<{ resource: string; metadata: { listingId: string; leftoverSeed: boolean } }>;
  pagination: { limit: number; offset: number; total: number; cursor: string | null; nextCursor: string | null };
}

interface Report {
  ok: boolean;
  charged: boolean;
  saved: boolean;
  checks: Array<{ name: string; ok: boolean; code?: string }>;
}

let market: CatalogServer;
let seller: Seller;
let client: Client;
const weatherIds: string[] = [];

async function connect(url: string): Promise<Client> {
  const connected = new Client({ name: "mcp-test", version: "1.0.0" });
  await connected.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return connected;
}

const call = (name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");

/** A raw POST /mcp; the answer must fit the contract whatever its status. */
async function rawPost(body: string, headers: Record<string, string> = MCP_HEADERS) {
  const response = await market.server.fetch("/mcp", { method: "POST", headers, body });
  const text = await response.text();
  const json = text ? (JSON.parse(text) as Record<string, any>) : undefined;
  return { status: response.status, json, headers: response.headers };
}

/** node:http, because fetch does not let a caller choose the Host header. */
function postWithHeaders(headers: Record<string, string>): Promise<{ status: number; json: Record<string, any> }> {
  const url = new URL(`${market.server.url}/mcp`);
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: "/mcp", method: "POST", headers: { ...MCP_HEADERS, ...headers } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, any> }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const rpc = (method: string, params?: unknown, id: number | null = 7) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

beforeAll(async () => {
  market = await startCatalogServer(databaseKinds[0]!, {
    LOAD_SEED: "true",
    ALLOW_LOOPBACK_SELLERS: "true",
    PAYMENT_RATE_PER_CLIENT: "100000",
    PROBE_RATE_PER_CLIENT: "1000",
    PROBE_RATE_PER_HOST: "1000",
  });
  const asset = market.server.contexts.listings.market.asset;
  seller = await startSeller(() =>
    challengeAnswer(challenge([requirement({ payTo: SELLER, amount: "30000", asset })])),
  );
  for (let i = 0; i < 5; i++) {
    weatherIds.push(
      (await market.list({ description: `Weather forecast service number ${i}`, sellerPayTo: sellerAddress(i) })).id,
    );
  }
  await market.list({ description: "Translates text between any two languages" });
  client = await connect(market.server.url);
});

afterAll(async () => {
  await client?.close();
  await market?.close();
  await seller?.close();
});

const toolNames = (answer: RouteAnswer) =>
  jsonOf<{ tools: Array<{ name: string }> }>(answer).tools.map((tool) => tool.name);
const endpoint = () => `${market.server.contexts.listings.market.baseUrl}/mcp`;

describeAreaRoutes("mcp", () => market.server, {
  getMcpDiscovery: {
    status: 200,
    check(answer) {
      expect(jsonOf(answer)).toMatchObject({ url: endpoint(), transport: "streamable-http", stateless: true });
      expect(toolNames(answer)).toEqual(TOOL_NAMES);
    },
  },
  postMcp: {
    status: 200,
    request: { headers: MCP_HEADERS, body: { jsonrpc: "2.0", id: 1, method: "ping" } },
    check(answer) {
      expect(jsonOf(answer)).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    },
  },
  getMcpServers: {
    status: 200,
    check(answer) {
      expect(jsonOf(answer).mcpServers["x402-marketplace"].url).toBe(endpoint());
    },
  },
  getMcpTools: {
    status: 200,
    check(answer) {
      expect(jsonOf(answer)).toMatchObject({ url: endpoint(), count: TOOL_NAMES.length });
      expect(toolNames(answer)).toEqual(TOOL_NAMES);
    },
  },
  getMcpServerCard: {
    status: 200,
    check(answer) {
      expect(jsonOf(answer).serverInfo.name).toBe("x402-marketplace");
      expect(toolNames(answer)).toEqual(TOOL_NAMES);
    },
  },
});

describe("MCP over Streamable HTTP with the official client", () => {
  it("initializes: identity, tools capability and the policy in the instructions", () => {
    expect(client.getServerVersion()).toMatchObject({ name: "x402-marketplace", version: "1.70.0" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("Not tax or investment advice.");
    expect(instructions).toContain("Lookups of personal phone numbers or e-mail addresses are refused.");
  });

  it("lists the four tools with input and output schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.list_market!.inputSchema.properties?.limit).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 200,
    });
    expect(byName.validate_listing!.inputSchema.required).toEqual([
      "resource",
      "priceUsdc",
      "description",
      "sellerPayTo",
    ]);
    expect(byName.validate_listing!.outputSchema?.required).toEqual(["ok", "charged", "saved", "checks"]);
  });

  it("answers ping", async () => {
    expect(await client.ping()).toEqual({});
  });
});

describe("list_market", () => {
  it("lists foreign listings by default, the same document as GET /search", async () => {
    const result = await call("list_market");
    expect(result.isError).toBeFalsy();
    const page = result.structuredContent as unknown as CatalogPage;
    expect(page.pagination).toMatchObject({ offset: 0, total: 6, limit: 20, nextCursor: null });
    expect(page.items.every((item) => !item.metadata.leftoverSeed)).toBe(true);
    expect(textOf(result)).toContain("6 of 6 listings");
    const viaHttp = await market.json("/search");
    expect(page).toEqual(viaHttp.body);
  });

  it("includes the seed rows with includeSeed", async () => {
    const page = (await call("list_market", { includeSeed: true, limit: 200 }))
      .structuredContent as unknown as CatalogPage;
    expect(page.items.some((item) => item.metadata.leftoverSeed)).toBe(true);
    expect(page.pagination.total).toBeGreaterThan(6);
  });

  it("filters by query and pages with limit and cursor, or offset", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const result = await call("list_market", { query: "weather", limit: 2, ...(cursor ? { cursor } : {}) });
      const page = result.structuredContent as unknown as CatalogPage;
      expect(page.query).toBe("weather");
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.metadata.listingId));
      cursor = page.pagination.nextCursor ?? undefined;
      if (cursor) expect(textOf(result)).toContain(cursor);
    } while (cursor);
    expect(seen.sort()).toEqual([...weatherIds].sort());
    const byOffset = (await call("list_market", { query: "weather", limit: 2, offset: 4 }))
      .structuredContent as unknown as CatalogPage;
    expect(byOffset.items).toHaveLength(1);
    expect(byOffset.pagination).toMatchObject({ offset: 4, total: 5, nextCursor: null });
  });

  it("reports bad arguments as tool errors", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ limit: 0 }, "limit"],
      [{ limit: 201 }, "limit"],
      [{ offset: -1 }, "offset"],
      [{ cursor: "not-a-cursor" }, "cursor"],
      [{ colour: "blue" }, "colour"],
    ];
    for (const [args, named] of cases) {
      const result = await call("list_market", args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(result), JSON.stringify(args)).toContain(named);
    }
    const other = (await call("list_market", { query: "weather", limit: 2 }))
      .structuredContent as unknown as CatalogPage;
    const misused = await call("list_market", { query: "translate", cursor: other.pagination.nextCursor });
    expect(misused.isError).toBe(true);
    expect(textOf(misused)).toContain("another search");
  });
});

describe("how_to_sell and how_to_buy", () => {
  it("return the playbooks as structured content and readable text", async () => {
    const { market: facts } = market.server.contexts.listings;
    const sell = await call("how_to_sell");
    expect(sell.structuredContent).toEqual(JSON.parse(JSON.stringify(sellPlaybook(facts))));
    expect(textOf(sell)).toContain(`${facts.feeUsdc} USDC`);
    expect(textOf(sell)).toContain(`POST ${facts.baseUrl}/listings/validate`);
    const buy = await call("how_to_buy");
    expect(buy.structuredContent).toEqual(JSON.parse(JSON.stringify(buyPlaybook(facts))));
    expect(textOf(buy)).toMatch(/1\. .+\n/);
    expect((await call("how_to_buy", { extra: 1 })).isError).toBe(true);
  });
});

describe("validate_listing", () => {
  const body = (overrides: Record<string, unknown> = {}) => summariseListing(seller, overrides);

  it("returns the report of POST /listings/validate for a good body, probing the seller, saving nothing", async () => {
    const probes = seller.requests.length;
    const result = await call("validate_listing", body());
    expect(result.isError).toBeFalsy();
    const report = result.structuredContent as unknown as Report;
    expect(report).toMatchObject({ ok: true, charged: false, saved: false });
    expect(report.checks.map((check) => check.name)).toEqual([
      "schema",
      "network",
      "price",
      "description",
      "sellerPayTo",
      "resource",
      "seller-probe",
    ]);
    expect(seller.requests.slice(probes)).toEqual(["POST /api/summarise"]);
    const viaHttp = await market.json("/listings/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body()),
    });
    expect(report).toEqual(viaHttp.body);
    expect(textOf(result)).toContain("Every check passed");
    expect(textOf(result)).toContain("Nothing was charged");
  });

  it("names each failed check in the report (a result, not a tool error)", async () => {
    const result = await call(
      "validate_listing",
      body({ priceUsdc: "0", sellerPayTo: "0x0000000000000000000000000000000000000000" }),
    );
    expect(result.isError).toBeFalsy();
    const report = result.structuredContent as unknown as Report;
    expect(report.ok).toBe(false);
    expect(report.checks.filter((check) => !check.ok).map((check) => check.code)).toEqual([
      "price_not_positive",
      "zero_address",
      "pay_to_mismatch",
    ]);
    expect(textOf(result)).toContain("FAIL price (price_not_positive)");
  });

  it("reports a body that breaks the listing schema as a tool error naming the fields", async () => {
    const result = await call(
      "validate_listing",
      body({ priceUsdc: "cheap", network: "eip155:1", unknownField: true }),
    );
    expect(result.isError).toBe(true);
    for (const named of ["priceUsdc", "network", "unknownField"]) expect(textOf(result)).toContain(named);
    const { sellerListingCount } = (await market.json<{ sellerListingCount: number }>("/status.json")).body;
    expect(sellerListingCount).toBe(6);
  });

  it("shares the per-client probe limit with POST /listings/validate: over it, a tool error saying when to retry", async () => {
    const limited = await startTestServer({
      ALLOW_LOOPBACK_SELLERS: "true",
      PROBE_RATE_PER_CLIENT: "1",
      PROBE_RATE_PER_HOST: "1000",
    });
    const limitedClient = await connect(limited.url);
    try {
      const first = await limited.fetch("/listings/validate", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body()),
      });
      expect(first.status).toBe(200);
      const result = (await limitedClient.callTool({ name: "validate_listing", arguments: body() })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/Retry after \d+ s\./);
    } finally {
      await limitedClient.close();
      await limited.close();
    }
  });
});

describe("protocol errors over raw HTTP", () => {
  it("answers malformed JSON with -32700, never 400 invalid_json", async () => {
    for (const text of ["{not json", "", "[1,"]) {
      const { status, json } = await rawPost(text);
      expect(status, text).toBe(400);
      expect(json, text).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    }
  });

  it("answers JSON that is not a JSON-RPC message with -32600", async () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":1}',
      '{"hello":"world"}',
      "[]",
      '[{"jsonrpc":"1.0","id":1,"method":"ping"}]',
      "42",
    ]) {
      const { status, json } = await rawPost(text);
      expect(status, text).toBe(400);
      expect(json, text).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    }
  });

  it("answers an unknown method with -32601 and bad params with -32602", async () => {
    const unknown = await rawPost(rpc("tools/destroy"));
    expect(unknown.status).toBe(200);
    expect(unknown.json).toMatchObject({ id: 7, error: { code: -32601 } });
    const cases = [
      rpc("tools/call", {}),
      rpc("tools/call", { name: "list_market", arguments: "limit=5" }),
      rpc("tools/list", { cursor: 5 }),
      rpc("initialize", { protocolVersion: 1 }),
    ];
    for (const text of cases) {
      const { status, json } = await rawPost(text);
      expect(status, text).toBe(200);
      expect(json, text).toMatchObject({
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32602, message: expect.stringContaining("Invalid params") },
      });
    }
  });

  it("answers an unknown tool with an error result", async () => {
    const { status, json } = await rawPost(rpc("tools/call", { name: "buy_everything", arguments: {} }));
    expect(status).toBe(200);
    expect(json?.result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringContaining("buy_everything") }],
    });
  });

  it("answers a lone notification 202 with no body, and a batch with an array", async () => {
    const notification = await rawPost(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    expect(notification.status).toBe(202);
    expect(notification.json).toBeUndefined();
    const batch = await rawPost(`[${rpc("ping", undefined, 1)},${rpc("tools/list", undefined, 2)}]`);
    expect(batch.status).toBe(200);
    expect((batch.json as unknown as Array<{ id: number }>).map((answer) => answer.id)).toEqual([1, 2]);
  });

  it("follows the transport's Accept and media type rules", async () => {
    const accept = await rawPost(rpc("ping"), { "content-type": "application/json", accept: "application/json" });
    expect(accept.status).toBe(406);
    expect(accept.json).toMatchObject({ error: { code: -32000 } });
    const media = await rawPost(rpc("ping"), { "content-type": "text/plain", accept: MCP_HEADERS.accept });
    expect(media.status).toBe(415);
  });

  it("refuses a Host or Origin that is not allowed with 403 (DNS rebinding)", async () => {
    const port = new URL(market.server.url).port;
    expect(await postWithHeaders({ host: `evil.example:${port}` })).toMatchObject({
      status: 403,
      json: { error: { code: -32000, message: expect.stringContaining("Host") } },
    });
    expect(await postWithHeaders({ origin: "https://evil.example" })).toMatchObject({
      status: 403,
      json: { error: { message: expect.stringContaining("Origin") } },
    });
    expect(await postWithHeaders({ host: `localhost:${port}`, origin: "http://localhost:6274" })).toMatchObject({
      status: 200,
      json: { id: 1, result: {} },
    });
  });

  it("answers GET /mcp asking for an SSE stream with 405: the server is stateless", async () => {
    const response = await market.server.fetch("/mcp", { headers: { accept: "text/event-stream" } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toContain("POST");
  });
});

describe("MCP documents", () => {
  it("GET /mcp describes the endpoint and its tools", async () => {
    const { status, body } = await market.json<Record<string, any>>("/mcp");
    expect(status).toBe(200);
    expect(body.url).toBe(`${market.server.contexts.listings.market.baseUrl}/mcp`);
    expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOL_NAMES);
    expect(body.methods).toEqual([
      "initialize",
      "tools/list",
      "tools/call",
      "ping",
      "resources/list",
      "resources/templates/list",
      "resources/read",
      "prompts/list",
      "prompts/get",
      "completion/complete",
      "logging/setLevel",
    ]);
    expect(body.instructions).toBe(client.getInstructions());
  });

  it("the servers document points at /mcp, on both paths", async () => {
    for (const path of ["/mcp.json", "/.well-known/mcp.json"]) {
      const { status, body } = await market.json<Record<string, any>>(path);
      expect(status, path).toBe(200);
      expect(body.mcpServers["x402-marketplace"].url).toBe(`${market.server.contexts.listings.market.baseUrl}/mcp`);
    }
  });

  it("the tool catalogs and the server card agree with the live tools/list", async () => {
    const live = (await rawPost(rpc("tools/list"))).json!.result.tools;
    expect(live.map((tool: { name: string }) => tool.name)).toEqual(TOOL_NAMES);
    expect((await client.listTools()).tools).toEqual(live);
    for (const path of ["/mcp/tools.json", "/tools.json", "/skills.json"]) {
      const { status, body } = await market.json<Record<string, any>>(path);
      expect(status, path).toBe(200);
      expect(body.tools, path).toEqual(live);
      expect(body.count).toBe(4);
    }
    for (const path of ["/mcp-server.json", "/server-card.json", "/server.json", "/smithery.json"]) {
      const { status, body } = await market.json<Record<string, any>>(path);
      expect(status, path).toBe(200);
      expect(body.tools, path).toEqual(live);
      const { name, title, version } = client.getServerVersion()!;
      expect(body.serverInfo).toEqual({ name, title, version });
      expect(body.capabilities).toEqual(client.getServerCapabilities());
      expect(body.transport.endpoint).toBe(`${market.server.contexts.listings.market.baseUrl}/mcp`);
    }
  });
});
