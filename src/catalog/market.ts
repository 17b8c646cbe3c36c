import type { components } from "../../generated/openapi.js";
import type { Config } from "../config.js";
import { listingRequestSchema, exampleListing } from "../documents/listing-request.js";

type Schemas = components["schemas"];

/** Version of the interface description and the foreign catalog (the spec's 1.70.0). */
export const CONTRACT_VERSION = "1.70.0";

/**
 * The marketplace's facts, from configuration only: every document reads them from here, so no
 * two documents can disagree about the fee, the wallet, the chain or the token.
 */
export interface MarketFacts {
  name: string;
  baseUrl: string;
  x402Version: 2;
  network: "eip155:8453";
  /** Token contract of the listing fee and of every catalog item's requirement. */
  asset: string;
  /** EIP-712 domain of the token, sent as `extra` in payment requirements. */
  tokenName: string;
  tokenVersion: string;
  payTo: string;
  feeUsdc: "0.10";
  feeAtomic: "100000";
  ttlDays: 30;
  maxTimeoutSeconds: 300;
  saleTakeBps: 0;
}

export function marketFacts(config: Config, payTo: string): MarketFacts {
  return {
    name: config.marketplaceName,
    baseUrl: config.publicBaseUrl,
    x402Version: 2,
    network: config.network,
    asset: config.asset,
    tokenName: "USD Coin",
    tokenVersion: "2",
    payTo,
    feeUsdc: "0.10",
    feeAtomic: "100000",
    ttlDays: 30,
    maxTimeoutSeconds: 300,
    saleTakeBps: 0,
  };
}

/** Absolute URL of a path of this service. */
export function urlOf(facts: Pick<MarketFacts, "baseUrl">, path: string): string {
  return `${facts.baseUrl}${path}`;
}

export function listingFeeSummary(facts: MarketFacts): Schemas["ListingFeeSummary"] {
  return {
    usdc: facts.feeUsdc,
    ttlDays: facts.ttlDays,
    payTo: facts.payTo,
    path: "/listings",
    method: "POST",
    network: facts.network,
    asset: facts.asset,
  };
}

export function listingFeeDetail(facts: MarketFacts, contract: Record<string, unknown>): Schemas["ListingFeeDetail"] {
  return {
    ...listingFeeSummary(facts),
    schema: listingRequestSchema(contract),
    example: exampleListing(facts),
    validate: urlOf(facts, "/listings/validate"),
  };
}
