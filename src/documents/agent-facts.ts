// Statements that several agent documents (and the MCP server's instructions) carry word for word.
import type { MarketFacts } from "../market/facts.js";

/** The service's policy, as the spec states it. */
export const POLICY = [
  "Not tax or investment advice.",
  "Lookups of personal phone numbers or e-mail addresses are refused.",
] as const;

/** The MCP server's tools, in the order its tools/list gives them. */
export const MCP_TOOLS = [
  { name: "list_market", description: "List the catalog of x402-paid endpoints (foreign listings first)." },
  { name: "how_to_sell", description: "The sell playbook: how to list an x402 endpoint here." },
  { name: "how_to_buy", description: "The buy playbook: how to find a listing and pay its seller." },
  { name: "validate_listing", description: "Dry-run a listing body: every check, no charge, nothing saved." },
] as const;

export const MCP_TOOL_NAMES = MCP_TOOLS.map((tool) => tool.name);

/** One sentence saying what the marketplace is, with its real fee, chain and wallet. */
export function marketSummary(market: MarketFacts): string {
  return (
    `${market.name} is a free catalog of paid HTTP endpoints that speak x402 v${market.x402Version}. ` +
    `Sellers list an endpoint by paying a fixed ${market.feeUsdc} USDC fee (POST /listings, x402 exact scheme on ${market.network}, to ${market.payTo}); ` +
    `buyers read the catalog for free and pay each seller directly. The marketplace never holds funds in escrow.`
  );
}

/** Who gets paid for what: the facts a buyer must not get wrong. */
export function paymentFacts(market: MarketFacts): string[] {
  return [
    `Sales settle directly to each listing's seller (accepts[].payTo, the sellerPayTo), never to the marketplace; the marketplace takes ${market.saleTakeBps} basis points of sales.`,
    `The marketplace never holds funds in escrow. It receives the ${market.feeUsdc} USDC listing fees at ${market.payTo}, and the price of its own first-party /kr-* demo endpoints (leftover seed rows, hidden unless includeSeed=true); nothing else.`,
    "No client package, account or API key is required: plain HTTP plus any x402 v2 client (or an EIP-3009 signature) will do.",
  ];
}
