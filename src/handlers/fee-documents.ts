import type { components } from "../../generated/openapi.js";
import type { Handler } from "../http/handler-types.js";
import { listingFeeCharge } from "../listing/paid-listing.js";

type PaymentChallenge = components["schemas"]["PaymentChallenge"];
type FacilitatorDocument = components["schemas"]["FacilitatorDocument"];

/** GET /listings/challenge: exactly what an unpaid POST /listings carries in PAYMENT-REQUIRED, as JSON. */
export const getListingChallenge: Handler<"getListingChallenge"> = async (_input, { payments, market }) => ({
  status: 200,
  body: (await payments.gate.challenge(listingFeeCharge(market))) as PaymentChallenge,
});

/** /fee.json and its aliases. */
export const getFeeCard: Handler<"getFeeCard"> = (_input, { market }) => ({
  status: 200,
  body: {
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
    challenge: `${market.baseUrl}/listings/challenge`,
    validate: `${market.baseUrl}/listings/validate`,
  },
});

const MODES: Record<string, FacilitatorDocument["mode"]> = {
  remote: "remote",
  self: "self-settlement",
  embedded: "embedded-local-chain",
};

/** /facilitator.json: where fees are verified and settled, and what the marketplace never does. */
export const getFacilitator: Handler<"getFacilitator"> = (_input, { payments, market }) => {
  const { facilitator } = payments;
  const notes = [
    `The listing fee (${market.feeUsdc}) is paid with x402 exact (EIP-3009 transferWithAuthorization) and settles directly to payTo; the marketplace holds no escrow.`,
    "A listing fee is settled only after the listing is recorded, and at most once: the same payment sent again gets the first result or 409.",
    "Sales never pass through the marketplace: buyers pay each listing's sellerPayTo at the seller's own resource.",
  ];
  if (facilitator.localChain) {
    notes.unshift(`LOCAL DEVELOPMENT CHAIN, NOT REAL MONEY: a throwaway anvil chain with a test token; funded buyer keys are in ${facilitator.localChain.chainFile}.`);
  }
  return {
    status: 200,
    body: {
      facilitator: facilitator.url ?? "in-process",
      mode: MODES[facilitator.mode]!,
      realMoney: facilitator.mode !== "embedded",
      payTo: market.payTo,
      network: market.network,
      asset: market.asset,
      scheme: "exact",
      ...(facilitator.settler && { settler: facilitator.settler }),
      ...(facilitator.localChain && { localChain: facilitator.localChain }),
      notes,
    },
  };
};
