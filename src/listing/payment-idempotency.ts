// The x402 `payment-identifier` extension on POST /listings (x402 specs/extensions/
// payment_identifier.md): a client may put an id in its PaymentPayload's extensions; a resend of the
// same payload with the same id (its answer was lost) gets the stored 200 with its PAYMENT-RESPONSE,
// without a second listing or transfer; another payload under that id gets 409. The id is looked up
// before the payment is verified (a settled authorization no longer verifies), and it is bound to the
// exact payload and listing body, since that lookup is unauthenticated. This sits beside, not instead
// of, the (network, asset, payer, nonce) de-duplication of the paid flow.
import { createHash } from "node:crypto";
import {
  declarePaymentIdentifierExtension,
  isValidPaymentId,
  PAYMENT_IDENTIFIER,
} from "@x402/extensions/payment-identifier";
import type { Prisma } from "../../generated/prisma/sqlite/client.js";
import { isJsonObject } from "../contract/json.js";
import type { Reply } from "../contract/typed-handlers.js";
import type { Logger } from "../logger.js";
import type { RouteDiscovery } from "../payments/bazaar.js";
import type { SentPayment } from "../payments/payment-gate.js";
import type { PaymentIdempotencyStore } from "../storage/listing/payment-idempotency-store.js";
import { DAY_MS } from "../constants.js";
import { canonicalJson } from "./owner-typed-data.js";

type CreateListingReply = Reply<"createListing">;

/** A reservation whose request has not finished after this long is taken to be abandoned (above the settlement's own limits). */
const ABANDONED_AFTER_MS = 15 * 60 * 1000;
/** How long a stored answer is kept for resends. */
const KEPT_FOR_MS = DAY_MS;

/** The route's 402 declares the extension (optional: a request without an id is served as ever). */
export function withPaymentIdentifier(discovery: RouteDiscovery): RouteDiscovery {
  return {
    ...discovery,
    extensions: { ...discovery.extensions, [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) },
  };
}

type Identified = { id: string; payloadHash: string } | { invalid: string } | null;

/** The payment identifier of a request and the hash of what it is bound to; null without one. */
function identify(sent: SentPayment, body: unknown, route: string): Identified {
  if (sent.kind !== "decoded") return null; // the gate answers a malformed header
  const payload = sent.payload;
  const extension =
    isJsonObject(payload) && isJsonObject(payload.extensions) ? payload.extensions[PAYMENT_IDENTIFIER] : undefined;
  const id = isJsonObject(extension) && isJsonObject(extension.info) ? extension.info.id : undefined;
  if (id === undefined) return null;
  if (typeof id !== "string" || !isValidPaymentId(id))
    return { invalid: "the payment-identifier id must be 16 to 128 letters, digits, hyphens or underscores" };
  const payloadHash = createHash("sha256")
    .update(canonicalJson({ payment: payload, body: body ?? null }))
    .digest("hex");
  // Scoped by route: one id on two paid routes are two requests.
  return { id: `${route}:${id}`, payloadHash };
}

export interface IdempotencyDeps {
  idempotency: PaymentIdempotencyStore;
  logger: Logger;
  now(): Date;
}

/**
 * Runs `answer` once per payment identifier: a resend of the same payload gets the stored 200, another
 * payload under the id 409, a resend while the first is still running 409 with Retry-After. Only a 200
 * is stored; any other answer frees the id, so the request may be sent again as before.
 */
export async function answeredOnce(
  request: { payment: SentPayment; body: unknown },
  deps: IdempotencyDeps,
  answer: () => Promise<CreateListingReply>,
): Promise<CreateListingReply> {
  const identified = identify(request.payment, request.body, "createListing");
  if (!identified) return answer();
  if ("invalid" in identified)
    return {
      status: 400,
      body: { error: "invalid_payment_identifier", message: `${identified.invalid}. Nothing was charged.` },
    };
  const { id, payloadHash } = identified;
  const now = deps.now();
  const claimed = await deps.idempotency.claim(id, payloadHash, now, new Date(now.getTime() - ABANDONED_AFTER_MS));
  switch (claimed.kind) {
    case "stored":
      return claimed.answer as unknown as CreateListingReply;
    case "conflict":
      return {
        status: 409,
        body: {
          error: "payment_identifier_conflict",
          message:
            "This payment identifier was used with another payment or listing; use a new identifier. Nothing was charged.",
        },
      };
    case "in_progress":
      return {
        status: 409,
        headers: { "Retry-After": "10" },
        body: {
          error: "payment_in_progress",
          message:
            "A request with this payment identifier is still being answered; send the same request again shortly for its result.",
        },
      };
    case "new":
      break;
  }
  let reply: CreateListingReply;
  try {
    reply = await answer();
  } catch (error) {
    await deps.idempotency.release(id).catch(() => undefined);
    throw error;
  }
  try {
    if (reply.status === 200) {
      await deps.idempotency.complete(id, {
        status: reply.status,
        headers: reply.headers,
        body: reply.body as unknown as Prisma.InputJsonValue,
      });
      await deps.idempotency.prune(new Date(now.getTime() - KEPT_FOR_MS));
    } else {
      await deps.idempotency.release(id);
    }
  } catch (error) {
    // A resend still finds the payment by its (payer, nonce) and gets the same answer from it.
    deps.logger.warn({ err: error }, "could not store the answer of a payment identifier");
  }
  return reply;
}
