// The agents directory: each kind of agent and where it starts; as JSON and as plain text.
import type { components } from "../../generated/openapi.js";
import type { MarketFacts } from "../market/facts.js";
import { MCP_TOOL_NAMES } from "./agent-facts.js";
import { linkTo, linksTo, type LinkName } from "../market/links.js";

type Schemas = components["schemas"];

interface Entry {
  id: string;
  audience: string;
  start: LinkName;
  read: LinkName[];
  note: string;
}

function entries(market: MarketFacts): Entry[] {
  return [
    {
      id: "seller",
      audience: "a seller agent listing its own x402-paid endpoint",
      start: "sell",
      read: ["join", "schema", "validate", "challenge", "curlList"],
      note: `Validate for free, then pay ${market.feeUsdc} USDC with x402 on ${market.network} to list for ${market.ttlDays} days.`,
    },
    {
      id: "buyer",
      audience: "a buyer agent looking for paid endpoints",
      start: "buy",
      read: ["resources", "catalog", "foreign", "feed", "buyScript"],
      note: "Reading is free; pay each seller directly at its own endpoint.",
    },
    {
      id: "mcp-client",
      audience: "an MCP client (Streamable HTTP)",
      start: "mcp",
      read: ["mcpServers", "mcpTools", "mcpServerCard"],
      note: `Tools: ${MCP_TOOL_NAMES.join(", ")}. Free; no credential.`,
    },
    {
      id: "a2a-client",
      audience: "an A2A client reading agent cards",
      start: "agentCard",
      read: ["openapi", "playbook"],
      note: "The card lists the skills; they are reached over plain HTTP (see the OpenAPI description) and MCP.",
    },
    {
      id: "plugin-host",
      audience: "a plugin host or any OpenAPI tool caller",
      start: "plugin",
      read: ["openapi", "integration"],
      note: "No authentication. Catalog and documentation routes are free; POST /listings and the /kr-* demo endpoints are paid with x402.",
    },
    {
      id: "crawler",
      audience: "a language model or crawler",
      start: "llms",
      read: ["llmsFull", "crawl", "linkset", "agentsText"],
      note: "The crawl document lists every free route in priority order.",
    },
  ];
}

export function agentsDirectory(market: MarketFacts): Schemas["AgentsDirectory"] {
  return {
    name: market.name,
    x402Version: 2,
    note: "Where each kind of agent starts. Everything listed is free: no account, no API key.",
    agents: entries(market).map(({ id, audience, start, read, note }) => ({
      id,
      audience,
      start: linkTo(market, start),
      read: read.map((name) => linkTo(market, name)),
      note,
    })),
    links: linksTo(market, ["agentsText", "start", "integration", "marketplaceCard", "llms"]),
  };
}

/** The same directory as plain text (`/agents.txt`). */
export function agentsText(market: MarketFacts): string {
  const lines = [
    `# ${market.name}: agents directory`,
    "# Where each kind of agent starts. Everything listed is free: no account, no API key.",
    "",
  ];
  for (const entry of entries(market)) {
    lines.push(`${entry.id}: ${entry.audience}`, `  start: ${linkTo(market, entry.start)}`);
    for (const name of entry.read) lines.push(`  read: ${linkTo(market, name)}`);
    lines.push(`  note: ${entry.note}`, "");
  }
  lines.push(`json: ${linkTo(market, "agents")}`, "");
  return lines.join("\n");
}
