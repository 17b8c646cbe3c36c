// The a2a area: the A2A agent the card advertises, driven with the A2A SDK's own clients (A2A 1.0
// through ClientFactory from the card, A2A 0.3 through its v0.3 transport at the card's url) and by
// raw JSON-RPC for the wire format and the errors. Every skill answers what its MCP tool answers.
import { randomUUID } from "node:crypto";
import { Role, type Message, type Part } from "@a2a-js/sdk";
import { Client as A2aClient, ClientFactory } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, sellerAddress, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  SELLER_PAY_TO,
  startSeller,
  summariseListing,
  type Seller,
} from "../support/sellers.js";
import { describeAreaRoutes, jsonOf } from "./area-routes.js";

const SKILLS = ["list_market", "how_to_sell", "how_to_buy", "validate_listing"] as const;
const JSON_HEADERS = { "content-type": "application/json" };

let market: CatalogServer;
let seller: Seller;
let mcp: McpClient;
let v1: A2aClient;
let v03: A2aClient;
let card: Record<string, any>;

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
    challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "30000", asset })])),
  );
  for (let i = 0; i < 3; i++)
    await market.list({ description: `Weather forecast service number ${i}`, sellerPayTo: sellerAddress(i) });
  mcp = new McpClient({ name: "a2a-test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${market.server.url}/mcp`)));
  // The SDK's default factory reads /.well-known/agent-card.json from our origin and picks its interface.
  v1 = await new ClientFactory().createFromUrl(market.server.url);
  card = (await market.json("/.well-known/agent-card.json")).body;
  const coreCard = await v1.getAgentCard();
  v03 = new A2aClient(new LegacyJsonRpcTransport({ endpoint: card.url as string }), coreCard);
});

afterAll(async () => {
  await mcp?.close();
  await market?.close();
  await seller?.close();
});

const dataPart = (value: Record<string, unknown>): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});
const textPart = (value: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

function userMessage(parts: Part[], metadata?: Record<string, unknown>): Message {
  return {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What the agent answered: the data of its DataPart and the text of its TextPart. */
async function send(client: A2aClient, parts: Part[], metadata?: Record<string, unknown>) {
  const answer = await client.sendMessage({
    tenant: "",
    message: userMessage(parts, metadata),
    configuration: undefined,
    metadata: undefined,
  });
  expect("role" in answer, "the answer is a Message").toBe(true);
  const message = answer as Message;
  expect(message.role).toBe(Role.ROLE_AGENT);
  const data = message.parts.flatMap((part) =>
    part.content?.$case === "data" ? [part.content.value as Record<string, any>] : [],
  );
  const text = message.parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : []));
  expect(data).toHaveLength(1);
  return { data: data[0]!, text: text.join("\n"), metadata: message.metadata };
}

const callTool = async (name: string, args: Record<string, unknown> = {}) =>
  (await mcp.callTool({ name, arguments: args })) as CallToolResult;
const toolText = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");

/** A raw POST /a2a (the test server holds every answer to the contract). */
async function post(body: string, headers: Record<string, string> = JSON_HEADERS) {
  const response = await market.server.fetch("/a2a", { method: "POST", headers, body });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as Record<string, any> };
}
const rpc = (method: string, params?: unknown, id: number | string = 7) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
const legacyMessage = (parts: unknown[], metadata?: Record<string, unknown>) => ({
  message: { kind: "message", messageId: randomUUID(), role: "user", parts, ...(metadata && { metadata }) },
});

describeAreaRoutes("a2a", () => market.server, {
  postA2a: {
    status: 200,
    request: {
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: legacyMessage([{ kind: "data", data: { skill: "how_to_buy" } }]),
      },
    },
    check(answer) {
      const reply = jsonOf(answer);
      expect(reply).toMatchObject({ jsonrpc: "2.0", id: 1, result: { kind: "message", role: "agent" } });
      expect(reply.result.parts[0]).toMatchObject({ kind: "data", data: { title: expect.stringMatching(/^Buy: /) } });
    },
  },
});

describe("the card leads the SDK's clients to the agent", () => {
  it("names /a2a as its JSON-RPC url, for A2A 0.3 and 1.0, at every card path including /.well-known/agent.json", async () => {
    const endpoint = `${market.server.contexts.listings.market.baseUrl}/a2a`;
    expect(card).toMatchObject({ protocolVersion: "0.3.0", url: endpoint, preferredTransport: "JSONRPC" });
    expect(card.supportedInterfaces).toEqual([
      { url: endpoint, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: endpoint, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    ]);
    expect(card.skills.map((skill: { id: string }) => skill.id)).toEqual(SKILLS);
    expect(card.description).not.toMatch(/not offered/);
    const legacyPath = await market.server.fetch("/.well-known/agent.json");
    expect(await legacyPath.text()).toBe(JSON.stringify(card));
  });

  it("the default ClientFactory chose A2A 1.0 over JSON-RPC; the v0.3 client speaks 0.3", () => {
    expect([v1.transport.protocolName, v1.protocolVersion]).toEqual(["JSONRPC", "1.0"]);
    expect([v03.transport.protocolName, v03.protocolVersion]).toEqual(["JSONRPC", "0.3"]);
  });
});

describe.each([
  ["A2A 1.0", () => v1],
  ["A2A 0.3", () => v03],
])("each skill over %s answers what its MCP tool answers", (_, client) => {
  it("list_market: the same page, with the same arguments", async () => {
    const args = { query: "weather", limit: 2 };
    const answer = await send(client(), [dataPart({ skill: "list_market", arguments: args })]);
    const tool = await callTool("list_market", args);
    expect(answer.data).toEqual(tool.structuredContent);
    expect(answer.data.items).toHaveLength(2);
    expect(answer.text).toBe(toolText(tool));
    expect(answer.metadata).toEqual({ skill: "list_market", isError: false });
  });

  it.each(["how_to_sell", "how_to_buy"])("%s: the playbook", async (skill) => {
    const answer = await send(client(), [dataPart({ skill })]);
    const tool = await callTool(skill);
    expect(answer.data).toEqual(tool.structuredContent);
    expect(answer.data.steps.length).toBeGreaterThan(0);
  });

  it("validate_listing: the report of a good body, probing the seller", async () => {
    const body = summariseListing(seller);
    const answer = await send(client(), [dataPart({ skill: "validate_listing", arguments: body })]);
    const tool = await callTool("validate_listing", body);
    expect(answer.data).toMatchObject({ ok: true, charged: false, saved: false });
    expect(answer.data).toEqual(tool.structuredContent);
  });

  it("validate_listing: a bad body gets the tool's own refusal as data, not a server error", async () => {
    const body = { resource: "http://not-https.example/x", priceUsdc: "0.03" };
    const answer = await send(client(), [dataPart({ skill: "validate_listing", arguments: body })]);
    const tool = await callTool("validate_listing", body);
    expect(tool.isError).toBe(true);
    expect(answer.data).toEqual({ isError: true, message: toolText(tool) });
    expect(answer.data.message).toMatch(/resource/);
    expect(answer.metadata).toEqual({ skill: "validate_listing", isError: true });
  });

  it("metadata.skill picks the skill and a DataPart carries its arguments", async () => {
    const answer = await send(client(), [dataPart({ query: "weather", limit: 1 })], { skill: "list_market" });
    expect(answer.data).toEqual((await callTool("list_market", { query: "weather", limit: 1 })).structuredContent);
  });

  it("text naming a skill runs it; any other text searches the market for its words", async () => {
    expect((await send(client(), [textPart("How do I sell my API here?")])).data).toEqual(
      (await callTool("how_to_sell")).structuredContent,
    );
    expect((await send(client(), [textPart("please validate_listing")])).data).toEqual({
      isError: true,
      message: toolText(await callTool("validate_listing")),
    });
    expect((await send(client(), [textPart("I need a weather forecast")])).data).toEqual(
      (await callTool("list_market", { query: "I need a weather forecast" })).structuredContent,
    );
    expect((await send(client(), [textPart("")])).data).toEqual((await callTool("list_market")).structuredContent);
  });

  it("an unknown skill is refused by name, with the skills there are", async () => {
    const answer = await send(client(), [dataPart({ skill: "transfer_funds" })]);
    expect(answer.data).toEqual({
      isError: true,
      skill: "transfer_funds",
      message: expect.stringContaining("list_market, how_to_sell, how_to_buy, validate_listing"),
    });
  });
});

describe("the A2A 0.3 wire format (message/send)", () => {
  it("answers a Message whose first part is a DataPart", async () => {
    const { status, json } = await post(
      rpc("message/send", legacyMessage([{ kind: "data", data: { skill: "how_to_sell" } }]), "a"),
    );
    expect(status).toBe(200);
    expect(json).toMatchObject({
      jsonrpc: "2.0",
      id: "a",
      result: { kind: "message", role: "agent", metadata: { skill: "how_to_sell" } },
    });
    expect(json.result.parts.map((part: { kind: string }) => part.kind)).toEqual(["data", "text"]);
    expect(json.result.parts[0].data).toEqual((await callTool("how_to_sell")).structuredContent);
  });
});

describe("JSON-RPC errors, never a 500 or a stack", () => {
  const cases: Array<
    [string, () => Promise<{ status: number; json: Record<string, any>; text: string }>, number, number]
  > = [
    ["text that is not JSON", () => post("{not json"), 400, -32700],
    ["JSON that is not a JSON-RPC request", () => post(JSON.stringify({ hello: "world" })), 400, -32600],
    ["an unknown method", () => post(rpc("agent/dance", {})), 200, -32601],
    ["message/send without a message", () => post(rpc("message/send", {})), 200, -32602],
    [
      "message/stream (streaming is not offered)",
      () => post(rpc("message/stream", legacyMessage([{ kind: "text", text: "hi" }]))),
      200,
      -32004,
    ],
    ["tasks/get (no task is ever created)", () => post(rpc("tasks/get", { id: "nope" })), 200, -32001],
    [
      "an A2A version the agent does not speak",
      () => post(rpc("message/send", legacyMessage([])), { ...JSON_HEADERS, "a2a-version": "2.0" }),
      200,
      -32009,
    ],
    ["a media type that is not JSON", () => post(rpc("message/send"), { "content-type": "text/plain" }), 415, -32005],
  ];
  it.each(cases)("%s", async (_, request, status, code) => {
    const answer = await request();
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ jsonrpc: "2.0", error: { code } });
    expect(answer.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
  });
});
