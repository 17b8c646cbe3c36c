// The answers every paid route shares: pay first (402), and the facilitator gave no answer (502/503).
import type { PaymentRequired } from "@x402/core/types";
import type { components } from "../../generated/openapi.js";
import { FacilitatorUnavailableError } from "./facilitator-client.js";
import { paymentRequiredHeader } from "./payment-gate.js";

type PaymentRequiredBody = components["schemas"]["PaymentRequiredBody"];
type ErrorBody = components["schemas"]["ErrorBody"];

/** 402 with the challenge in PAYMENT-REQUIRED and repeated, with a message, as the JSON body. */
export function paymentRequiredReply(paymentRequired: PaymentRequired, message: string) {
  return {
    status: 402 as const,
    headers: { "PAYMENT-REQUIRED": paymentRequiredHeader(paymentRequired) },
    body: { ...(paymentRequired as PaymentRequiredBody), message } satisfies PaymentRequiredBody,
  };
}

/** 503 when the facilitator timed out, 502 when it could not be reached or answered nonsense. */
export function facilitatorUnavailableReply(error: unknown, consequence: string) {
  const kind = error instanceof FacilitatorUnavailableError ? error.kind : "bad_response";
  const detail = error instanceof Error ? error.message : String(error);
  return {
    status: kind === "timeout" ? (503 as const) : (502 as const),
    headers: { "Retry-After": "30" },
    body: { error: `facilitator_${kind}`, message: `The payment facilitator gave no usable answer (${detail}). ${consequence}` } satisfies ErrorBody,
  };
}
