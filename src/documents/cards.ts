// Cards: the marketplace card and the integration card (listing, buying, MCP and discovery in one object).
import type { components } from "../../generated/openapi.js";
import { type MarketFacts } from "../market/facts.js";
import { CONTRACT_VERSION } from "../constants.js";
import { listingFeeSummary } from "./listing-fee.js";
import { marketSummary, MCP_TOOL_NAMES, POLICY } from "./agent-facts.js";
import { exampleListing } from "./listing-request.js";
import { linkTo, linksTo } from "../market/links.js";

type Schemas = components["schemas"];

export function marketplaceCard(market: MarketFacts): Schemas["MarketplaceCard"] {
  return {
    name: market.name,
    role: "marketplace",
    x402Version: 2,
    version: CONTRACT_VERSION,
    description: marketSummary(market),
    listingFee: listingFeeSummary(market),
    saleTakeBps: market.saleTakeBps,
    escrow: false,
    catalog: linkTo(market, "catalog"),
    search: linkTo(market, "search"),
    feed: linkTo(market, "feed"),
    sell: linkTo(market, "sell"),
    buy: linkTo(market, "buy"),
    mcp: linkTo(market, "mcp"),
    policy: [...POLICY],
    links: linksTo(market, [
      "start",
      "playbook",
      "integration",
      "agentCard",
      "plugin",
      "agents",
      "llms",
      "openapi",
      "status",
      "linkset",
    ]),
  };
}

export function integrationCard(market: MarketFacts): Schemas["IntegrationCard"] {
  return {
    name: market.name,
    version: "1.65.0",
    role: "marketplace",
    note:
      "No client package is required: list with one x402-paid POST (any x402 v2 client or an EIP-3009 signature), buy by paying each seller at its own endpoint. " +
      "The marketplace never holds funds in escrow.",
    x402Version: 2,
    clientPackageRequired: false,
    escrow: false,
    list: {
      method: "POST",
      path: "/listings",
      url: linkTo(market, "list"),
      feeUsdc: market.feeUsdc,
      feeAtomic: market.feeAtomic,
      payTo: market.payTo,
      network: market.network,
      asset: market.asset,
      scheme: "exact",
      body: exampleListing(market),
      schema: linkTo(market, "schema"),
      challenge: linkTo(market, "challenge"),
      curl: linkTo(market, "curlList"),
      validate: linkTo(market, "validate"),
    },
    buy: {
      catalog: linkTo(market, "catalog"),
      feed: linkTo(market, "feed"),
      playbook: linkTo(market, "buy"),
      note: "Call a listing's resource; on 402 pay the seller's challenge (its payTo is the listing's sellerPayTo) with x402. The marketplace takes no part in the sale.",
    },
    mcp: {
      url: linkTo(market, "mcp"),
      tools: [...MCP_TOOL_NAMES],
      serverCard: linkTo(market, "mcpServerCard"),
    },
    discovery: {
      start: linkTo(market, "start"),
      playbook: linkTo(market, "playbook"),
      openapi: linkTo(market, "openapi"),
      status: linkTo(market, "status"),
    },
  };
}
