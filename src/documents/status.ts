import type { components } from "../../generated/openapi.js";
import type { DocumentContext } from "./context.js";
import { linkTo, linksTo } from "../market/links.js";
import { listingFeeSummary } from "./listing-fee.js";

export type StatusDocument = components["schemas"]["StatusDocument"];

/** The status document's own version (the spec's 1.58.0). */
export const STATUS_VERSION = "1.58.0";

export function statusDocument(
  services: DocumentContext,
  counts: {
    foreign: number;
    seed: number;
    rawAll: number;
    byHealth: StatusDocument["listingsByHealth"];
    delisted?: number;
  },
  updatedAt: Date,
): StatusDocument {
  const { market } = services;
  return {
    name: market.name,
    ok: true,
    role: "marketplace",
    version: STATUS_VERSION,
    x402Version: 2,
    updatedAt: updatedAt.toISOString(),
    paid: false,
    discoveryDefault: "foreign-first",
    sellerListingCount: counts.foreign,
    sellerListingCountForeign: counts.foreign,
    sellerListingCountSeed: counts.seed,
    sellerListingCountRawKv: counts.rawAll,
    listingsByHealth: counts.byHealth,
    ...(counts.delisted !== undefined && { sellerListingCountDelisted: counts.delisted }),
    listingFee: listingFeeSummary(market),
    unpaidListingsProbe: {
      method: "POST",
      path: "/listings",
      note: `Without payment, POST /listings answers 402 with a PAYMENT-REQUIRED challenge for the ${market.feeUsdc} USDC fee; the same challenge is at ${linkTo(market, "/listings/challenge")}.`,
    },
    leftoverSeedNote:
      "Leftover seed rows are first-party /kr-* demo endpoints; they are counted apart and hidden from catalog reads by default.",
    links: {
      status: linkTo(market, "/status.json"),
      ...linksTo(market, ["market", "foreign", "feed", "playbook", "challenge", "mcp", "openapi"]),
    },
  };
}
