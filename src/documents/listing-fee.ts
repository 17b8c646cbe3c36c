import type { components } from "../../generated/openapi.js";
import type { MarketFacts } from "../market/facts.js";
import type { FacilitatorInfo } from "../payments/setup.js";
import { linkTo } from "../market/links.js";
import { exampleListing, listingRequestSchema } from "./listing-request.js";

type Schemas = components["schemas"];

/** The fee as most documents show it. */
export function listingFeeSummary(market: MarketFacts): Schemas["ListingFeeSummary"] {
  return {
    usdc: market.feeUsdc,
    ttlDays: market.ttlDays,
    payTo: market.payTo,
    path: "/listings",
    method: "POST",
    network: market.network,
    asset: market.asset,
  };
}

/** The fee with the listing's schema and an example, for the discovery documents. */
export function listingFeeDetail(market: MarketFacts): Schemas["ListingFeeDetail"] {
  return {
    ...listingFeeSummary(market),
    schema: listingRequestSchema(),
    example: exampleListing(market),
    validate: linkTo(market, "validate"),
  };
}

/** /fee.json and its aliases. */
export function feeCard(market: MarketFacts): Schemas["FeeCard"] {
  return {
    payTo: market.payTo,
    amount: market.feeAtomic,
    usdc: market.feeUsdc,
    network: market.network,
    asset: market.asset,
    scheme: "exact",
    path: "/listings",
    method: "POST",
    maxTimeoutSeconds: market.maxTimeoutSeconds,
    extra: { name: market.tokenName, version: market.tokenVersion },
    challenge: linkTo(market, "challenge"),
    validate: linkTo(market, "validate"),
  };
}

const MODES: Record<FacilitatorInfo["mode"], Schemas["FacilitatorDocument"]["mode"]> = {
  remote: "remote",
  self: "self-settlement",
  embedded: "embedded-local-chain",
};

/** /facilitator.json: where fees are verified and settled, and what the marketplace never does. */
export function facilitatorDocument(market: MarketFacts, facilitator: FacilitatorInfo): Schemas["FacilitatorDocument"] {
  const notes = [
    `The listing fee (${market.feeUsdc}) is paid with x402 exact (EIP-3009 transferWithAuthorization) and settles directly to payTo; the marketplace holds no escrow.`,
    "A listing fee is settled only after the listing is recorded, and at most once: the same payment sent again gets the first result or 409.",
    "Sales never pass through the marketplace: buyers pay each listing's sellerPayTo at the seller's own resource.",
  ];
  if (facilitator.localChain) {
    notes.unshift(
      `LOCAL DEVELOPMENT CHAIN, NOT REAL MONEY: a throwaway anvil chain with a test token; funded buyer keys are in ${facilitator.localChain.chainFile}.`,
    );
  }
  return {
    facilitator: facilitator.url ?? "in-process",
    mode: MODES[facilitator.mode],
    realMoney: facilitator.mode !== "embedded",
    payTo: market.payTo,
    network: market.network,
    asset: market.asset,
    scheme: "exact",
    ...(facilitator.settler && { settler: facilitator.settler }),
    ...(facilitator.localChain && { localChain: facilitator.localChain }),
    notes,
  };
}
