// POST /listings, the only route where money moves. In order:
//   1. the body (400 names each bad field; an empty body is the unpaid probe: 402 with the challenge)
//   2. the payment, read and checked against the fee (402 with the reason; nobody is asked to pay
//      for a request that would fail, and a payment seen before gets its earlier result)
//   3. the facilitator verifies it (402 with its reason; 502/503 when it does not answer)
//   4. the seller probe (422 with the report; the authorization is never settled)
//   5. the listing, pending, and its payment, unique on (network, asset, payer, nonce), in one
//      transaction: a concurrent duplicate loses here (409) and is never settled
//   6. settlement (failure: the listing fails and the answer is 402 with PAYMENT-RESPONSE; no
//      answer: the listing stays pending for the reconciler, 502/503)
//   7. activation (or renewal of the seller's live listing of the same resource), 200.
import { getAddress } from "viem";
import type { MarketFacts } from "../catalog/market.js";
import type { Reply } from "../http/handler-types.js";
import type { Logger } from "../logger.js";
import type { ChainReader } from "../payments/chain-reader.js";
import { settledPaymentResponse, type Charge, type PaymentGate, type SignedPayment } from "../payments/payment-gate.js";
import { facilitatorUnavailableReply, paymentRequiredReply } from "../payments/replies.js";
import type { SellerProbe } from "../probe/seller-probe.js";
import { DuplicatePaymentError, type Listing, type ListingInput, type ListingStore, type Payment } from "../storage/listing-store.js";
import { checkListingBody, fieldErrorsOf, probeCheck, reportOf, type ListingRequest } from "./listing-checks.js";

type CreateListingReply = Reply<"createListing">;

export interface PaidListingDeps {
  store: ListingStore;
  gate: PaymentGate;
  probe: SellerProbe;
  market: MarketFacts;
  /** Reads the chain when a settlement reports the authorization as used already; null without an RPC URL. */
  chain: ChainReader | null;
  logger: Logger;
  now(): Date;
}

export interface PaidListingRequest {
  body: ListingRequest | undefined;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  clientIp: string;
}

/** The fee: 0.10 to the marketplace wallet, for POST /listings. */
export function listingFeeCharge(market: MarketFacts): Charge {
  return {
    amount: market.feeAtomic,
    payTo: market.payTo,
    resource: { url: `${market.baseUrl}/listings`, description: `List an x402-paid endpoint in ${market.name} for ${market.ttlDays} days`, mimeType: "application/json" },
  };
}

export async function createPaidListing(request: PaidListingRequest, deps: PaidListingDeps): Promise<CreateListingReply> {
  const { store, gate, market } = deps;
  const charge = listingFeeCharge(market);

  // 1. The body.
  if (request.body === undefined) {
    if (request.headers["payment-signature"]) {
      return problem(400, "listing_body_required", "A paid request needs the listing as its JSON body; nothing was charged.");
    }
    return paymentRequiredReply(await gate.challenge(charge), "Pay the listing fee with x402 (PAYMENT-SIGNATURE) and send the listing as the JSON body.");
  }
  const checked = checkListingBody(request.body);
  if (!checked.listing) {
    const fields = fieldErrorsOf(checked.checks);
    return { status: 400, body: { error: "invalid_listing", message: `Invalid listing: ${fields.map((f) => `${f.field} ${f.message}`).join("; ")}. Nothing was charged.`, fields } };
  }
  const listing = checked.listing;

  // 2. The payment, checked against the fee; a payment seen before gets its earlier result.
  const now = deps.now();
  const inspected = await gate.inspect(request.headers, charge, now);
  if (inspected.kind === "unpaid") return paymentRequiredReply(inspected.paymentRequired, "Pay the listing fee with x402 and send this request again.");
  if (inspected.kind === "rejected") return paymentRequiredReply(inspected.paymentRequired, inspected.message);
  const earlier = await withStore(() => store.findPayment(paymentKeyOf(inspected.payment)));
  if (earlier.failed) return earlier.reply;
  if (earlier.value) return earlierResult(earlier.value, listing, deps);

  // 3. Verification by the facilitator.
  let verified;
  try {
    verified = await gate.verify(inspected);
  } catch (error) {
    return facilitatorUnavailableReply(error, "Nothing was charged or saved; send the same request again later.");
  }
  if (verified.kind !== "verified") return paymentRequiredReply(verified.paymentRequired, verified.message);
  const payment = verified.payment;

  // 4. The seller probe, before any money moves.
  const attempt = await deps.probe.probe(
    { resource: listing.resource, method: listing.method, priceAtomic: checked.priceAtomic, sellerPayTo: listing.sellerPayTo },
    request.clientIp,
  );
  if (!attempt.ok && attempt.code === "rate_limited") {
    return { status: 429, headers: { "Retry-After": String(attempt.retryAfterSeconds) }, body: { error: "rate_limited", message: `${attempt.detail}. Nothing was charged.` } };
  }
  if (!attempt.ok) return { status: 422, body: reportOf([...checked.checks, probeCheck(attempt)]) };

  // 5. The pending listing and its payment, in one transaction.
  const recorded = await withStore(() =>
    store.createPendingListingWithPayment(
      listing,
      { ...paymentKeyOf(payment), amount: payment.requirements.amount, payTo: payment.requirements.payTo },
      deps.now(),
    ),
  );
  if (recorded.failed) {
    if (recorded.error instanceof DuplicatePaymentError) return earlierResult(recorded.error, listing, deps);
    return recorded.reply;
  }
  const pendingId = recorded.value.listing.id;

  // 6. Settlement.
  const settled = await gate.settle(payment);
  if (settled.kind === "unconfirmed") {
    deps.logger.warn({ listingId: pendingId, reason: settled.reason, transaction: settled.transaction }, "settlement unconfirmed; the reconciler will resolve the listing");
    const status = settled.reason === "timeout" || settled.reason === "settlement_pending" ? 503 : 502;
    return {
      status,
      headers: { "Retry-After": "60" },
      body: {
        error: settled.reason === "settlement_pending" ? "settlement_pending" : `facilitator_${settled.reason}`,
        message: `The settlement got no definite answer (${settled.message}). The listing stays pending until the reconciler resolves it from the chain (about ${Math.ceil(market.maxTimeoutSeconds / 60) + 2} minutes); send the same request again then for the result.`,
      },
    };
  }
  let transaction: string;
  let paymentResponse: string;
  if (settled.kind === "failed") {
    const usedOnChain = await settledElsewhere(settled.reason, payment, deps);
    if (usedOnChain === null) {
      await withStore(() => store.failListing(pendingId, { reason: settled.reason, txHash: settled.transaction || null, now: deps.now() }));
      return {
        status: 402,
        headers: { "PAYMENT-RESPONSE": settled.paymentResponse },
        body: { error: settled.reason, message: `The settlement failed: ${settled.message}. Nothing was listed.`, x402Version: 2 },
      };
    }
    transaction = usedOnChain;
    paymentResponse = settledPaymentResponse({ transaction, network: market.network, payer: payment.payer });
  } else {
    transaction = settled.transaction;
    paymentResponse = settled.paymentResponse;
  }

  // 7. Activation (or renewal).
  const activated = await withStore(() => store.activateListing(pendingId, { txHash: transaction, now: deps.now() }));
  if (activated.failed) {
    deps.logger.error({ err: activated.error, listingId: pendingId, transaction }, "fee settled but activation failed; the reconciler will activate the listing");
    return {
      status: 503,
      headers: { "Retry-After": "60", "PAYMENT-RESPONSE": paymentResponse },
      body: { error: "activation_deferred", message: `The fee was settled (${transaction}) but the listing could not be activated yet; it is activated automatically. Send the same request again for the result.` },
    };
  }
  const { listing: active, renewed } = activated.value;
  deps.logger.info({ listingId: active.id, renewed, transaction, payer: payment.payer, resource: active.resource }, "listing paid");
  return {
    status: 200,
    headers: { "PAYMENT-RESPONSE": paymentResponse },
    body: created(active, renewed, transaction, market),
  };
}

function created(listing: Listing, renewed: boolean, transaction: string, market: MarketFacts) {
  return {
    id: listing.id,
    resource: listing.resource,
    listingFeeUsdc: market.feeUsdc,
    expiresAt: listing.expiresAt.toISOString(),
    catalog: `${market.baseUrl}/bazaar.json`,
    renewed,
    transaction,
  };
}

function paymentKeyOf(payment: SignedPayment) {
  return { network: payment.requirements.network, asset: payment.requirements.asset, payer: payment.payer, nonce: payment.nonce };
}

/** The answer to a payment recorded before: the same 200 if it bought a live listing, else 409. */
function earlierResult(
  { payment, listing }: { payment: Payment; listing: Listing | null },
  wanted: ListingInput,
  { market, now }: PaidListingDeps,
): CreateListingReply {
  if (payment.state === "pending") {
    return problem(409, "payment_in_progress", "This payment is being processed by another request; send the same request again in a minute for its result.");
  }
  if (payment.state === "failed") {
    return problem(409, "payment_already_failed", `This payment was tried before and failed (${payment.failureReason ?? "unknown reason"}); sign a new payment.`);
  }
  const sameListing =
    listing && listing.resource === wanted.resource && listing.method === wanted.method && listing.sellerPayTo === getAddress(wanted.sellerPayTo);
  if (!listing || listing.state !== "active" || listing.expiresAt <= now() || !sameListing) {
    const what = listing ? `listing ${listing.id} (${listing.resource}, expiring ${listing.expiresAt.toISOString()})` : "a listing that has since been removed";
    return problem(409, "payment_already_used", `This payment already paid for ${what}; sign a new payment for this listing.`);
  }
  const renewed = listing.listedAt.getTime() < payment.createdAt.getTime();
  const transaction = payment.txHash ?? "";
  return {
    status: 200,
    headers: { "PAYMENT-RESPONSE": settledPaymentResponse({ transaction, network: market.network, payer: getAddress(payment.payer) }) },
    body: created(listing, renewed, transaction, market),
  };
}

/**
 * A settlement refused because the authorization is used already: the fee did arrive if the chain
 * shows the transfer (someone else broadcast it), not if the payer canceled it. The transaction, or null.
 */
async function settledElsewhere(reason: string, payment: SignedPayment, deps: PaidListingDeps): Promise<string | null> {
  if (reason !== "invalid_exact_evm_nonce_already_used" || !deps.chain) return null;
  try {
    const onChain = await deps.chain.authorization(getAddress(payment.requirements.asset), payment.payer, payment.nonce);
    return onChain.state === "used" ? (onChain.txHash ?? "") : null;
  } catch {
    return null;
  }
}

function problem(status: 400 | 409, error: string, message: string): CreateListingReply {
  return { status, body: { error, message } };
}

type StoreResult<T> = { failed: false; value: T } | { failed: true; error: unknown; reply: CreateListingReply };

/** A storage call whose failure becomes 503 (or, for a duplicate payment, the caller's business). */
async function withStore<T>(call: () => Promise<T>): Promise<StoreResult<T>> {
  try {
    return { failed: false, value: await call() };
  } catch (error) {
    return {
      failed: true,
      error,
      reply: { status: 503, headers: { "Retry-After": "5" }, body: { error: "storage_unavailable", message: "The listing database did not answer; nothing was charged. Retry shortly." } },
    };
  }
}
