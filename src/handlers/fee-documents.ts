import type { components } from "../../generated/openapi.js";
import type { Handler } from "../services.js";
import { facilitatorDocument, feeCard } from "../documents/listing-fee.js";
import { listingFeeCharge } from "../listing/paid-listing.js";

type PaymentChallenge = components["schemas"]["PaymentChallenge"];

/** GET /listings/challenge: exactly what an unpaid POST /listings carries in PAYMENT-REQUIRED, as JSON. */
export const getListingChallenge: Handler<"getListingChallenge"> = async (_input, { payments, market }) => ({
  status: 200,
  body: (await payments.gate.challenge(listingFeeCharge(market))) as PaymentChallenge,
});

/** /fee.json and its aliases. */
export const getFeeCard: Handler<"getFeeCard"> = (_input, { market }) => ({ status: 200, body: feeCard(market) });

/** /facilitator.json: where fees are verified and settled, and what the marketplace never does. */
export const getFacilitator: Handler<"getFacilitator"> = (_input, { payments, market }) => ({
  status: 200,
  body: facilitatorDocument(market, payments.facilitator),
});
