// Cards in other ecosystems' formats: the A2A AgentCard and the plugin manifest (ai-plugin.json).
import type { components } from "../../generated/openapi.js";
import { type MarketFacts } from "../market/facts.js";
import { CONTRACT_VERSION } from "../constants.js";
import { marketSummary, MCP_TOOL_NAMES, MCP_TOOLS, POLICY } from "./agent-facts.js";
import { linkTo } from "../market/links.js";

type Schemas = components["schemas"];

/** The A2A protocol version whose AgentCard fields this card uses. */
export const A2A_PROTOCOL_VERSION = "0.3.0";

/** The A2A transport the endpoint speaks. */
export const A2A_TRANSPORT = "JSONRPC";

/** The protocol versions the endpoint speaks, as A2A 1.0's `supportedInterfaces` name them. */
export const A2A_INTERFACE_VERSIONS = ["0.3", "1.0"] as const;

const JSON_MODES = ["application/json"];
const MODES = ["application/json", "text/plain"];

type SkillName = (typeof MCP_TOOLS)[number]["name"];

/** What the card adds to each MCP tool's one-line purpose: how to call it over A2A, tags and examples. */
function skillDetails(
  market: MarketFacts,
): Record<SkillName, { name: string; detail: string; tags: string[]; examples: string[] }> {
  return {
    list_market: {
      name: "List the market",
      detail: `Arguments are the query parameters of GET ${linkTo(market, "searchAlias")} (query, limit, cursor, filters); none lists everything.`,
      tags: ["x402", "catalog", "search", "discovery"],
      examples: ["Find a paid endpoint that summarises web pages", "List the newest x402 endpoints"],
    },
    how_to_sell: {
      name: "How to sell",
      detail:
        `Listing itself is POST ${linkTo(market, "list")} paying ${market.feeUsdc} USDC with x402 (exact, ${market.network}, payTo ${market.payTo}); ` +
        `listed for ${market.ttlDays} days. Recipe: ${linkTo(market, "sell")}.`,
      tags: ["x402", "sell", "listing", "payments"],
      examples: ["How do I list my paid API so other agents can buy it?"],
    },
    how_to_buy: {
      name: "How to buy",
      detail: `Pay a listed seller directly with x402; the marketplace never holds funds. Recipe: ${linkTo(market, "buy")}.`,
      tags: ["x402", "buy", "payments"],
      examples: ["How do I pay for a listed endpoint?"],
    },
    validate_listing: {
      name: "Validate a listing",
      detail: `Arguments are the body of POST ${linkTo(market, "list")}; the answer is the report of POST ${linkTo(market, "validate")}. Charges nothing, saves nothing.`,
      tags: ["x402", "listing", "validation"],
      examples: ["Check whether my endpoint's 402 challenge can be listed"],
    },
  };
}

export function agentCard(market: MarketFacts): Schemas["AgentCard"] {
  const endpoint = linkTo(market, "a2a");
  const details = skillDetails(market);
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: market.name,
    description:
      `${marketSummary(market)} A2A messaging (message/send, JSON-RPC) is at ${endpoint}: its four skills are the MCP tools of ${linkTo(market, "mcp")} ` +
      `and answer a message with the tool's result as a DataPart. Pick a skill with a DataPart {"skill": "<id>", "arguments": {...}} (or metadata.skill); ` +
      "plain text naming a skill runs it, any other text lists the market. Listing itself is the paid HTTP route, not a skill.",
    url: endpoint,
    preferredTransport: A2A_TRANSPORT,
    supportedInterfaces: A2A_INTERFACE_VERSIONS.map((protocolVersion) => ({
      url: endpoint,
      protocolBinding: A2A_TRANSPORT,
      protocolVersion,
    })),
    version: CONTRACT_VERSION,
    documentationUrl: linkTo(market, "llms"),
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: MODES,
    defaultOutputModes: JSON_MODES,
    skills: MCP_TOOLS.map(({ name, description }) => {
      const { name: title, detail, tags, examples } = details[name];
      return { id: name, name: title, description: `${description} ${detail}`, tags, examples };
    }),
  };
}

/** `name_for_model`: letters, digits and underscores only, at most 50 characters. */
export function modelName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return (slug || "x402_marketplace").slice(0, 50);
}

export function pluginManifest(market: MarketFacts): Schemas["PluginManifest"] {
  return {
    schema_version: "v1",
    name_for_human: market.name,
    name_for_model: modelName(market.name),
    description_for_human: "Find paid x402 endpoints for agents, or list your own. Reading the catalog is free.",
    description_for_model:
      `${marketSummary(market)} Use the search and catalog routes to find endpoints (each item gives resource, method, price and the seller's payTo); ` +
      `buy by calling the item's resource and paying the seller's own x402 challenge. To sell, POST the listing to /listings/validate (free dry run), ` +
      `then to /listings paying the ${market.feeUsdc} USDC fee with x402. MCP tools (${MCP_TOOL_NAMES.join(", ")}) are at ${linkTo(market, "mcp")}. ` +
      `Policy: ${POLICY.join(" ")}`,
    auth: { type: "none" },
    api: { type: "openapi", url: linkTo(market, "openapi"), is_user_authenticated: false },
  };
}
