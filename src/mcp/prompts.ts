// MCP prompts: "list my endpoint" (a seller's way from an endpoint URL to a live listing) and
// "find and buy" (a buyer's way from a need to a paid call). Each returns one user message that
// tells the model which of this server's tools to call, in which order, with the playbook's rules.
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { linkTo } from "../market/links.js";
import { catalogState, searchPage } from "../queries/catalog.js";
import type { McpServices } from "./context.js";
import { guarded } from "./failures.js";
import { BUY_PLAYBOOK_URI, SELL_PLAYBOOK_URI } from "./resources.js";

/** Prices a seller commonly asks, in USDC: completion offers those that start with what was typed. */
const PRICE_SUGGESTIONS = ["0.001", "0.005", "0.01", "0.02", "0.05", "0.1", "0.25", "0.5", "1"];
const COMPLETIONS = 20;

function userMessage(text: string): GetPromptResult["messages"][number] {
  return { role: "user", content: { type: "text", text } };
}

/** Words of live listings' names, tags and descriptions starting with `prefix`: what buyers can find. */
async function catalogWords(services: McpServices, prefix: string): Promise<string[]> {
  const typed = prefix.trim().toLowerCase();
  const { page } = await searchPage(services, await catalogState(services), { limit: 50 }, "search");
  const words = new Set<string>();
  for (const listing of page.rows) {
    const text = [listing.serviceName ?? "", listing.tags ?? "", listing.description].join(" ").toLowerCase();
    for (const word of text.split(/[^a-z0-9-]+/)) if (word.length > 2 && word.startsWith(typed)) words.add(word);
  }
  return [...words].sort().slice(0, COMPLETIONS);
}

export function registerMarketPrompts(server: McpServer, services: McpServices): void {
  const { market } = services;

  server.registerPrompt(
    "list_my_endpoint",
    {
      title: "List my endpoint",
      description: `List your x402-paid HTTP endpoint on ${market.name}: dry-run it with validate_listing, then pay the ${market.feeUsdc} USDC fee at POST /listings.`,
      argsSchema: {
        resource: z
          .string()
          .describe("The endpoint's absolute https URL; it must answer 402 with an x402 v2 challenge"),
        description: z.string().optional().describe("What the endpoint does, in a sentence buyers search for"),
        priceUsdc: completable(z.string().optional().describe("The price per call in USDC, such as 0.01"), (value) =>
          PRICE_SUGGESTIONS.filter((price) => price.startsWith(value ?? "")),
        ),
      },
    },
    ({ resource, description, priceUsdc }) => ({
      description: `List ${resource} on ${market.name}`,
      messages: [
        userMessage(
          [
            `I want to list my paid endpoint ${resource} on ${market.name}${description ? ` (${description})` : ""}${priceUsdc ? ` at ${priceUsdc} USDC a call` : ""}.`,
            `1. Read the resource ${SELL_PLAYBOOK_URI} (or call how_to_sell) for the rules and the listing body's fields.`,
            "2. Build the listing body for this endpoint and call validate_listing with it. It probes the endpoint, charges nothing and saves nothing; fix every failed check and call it again until all pass.",
            `3. Then POST the same body to ${linkTo(market, "list")} with an x402 client: it answers 402 with the fee (${market.feeUsdc} USDC on ${market.network}), pay it and send the request again. Listing is that paid HTTP route, not a tool.`,
            "Do not pay anything before validate_listing passes, and tell me the listing id and expiry once it is listed.",
          ].join("\n"),
        ),
      ],
    }),
  );

  server.registerPrompt(
    "find_and_buy",
    {
      title: "Find and buy",
      description: `Find an endpoint for a need in the ${market.name} catalog with list_market, then pay the seller directly with x402.`,
      argsSchema: {
        need: completable(z.string().describe("What you need, in a few words (a search query)"), (value) =>
          guarded(services, "completing a need", () => catalogWords(services, value ?? "")),
        ),
        maxPriceUsdc: completable(z.string().optional().describe("The most you will pay per call, in USDC"), (value) =>
          PRICE_SUGGESTIONS.filter((price) => price.startsWith(value ?? "")),
        ),
      },
    },
    ({ need, maxPriceUsdc }) => ({
      description: `Find and buy: ${need}`,
      messages: [
        userMessage(
          [
            `Find and call a paid endpoint for: ${need}${maxPriceUsdc ? ` (at most ${maxPriceUsdc} USDC a call)` : ""}.`,
            `1. Call list_market with query ${JSON.stringify(need)}. Prefer listings whose health is "healthy"${maxPriceUsdc ? ` and whose priceUsdc is at most ${maxPriceUsdc}` : ""}; read one with the resource listing://{id} if you need its details.`,
            "2. Call the chosen item's resource with its method, unpaid: the seller answers 402 with its own challenge. Check that it matches the catalog item (same payTo, asset and network, amount no higher than listed).",
            "3. Pay that challenge with an x402 client and call again. Pay the seller's accepts[0], never the marketplace; the marketplace is not a party to the sale.",
            `The buy playbook is the resource ${BUY_PLAYBOOK_URI} (or the how_to_buy tool). Ask me before paying more than the listed price.`,
          ].join("\n"),
        ),
      ],
    }),
  );
}
