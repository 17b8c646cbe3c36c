// The answers every paid route shares: pay first (402), and the facilitator gave no answer (502/503).
import type { PaymentRequired } from "@x402/core/types";
import type { components } from "../../generated/openapi.js";
import type { PreRendered } from "../contract/typed-handlers.js";
import { FacilitatorUnavailableError, type UnavailableKind } from "./facilitator-client.js";
import { paymentRequiredHeader } from "./payment-gate.js";

type PaymentRequiredBody = components["schemas"]["PaymentRequiredBody"];
type ErrorBody = components["schemas"]["ErrorBody"];

/** 402 with the challenge in PAYMENT-REQUIRED and repeated, with a message, as the JSON body. */
export function paymentRequiredReply(paymentRequired: PaymentRequired, message: string) {
  const { header, body } = renderedOnce(paymentRequired, message);
  return { status: 402 as const, headers: { "PAYMENT-REQUIRED": header }, body };
}

type Rendered402 = { header: string; body: PreRendered };
/** Messages kept per challenge at most (the listing fee's unpaid challenge has two). */
const MESSAGES_PER_CHALLENGE = 8;
const renderings = new WeakMap<PaymentRequired, Map<string, Rendered402>>();

/**
 * A frozen challenge (the gate's unpaid one, the same object on every unpaid request) is rendered
 * once per message: the header, the JSON body and, through `reused`, its gzip and brotli forms
 * (5.5 KB of JSON for the listing fee). Any other challenge is rendered for its one reply.
 */
function renderedOnce(paymentRequired: PaymentRequired, message: string): Rendered402 {
  const kept = renderings.get(paymentRequired)?.get(message);
  if (kept) return kept;
  const stable = Object.isFrozen(paymentRequired);
  const document = { ...(paymentRequired as PaymentRequiredBody), message } satisfies PaymentRequiredBody;
  const rendered = {
    header: paymentRequiredHeader(paymentRequired),
    body: { preRendered: Buffer.from(JSON.stringify(document)), reused: stable },
  };
  if (stable) {
    const byMessage = renderings.get(paymentRequired) ?? new Map<string, Rendered402>();
    renderings.set(paymentRequired, byMessage);
    if (byMessage.size < MESSAGES_PER_CHALLENGE) byMessage.set(message, rendered);
  }
  return rendered;
}

const UNAVAILABLE_TEXT: Record<UnavailableKind, string> = {
  timeout: "did not answer in time",
  unreachable: "could not be reached",
  bad_response: "gave no usable answer",
};

/**
 * 503 when the facilitator (or the chain node behind it) timed out, 502 when it could not be
 * reached or answered nonsense. The upstream error's own text stays in the log: it may carry a node
 * URL with its API key, or a raw transaction.
 */
export function facilitatorUnavailableReply(error: unknown, consequence: string) {
  return unavailableReply(error instanceof FacilitatorUnavailableError ? error.kind : "bad_response", consequence);
}

export function unavailableReply(kind: UnavailableKind, consequence: string) {
  return {
    status: kind === "timeout" ? (503 as const) : (502 as const),
    headers: { "Retry-After": "30" },
    body: {
      error: `facilitator_${kind}`,
      message: `The payment facilitator ${UNAVAILABLE_TEXT[kind]}. ${consequence}`,
    } satisfies ErrorBody,
  };
}
