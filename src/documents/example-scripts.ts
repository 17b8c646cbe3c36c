// The shell scripts served at /examples/list.sh (= /curl-list.sh) and /examples/buy.sh. They live as
// real files beside this module; the x402 helper they embed is one file shared by both.
import { readFileSync } from "node:fs";
import type { MarketFacts } from "../market/facts.js";
import { linkTo, type LinkName } from "../market/links.js";

const source = (name: string) => readFileSync(new URL(`./scripts/${name}`, import.meta.url), "utf8");
const TEMPLATES = { list: source("list.sh"), buy: source("buy.sh") };
const X402_HELPER = source("x402-helper.mjs").trimEnd();

/** What the scripts need to run, as the examples index states it. */
export const SCRIPT_REQUIREMENTS = [
  "bash and curl",
  "Node.js 20 or later with the official x402 SDK (@x402/core, @x402/evm) and viem in X402_SDK_DIR (present in a checkout of this service after npm ci; elsewhere: npm install @x402/core @x402/evm viem)",
  "a wallet key (BUYER_PRIVATE_KEY) holding the token on the marketplace's network; it signs locally and is never sent",
];

/** Environment variables both scripts read. */
export const SCRIPT_COMMON_ENV = {
  BUYER_PRIVATE_KEY: "0x key of the paying wallet; default: buyer BUYER_INDEX (0) of CHAIN_FILE when it exists",
  CHAIN_FILE: "local development chain file with funded keys; default .dev/chain.json (written by npm start)",
  BASE_URL: "the marketplace's address; default: the address the script was served from",
  X402_SDK_DIR: "directory whose node_modules has the SDK; default: the current directory",
};

function render(template: string, market: MarketFacts, served: LinkName): string {
  const values: Record<string, string> = {
    NAME: market.name,
    BASE_URL: market.baseUrl,
    FEE_USDC: market.feeUsdc,
    SCRIPT_URL: linkTo(market, served),
    X402_HELPER,
  };
  // One pass, so that nothing inside a value (the helper's code) is ever read as a placeholder.
  return template.replace(/@@([A-Z0-9_]+)@@/g, (placeholder, name: string) => values[name] ?? placeholder);
}

export function listScript(market: MarketFacts): string {
  return render(TEMPLATES.list, market, "listScript");
}

export function buyScript(market: MarketFacts): string {
  return render(TEMPLATES.buy, market, "buyScript");
}
