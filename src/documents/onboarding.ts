// The short documents that get an agent started: machine playbook, quickstart, invite, join, how.
import type { components } from "../../generated/openapi.js";
import { type MarketFacts } from "../market/facts.js";
import { CONTRACT_VERSION } from "../constants.js";
import { listingFeeSummary } from "./listing-fee.js";
import { POLICY } from "./agent-facts.js";
import { buySteps, dryRunStep, EXAMPLE_QUERY, findStep, payAndListStep, sellSteps } from "./playbooks.js";
import { linkTo, linksTo } from "../market/links.js";

type Schemas = components["schemas"];

export function machinePlaybook(market: MarketFacts): Schemas["MachinePlaybook"] {
  return {
    name: market.name,
    role: "marketplace",
    x402Version: 2,
    version: CONTRACT_VERSION,
    listingFee: listingFeeSummary(market),
    sell: sellSteps(market),
    buy: buySteps(market),
    policy: [...POLICY],
    links: linksTo(market, [
      "sell",
      "buy",
      "start",
      "schema",
      "validate",
      "challenge",
      "catalog",
      "search",
      "feed",
      "mcp",
      "openapi",
      "llms",
    ]),
  };
}

export function quickstart(market: MarketFacts): Schemas["Quickstart"] {
  const buy = findStep(market, 3);
  return {
    name: market.name,
    x402Version: 2,
    title: "Start here: validate, pay POST /listings, buy from the listings",
    listingFee: listingFeeSummary(market),
    steps: [
      dryRunStep(market, 1),
      payAndListStep(market, 2),
      {
        ...buy,
        title: "Buy from the listings",
        action:
          `${buy.action} Then call a listing's resource with its method: the seller answers 402 with its own challenge; ` +
          "check that it matches the listing (payTo, asset, amount), sign it with x402 and repeat the request with PAYMENT-SIGNATURE. The seller is paid directly.",
      },
    ],
    links: linksTo(market, [
      "sell",
      "buy",
      "playbook",
      "join",
      "examples",
      "listScript",
      "buyScript",
      "integration",
      "llms",
      "mcp",
    ]),
  };
}

export function inviteCard(market: MarketFacts): Schemas["InviteCard"] {
  return {
    name: market.name,
    role: "marketplace",
    x402Version: 2,
    headline: `List your x402 endpoint on ${market.name}, or buy from the agents that did.`,
    message:
      `${market.name} is a free catalog of x402-paid HTTP endpoints. Sellers list for a fixed ${market.feeUsdc} USDC (${market.ttlDays} days); ` +
      `buyers pay sellers directly. Start at ${linkTo(market, "start")}`,
    url: linkTo(market, "invite"),
    forSellers: `Validate your listing for free, then pay ${market.feeUsdc} USDC with x402 on ${market.network}: ${linkTo(market, "sell")}`,
    forBuyers: `Search the free catalog and pay each seller at its own endpoint; the marketplace never holds funds: ${linkTo(market, "buy")}`,
    listingFee: listingFeeSummary(market),
    start: linkTo(market, "start"),
    links: linksTo(market, ["start", "sell", "buy", "join", "catalog", "mcp", "agentCard", "llms"]),
  };
}

export function joinCard(market: MarketFacts): Schemas["JoinCard"] {
  return {
    name: market.name,
    role: "marketplace",
    x402Version: 2,
    listingFee: listingFeeSummary(market),
    feeAtomic: market.feeAtomic,
    steps: [dryRunStep(market, 1), payAndListStep(market, 2)],
    schema: linkTo(market, "schema"),
    example: linkTo(market, "example"),
    links: linksTo(market, ["sell", "fee", "challenge", "curlList", "start", "mcp"]),
  };
}

export function howTo(market: MarketFacts): Schemas["HowTo"] {
  return {
    name: market.name,
    x402Version: 2,
    sell: [
      `POST your listing to ${linkTo(market, "validate")} (free dry run).`,
      `POST it to ${linkTo(market, "list")}, paying ${market.feeUsdc} USDC with x402 (exact, ${market.network}, payTo ${market.payTo}).`,
      `Listed for ${market.ttlDays} days.`,
    ],
    buy: [
      `Find a listing at ${linkTo(market, "/discovery/search", { query: EXAMPLE_QUERY })} or ${linkTo(market, "catalog")}.`,
      "Call its resource; pay the seller's 402 challenge with x402.",
    ],
    links: linksTo(market, ["start", "sell", "buy", "playbook", "llms"]),
  };
}
