import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  type Implementation,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { type MarketFacts } from "../market/facts.js";
import { CONTRACT_VERSION } from "../constants.js";
import { marketSummary, POLICY } from "../documents/agent-facts.js";
import type { McpServices } from "./context.js";
import { registerMarketPrompts } from "./prompts.js";
import { registerMarketResources } from "./resources.js";
import { registerMarketTools } from "./tools.js";
import { laneOf } from "../market-tools/context.js";

/** The machine name `initialize` announces; the human title is the marketplace's name. */
export const MCP_SERVER_NAME = "x402-marketplace";

export function serverIdentity(market: MarketFacts): Implementation {
  return { name: MCP_SERVER_NAME, title: market.name, version: CONTRACT_VERSION, websiteUrl: market.baseUrl };
}

export function serverInstructions(market: MarketFacts): string {
  return [
    marketSummary(market),
    "Tools: list_market searches the catalog with the arguments of GET /search (query or q, seed, type, payTo, network and scheme filters, limit, offset or cursor); how_to_sell and how_to_buy return the playbooks; " +
      "validate_listing dry-runs a listing body (it never charges and never saves). Listing itself is the paid HTTP route POST /listings (x402), not a tool.",
    "Resources: market://catalog (the first page), market://playbooks/sell and market://playbooks/buy, and each live listing as listing://{id}. " +
      "Prompts: list_my_endpoint and find_and_buy.",
    `Policy: ${POLICY.join(" ")}`,
  ].join("\n");
}

/**
 * The servers' one JSON Schema validator. The SDK builds a new Ajv for every server unless given one
 * (about half a millisecond of each POST /mcp); it uses it only to check a client's answer to an
 * elicitation, which this server never asks for, so no schema accumulates in it.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/**
 * A fresh server for one HTTP request: the transport is stateless, and the SDK allows one
 * transport per server.
 */
export function createMarketMcpServer(
  { services, clientIp }: { services: McpServices; clientIp: string },
  tools: "listed once" | "listed by the SDK" = "listed once",
): McpServer {
  const { market } = services;
  // Logging: logging/setLevel is accepted; the transport is stateless with JSON answers, so a level
  // lasts one request and log notifications have no stream to travel on (see NOTES-people.md).
  const server = new McpServer(serverIdentity(market), {
    instructions: serverInstructions(market),
    capabilities: { logging: {} },
    jsonSchemaValidator: SCHEMA_VALIDATOR,
  });
  // One lane of the bound on uncached work per server, that is per POST: a batch's catalog reads
  // take their turns one after another.
  const turn = laneOf(services);
  registerMarketTools(server, { services, clientIp, turn });
  // The SDK's tools/list turns every tool's zod schemas into JSON Schema on each call (about 15 ms
  // of CPU a request, the contract's listing body the most): the list it gave once for this service
  // is the answer, the same one the MCP documents are built from.
  if (tools === "listed once")
    server.server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await describeMarketServer(services)).tools,
    }));
  registerMarketResources(server, services, turn);
  registerMarketPrompts(server, services);
  return server;
}

/** The server as a client sees it after `initialize` and `tools/list`. */
export interface ServerDescription {
  serverInfo: Implementation;
  protocolVersion: string;
  capabilities: ServerCapabilities;
  instructions: string;
  tools: Tool[];
}

async function introspect(services: McpServices): Promise<ServerDescription> {
  const server = createMarketMcpServer({ services, clientIp: "self-description" }, "listed by the SDK");
  const client = new Client({ name: `${MCP_SERVER_NAME}-self-description`, version: CONTRACT_VERSION });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  try {
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    return {
      serverInfo: client.getServerVersion()!,
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: client.getServerCapabilities()!,
      instructions: client.getInstructions() ?? "",
      tools,
    };
  } finally {
    await client.close();
    await server.close();
  }
}

const described = new WeakMap<McpServices, Promise<ServerDescription>>();

/**
 * What the live server says about itself, asked once per service through the SDK's own client:
 * the MCP documents are built from this, so they cannot disagree with `tools/list`.
 */
export function describeMarketServer(services: McpServices): Promise<ServerDescription> {
  let description = described.get(services);
  if (!description) {
    description = introspect(services);
    described.set(services, description);
    description.catch(() => described.delete(services));
  }
  return description;
}
