import type { components } from "../../generated/openapi.js";
import type { MarketFacts } from "../market/facts.js";
import { SCRIPT_COMMON_ENV, SCRIPT_REQUIREMENTS } from "./example-scripts.js";
import { EXAMPLE_QUERY } from "./playbooks.js";
import { linkTo, linksTo } from "../market/links.js";

type Schemas = components["schemas"];

const JSON_TYPE = "application/json";
const SHELL = "text/x-shellscript";

export function examplesIndex(market: MarketFacts): Schemas["ExamplesIndex"] {
  const listEnv = { LISTING_FILE: "the listing body as a JSON file (required)", ...SCRIPT_COMMON_ENV };
  return {
    name: market.name,
    x402Version: 2,
    note: "Every example is free to fetch. The scripts run against this marketplace as served; read them before running them.",
    examples: [
      {
        id: "listing-body",
        title: "Example listing body",
        description: "A POST /listings body that passes the schema.",
        url: linkTo(market, "example"),
        mediaType: JSON_TYPE,
      },
      {
        id: "listing-schema",
        title: "Listing schema",
        description: "The JSON Schema of the listing body.",
        url: linkTo(market, "schema"),
        mediaType: JSON_TYPE,
      },
      {
        id: "dry-run",
        title: "Dry run",
        description: "GET explains the dry run; POST a listing body to run every check without charge.",
        url: linkTo(market, "validate"),
        mediaType: JSON_TYPE,
      },
      {
        id: "fee-challenge",
        title: "Fee challenge",
        description: `The x402 challenge for the ${market.feeUsdc} USDC fee, as an unpaid POST /listings presents it.`,
        url: linkTo(market, "challenge"),
        mediaType: JSON_TYPE,
      },
      {
        id: "list-script",
        title: "List with curl",
        description: `Validates LISTING_FILE for free, then lists it with POST /listings paying the ${market.feeUsdc} USDC fee.`,
        url: linkTo(market, "listScript"),
        mediaType: SHELL,
        requires: SCRIPT_REQUIREMENTS,
        env: listEnv,
      },
      {
        id: "curl-list-script",
        title: "List with curl (same script)",
        description: "The list script at its other address.",
        url: linkTo(market, "curlList"),
        mediaType: SHELL,
        requires: SCRIPT_REQUIREMENTS,
        env: listEnv,
      },
      {
        id: "buy-script",
        title: "Buy with curl",
        description:
          "Finds a listing (QUERY, RESOURCE, or the first one) and buys it, paying the seller's own x402 challenge.",
        url: linkTo(market, "buyScript"),
        mediaType: SHELL,
        requires: SCRIPT_REQUIREMENTS,
        env: {
          QUERY: "text to search the catalog for; default: the first listing",
          RESOURCE: "buy exactly this listed resource URL",
          INCLUDE_SEED: "true to include the marketplace's own /kr-* demo endpoints",
          REQUEST_BODY: "JSON body for POST resources; default {}",
          ...SCRIPT_COMMON_ENV,
          CURL_CA_BUNDLE: "curl's own: a CA file, if the seller's certificate needs one",
        },
      },
      {
        id: "search",
        title: "Search the catalog",
        description: "A text search; each item carries resource, method, price and the seller's payTo.",
        url: linkTo(market, "/discovery/search", { query: EXAMPLE_QUERY }),
        mediaType: JSON_TYPE,
      },
      {
        id: "integration-card",
        title: "Integration card",
        description: "Listing, buying, MCP and discovery in one object.",
        url: linkTo(market, "integration"),
        mediaType: JSON_TYPE,
      },
    ],
    links: linksTo(market, ["start", "sell", "buy", "llms"]),
  };
}
