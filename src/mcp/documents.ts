// The MCP documents: discovery (GET /mcp), servers, tool catalog and server card. Tools, schemas,
// identity and capabilities come from the live server (describeMarketServer), never from a copy.
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { components } from "../../generated/openapi.js";
import type { MarketFacts } from "../market/facts.js";
import { linkTo, linksTo } from "../market/links.js";
import type { McpServices } from "./context.js";
import { rebindingRulesOf } from "./http-transport.js";
import { describeMarketServer, MCP_SERVER_NAME, type ServerDescription } from "./server.js";

type Schemas = components["schemas"];

/** The methods a client uses; `notifications/initialized` and other notifications are accepted too. */
const METHODS = [
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
];

function describe(market: MarketFacts): string {
  return (
    `Free MCP server of ${market.name}: list the catalog of x402-paid endpoints, read the sell and buy playbooks, and dry-run a listing. ` +
    "No payment, account or key is needed."
  );
}

function mcpLinks(market: MarketFacts): Schemas["McpLinks"] {
  const links = linksTo(market, ["mcp", "mcpTools", "mcpServerCard", "mcpServers", "openapi"]);
  return {
    endpoint: links.mcp!,
    tools: links.mcpTools!,
    serverCard: links.mcpServerCard!,
    servers: links.mcpServers!,
    openapi: links.openapi!,
  };
}

function tools(description: ServerDescription): Schemas["McpTool"][] {
  return description.tools as Schemas["McpTool"][];
}

export async function mcpDiscovery(services: McpServices): Promise<Schemas["McpDiscovery"]> {
  const { market } = services;
  const description = await describeMarketServer(services);
  const rules = rebindingRulesOf(services);
  return {
    name: description.serverInfo.name,
    title: market.name,
    version: description.serverInfo.version,
    description: describe(market),
    protocol: "mcp",
    transport: "streamable-http",
    url: linkTo(market, "mcp"),
    stateless: true,
    protocolVersion: description.protocolVersion,
    supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    methods: METHODS,
    tools: description.tools.map(({ name, title, description: purpose }) => ({ name, title, description: purpose })),
    requestHeaders: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "the version initialize agreed, on every later request",
    },
    instructions: description.instructions,
    allowedHosts: rules.hostnames,
    allowedOrigins: [
      ...rules.origins,
      ...(rules.localOrigins ? ["http(s)://localhost:*", "http(s)://127.0.0.1:*", "http(s)://[::1]:*"] : []),
    ],
    paid: false,
    links: mcpLinks(market),
  };
}

export function mcpServers(market: MarketFacts): Schemas["McpServersDocument"] {
  return {
    mcpServers: {
      [MCP_SERVER_NAME]: {
        type: "http",
        transport: "streamable-http",
        url: linkTo(market, "mcp"),
        title: market.name,
        description: describe(market),
        serverCard: linkTo(market, "mcpServerCard"),
        tools: linkTo(market, "mcpTools"),
      },
    },
  };
}

export async function mcpToolCatalog(services: McpServices): Promise<Schemas["McpToolCatalog"]> {
  const description = await describeMarketServer(services);
  return {
    server: description.serverInfo.name,
    url: linkTo(services.market, "mcp"),
    count: description.tools.length,
    tools: tools(description),
  };
}

export async function mcpServerCard(services: McpServices): Promise<Schemas["McpServerCard"]> {
  const { market } = services;
  const description = await describeMarketServer(services);
  const { name, title, version } = description.serverInfo;
  const url = linkTo(market, "mcp");
  return {
    serverInfo: { name, title, version },
    description: describe(market),
    protocolVersion: description.protocolVersion,
    transport: { type: "streamable-http", endpoint: url },
    remotes: [{ type: "streamable-http", url }],
    capabilities: description.capabilities,
    authentication: { required: false, schemes: [] },
    instructions: description.instructions,
    tools: tools(description),
    resources: [],
    prompts: [],
    links: mcpLinks(market),
  };
}
