// Cards: the marketplace card and the integration card (listing, buying, MCP and discovery in one object).
import type { components } from "../../generated/openapi.js";
import { CONTRACT_VERSION, listingFeeSummary, type MarketFacts } from "../catalog/market.js";
import { marketSummary, MCP_TOOL_NAMES, POLICY } from "./agent-facts.js";
import { exampleListing } from "./listing-request.js";
import { documentLinks, urlFor } from "./service-links.js";

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
    catalog: urlFor(market, "catalog"),
    search: urlFor(market, "search"),
    feed: urlFor(market, "feed"),
    sell: urlFor(market, "sell"),
    buy: urlFor(market, "buy"),
    mcp: urlFor(market, "mcp"),
    policy: [...POLICY],
    links: documentLinks(market, ["start", "playbook", "integration", "agentCard", "plugin", "agents", "llms", "openapi", "status", "linkset"]),
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
      url: urlFor(market, "list"),
      feeUsdc: market.feeUsdc,
      feeAtomic: market.feeAtomic,
      payTo: market.payTo,
      network: market.network,
      asset: market.asset,
      scheme: "exact",
      body: exampleListing(market),
      schema: urlFor(market, "schema"),
      challenge: urlFor(market, "challenge"),
      curl: urlFor(market, "curlList"),
      validate: urlFor(market, "validate"),
    },
    buy: {
      catalog: urlFor(market, "catalog"),
      feed: urlFor(market, "feed"),
      playbook: urlFor(market, "buy"),
      note: "Call a listing's resource; on 402 pay the seller's challenge (its payTo is the listing's sellerPayTo) with x402. The marketplace takes no part in the sale.",
    },
    mcp: {
      url: urlFor(market, "mcp"),
      tools: [...MCP_TOOL_NAMES],
      serverCard: urlFor(market, "mcpServerCard"),
    },
    discovery: {
      start: urlFor(market, "start"),
      playbook: urlFor(market, "playbook"),
      openapi: urlFor(market, "openapi"),
      status: urlFor(market, "status"),
    },
  };
}
