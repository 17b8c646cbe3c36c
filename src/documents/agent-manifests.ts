// Cards in other ecosystems' formats: the A2A AgentCard and the plugin manifest (ai-plugin.json).
import type { components } from "../../generated/openapi.js";
import { type MarketFacts } from "../market/facts.js";
import { CONTRACT_VERSION } from "../constants.js";
import { marketSummary, MCP_TOOL_NAMES, POLICY } from "./agent-facts.js";
import { EXAMPLE_QUERY } from "./playbooks.js";
import { linkTo } from "../market/links.js";

type Schemas = components["schemas"];

/** The A2A protocol version whose AgentCard fields this card uses. */
export const A2A_PROTOCOL_VERSION = "0.3.0";

const JSON_MODES = ["application/json"];

export function agentCard(market: MarketFacts): Schemas["AgentCard"] {
  const mcp = linkTo(market, "mcp");
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: market.name,
    description:
      `${marketSummary(market)} This card is for discovery: A2A messaging (message/send) is not offered. Its url is the discovery index; ` +
      `every skill is an HTTP route of ${linkTo(market, "openapi")}, and the MCP server at ${mcp} offers the catalog, the playbooks and the dry run as tools.`,
    url: linkTo(market, "discovery"),
    version: CONTRACT_VERSION,
    documentationUrl: linkTo(market, "llms"),
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: JSON_MODES,
    defaultOutputModes: JSON_MODES,
    skills: [
      {
        id: "search-catalog",
        name: "Search the catalog",
        description: `Find x402-paid endpoints by text: GET ${linkTo(market, "/discovery/search", { query: EXAMPLE_QUERY })} (free). MCP tool list_market.`,
        tags: ["x402", "catalog", "search", "discovery"],
        examples: ["Find a paid endpoint that summarises web pages", "List the newest x402 endpoints"],
      },
      {
        id: "validate-listing",
        name: "Validate a listing",
        description: `Dry-run a listing body: POST ${linkTo(market, "validate")} runs every check, charges nothing and saves nothing. MCP tool validate_listing.`,
        tags: ["x402", "listing", "validation"],
        examples: ["Check whether my endpoint's 402 challenge can be listed"],
      },
      {
        id: "list-endpoint",
        name: "List an x402 endpoint",
        description:
          `POST ${linkTo(market, "list")} with the listing body, paying ${market.feeUsdc} USDC with x402 (exact, ${market.network}, payTo ${market.payTo}); ` +
          `listed for ${market.ttlDays} days. Recipe: ${linkTo(market, "sell")}. MCP tool how_to_sell.`,
        tags: ["x402", "sell", "listing", "payments"],
        examples: ["List my paid API so other agents can buy it"],
      },
      {
        id: "how-to-buy",
        name: "Buy from a seller",
        description: `How to pay a listed seller directly with x402; the marketplace never holds funds. Recipe: ${linkTo(market, "buy")}. MCP tool how_to_buy.`,
        tags: ["x402", "buy", "payments"],
        examples: ["How do I pay for a listed endpoint?"],
      },
    ],
  };
}

/** `name_for_model`: letters, digits and underscores only, at most 50 characters. */
export function modelName(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
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
