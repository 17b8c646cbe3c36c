// POST /listings, the only route where money moves. In order (before it, the route's middleware
// refuses a paying client over its seller-probe limit with 429: src/handlers/route-middleware.ts):
//   1. the body (400 names each bad field; an empty body is the unpaid probe: 402 with the challenge)
//   2. the payment, read and checked against the fee (402 with the reason; nobody is asked to pay
//      for a request that would fail, and a payment seen before gets its earlier result)
//   3. the facilitator verifies it (402 with its reason; 502/503 when it does not answer)
//   4. the seller probe (422 with the report; the authorization is never settled)
//   5. the listing, pending, and its payment, unique on (network, asset, payer, nonce), in one
//      transaction: a concurrent duplicate loses here (409) and is never settled
//   6. settlement, judged by the chain: the listing is activated only when the receipt of the
//      transaction that used this authorization shows exactly the fee moving to the marketplace
//      wallet; a definite refusal fails it (402 with PAYMENT-RESPONSE); no definite answer leaves it
//      pending for the reconciler (502/503); nothing broadcast releases it (502/503, send again)
//   7. activation (or renewal of the seller's live listing of the same resource), 200.
// Around it all, a payment identifier (x402 `payment-identifier`) makes a resend of the same paid
// request get the stored 200 (src/listing/payment-idempotency.ts).
import { getAddress } from "viem";
import type { MarketFacts } from "../market/facts.js";
import type { Reply } from "../contract/typed-handlers.js";
import type { Logger } from "../logger.js";
import { metrics } from "../metrics.js";
import { exampleListing } from "../documents/listing-request.js";
import { bodyRouteDiscovery } from "../payments/bazaar.js";
import type { ChainReader } from "../payments/chain-reader.js";
import {
  paymentResponseHeader,
  readPaymentHeader,
  type Charge,
  type PaymentGate,
  type SentPayment,
  type SignedPayment,
} from "../payments/payment-gate.js";
import { facilitatorUnavailableReply, paymentRequiredReply, unavailableReply } from "../payments/replies.js";
import type { SellerProbe } from "../probe/seller-probe.js";
import {
  DuplicatePaymentError,
  type AlongsideActivation,
  type Listing,
  type ListingInput,
  type ListingStore,
  type Payment,
} from "../storage/listing/listing-store.js";
import type { PaymentIdempotencyStore } from "../storage/listing/payment-idempotency-store.js";
import {
  checkListingBody,
  fieldErrorsOf,
  probeCheck,
  reportOf,
  withSellerMetadata,
  type ListingRequest,
} from "./listing-checks.js";
import { linkTo } from "../market/links.js";
import { answeredOnce, withPaymentIdentifier } from "./payment-idempotency.js";
import { judgeSettlement, SETTLEMENT_OUTCOME } from "./settlement-judgement.js";
import type { Health } from "../health/health.js";

type CreateListingReply = Reply<"createListing">;
type CreatedBody = ReturnType<typeof created>;

export interface PaidListingDeps {
  store: ListingStore;
  gate: PaymentGate;
  probe: SellerProbe;
  market: MarketFacts;
  /** Proves a settlement from the chain; null without an RPC URL (remote facilitator in development only). */
  chain: ChainReader | null;
  logger: Logger;
  now(): Date;
  /** Payment identifiers and their stored answers (payment-idempotency.ts), built once at the composition root. */
  idempotency: PaymentIdempotencyStore;
  /** Records the listing-time probe as the listing's first health sample, in the activation's transaction (src/health/). */
  health?: Pick<Health, "store" | "prober">;
}

export interface PaidListingRequest {
  body: ListingRequest | undefined;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  clientIp: string;
}

const feeCharges = new WeakMap<MarketFacts, Charge>();

/** The fee: 0.10 to the marketplace wallet, for POST /listings (built once per market: every request, paid or not, states it). */
export function listingFeeCharge(market: MarketFacts): Charge {
  const known = feeCharges.get(market);
  if (known) return known;
  const charge = feeChargeOf(market);
  feeCharges.set(market, charge);
  return charge;
}

function feeChargeOf(market: MarketFacts): Charge {
  const example = exampleListing(market);
  return {
    amount: market.feeAtomic,
    payTo: market.payTo,
    resource: {
      url: linkTo(market, "list"),
      description: `List an x402-paid endpoint in ${market.name} for ${market.ttlDays} days`,
      mimeType: "application/json",
    },
    discovery: withPaymentIdentifier(
      bodyRouteDiscovery("createListing", {
        input: example,
        output: {
          id: "0b6f2a8e-3c1d-4e5f-9a7b-1c2d3e4f5a6b",
          resource: example.resource,
          listingFeeUsdc: market.feeUsdc,
          expiresAt: new Date(Date.UTC(2026, 0, 31)).toISOString(),
          catalog: linkTo(market, "catalog"),
          renewed: false,
          transaction: `0x${"ab".repeat(32)}`,
        } satisfies CreatedBody,
      }),
    ),
  };
}

export function createPaidListing(request: PaidListingRequest, deps: PaidListingDeps): Promise<CreateListingReply> {
  const sent = readPaymentHeader(request.headers);
  return answeredOnce({ payment: sent, body: request.body }, deps, () => payAndList(request, sent, deps));
}

async function payAndList(
  request: PaidListingRequest,
  sent: SentPayment,
  deps: PaidListingDeps,
): Promise<CreateListingReply> {
  const { store, gate, market } = deps;
  const charge = listingFeeCharge(market);

  // 1. The body.
  if (request.body === undefined) {
    if (sent.kind !== "none") {
      return problem(
        400,
        "listing_body_required",
        "A paid request needs the listing as its JSON body; nothing was charged.",
      );
    }
    return paymentRequiredReply(
      await gate.challenge(charge),
      "Pay the listing fee with x402 (PAYMENT-SIGNATURE) and send the listing as the JSON body.",
    );
  }
  const checked = checkListingBody(request.body);
  if (!checked.listing) {
    const fields = fieldErrorsOf(checked.checks);
    return {
      status: 400,
      body: {
        error: "invalid_listing",
        message: `Invalid listing: ${fields.map((f) => `${f.field} ${f.message}`).join("; ")}. Nothing was charged.`,
        fields,
      },
    };
  }
  const listing = checked.listing;

  // 2. The payment, checked against the fee; a payment seen before gets its earlier result.
  const now = deps.now();
  const inspected = await gate.inspect(sent, charge, now);
  if (inspected.kind === "unpaid")
    return paymentRequiredReply(
      inspected.paymentRequired,
      "Pay the listing fee with x402 and send this request again.",
    );
  if (inspected.kind === "rejected") {
    countPayment("failed", "inspect");
    return paymentRequiredReply(inspected.paymentRequired, inspected.message);
  }
  const earlier = await withStore(() => store.findPayment(paymentKeyOf(inspected.payment)));
  if (earlier.failed) return earlier.reply;
  if (earlier.value) {
    countPayment("duplicate", "record");
    return earlierResult(earlier.value, listing, deps);
  }
  // A live listing is renewed only by its first payer or its sellerPayTo: a stranger may not rewrite it.
  const live = await withStore(() => store.liveListingFor(listing, now));
  if (live.failed) return live.reply;
  if (live.value && !live.value.renewers.includes(inspected.payment.payer.toLowerCase())) {
    return {
      status: 403,
      body: {
        error: "not_listing_owner",
        message: `${listing.resource} is listed already (listing ${live.value.listing.id}); only its first payer or its sellerPayTo can renew or change it. Nothing was charged.`,
      },
    };
  }

  // 3. Verification by the facilitator.
  let verified;
  try {
    verified = await gate.verify(inspected);
  } catch (error) {
    deps.logger.warn({ err: error }, "payment verification got no answer");
    countPayment("unavailable", "verify");
    return facilitatorUnavailableReply(error, "Nothing was charged or saved; send the same request again later.");
  }
  countPayment(verified.kind === "verified" ? "verified" : "failed", "verify");
  if (verified.kind !== "verified") {
    if (verified.kind === "rejected" && verified.detail)
      deps.logger.info({ reason: verified.reason, detail: verified.detail }, "payment refused by the facilitator");
    return paymentRequiredReply(verified.paymentRequired, verified.message);
  }
  const payment = verified.payment;

  // 4. The seller probe, before any money moves.
  const probeStarted = performance.now();
  const attempt = await deps.probe.probe(
    {
      resource: listing.resource,
      method: listing.method,
      priceAtomic: checked.priceAtomic,
      sellerPayTo: listing.sellerPayTo,
    },
    request.clientIp,
  );
  if (!attempt.ok && attempt.code === "rate_limited") {
    return {
      status: 429,
      headers: { "Retry-After": String(attempt.retryAfterSeconds) },
      body: { error: "rate_limited", message: `${attempt.detail}. Nothing was charged.` },
    };
  }
  if (!attempt.ok) return { status: 422, body: reportOf([...checked.checks, probeCheck(attempt)]) };
  const probeMs = performance.now() - probeStarted;

  // 5. The pending listing and its payment, in one transaction.
  const recorded = await withStore(() =>
    store.createPendingListingWithPayment(
      withSellerMetadata(listing, attempt),
      { ...paymentKeyOf(payment), amount: payment.requirements.amount, payTo: payment.requirements.payTo },
      deps.now(),
    ),
  );
  if (recorded.failed) {
    if (recorded.error instanceof DuplicatePaymentError) {
      countPayment("duplicate", "record");
      return earlierResult(recorded.error, listing, deps);
    }
    return recorded.reply;
  }
  const pendingId = recorded.value.listing.id;

  // 6. Settlement, judged by the chain.
  const settled = await gate.settle(payment);
  if (settled.kind !== "settled")
    deps.logger.warn(
      { listingId: pendingId, kind: settled.kind, reason: settled.reason, detail: settled.detail },
      "settlement not confirmed",
    );
  const verdict = await judgeSettlement(settled, payment, deps);
  countPayment(SETTLEMENT_OUTCOME[verdict.kind], "settle");
  if (verdict.kind === "not_sent") {
    await withStore(() => store.releasePendingListing(pendingId, deps.now()));
    return unavailableReply(verdict.reason, "Nothing was charged or saved; send the same request again later.");
  }
  if (verdict.kind === "unconfirmed") {
    const pendingNote = `The listing stays pending until the reconciler resolves it from the chain (about ${Math.ceil(market.maxTimeoutSeconds / 60) + 2} minutes); send the same request again then for the result.`;
    if (verdict.reason !== "settlement_pending") return unavailableReply(verdict.reason, pendingNote);
    return {
      status: 503,
      headers: { "Retry-After": "60" },
      body: { error: "settlement_pending", message: `The settlement was not confirmed in time. ${pendingNote}` },
    };
  }
  if (verdict.kind === "refused") {
    const { reason, transaction, chainChecked } = verdict;
    await withStore(() =>
      store.failListing(pendingId, { reason, txHash: transaction || null, chainChecked, now: deps.now() }),
    );
    return {
      status: 402,
      headers: {
        "PAYMENT-RESPONSE": paymentResponseHeader({
          success: false,
          errorReason: reason,
          transaction,
          network: market.network,
          payer: payment.payer,
        }),
      },
      body: { error: reason, message: `The settlement failed (${reason}). Nothing was listed.`, x402Version: 2 },
    };
  }
  const transaction = verdict.transaction;
  const paymentResponse = paymentResponseHeader({
    success: true,
    transaction,
    network: market.network,
    payer: payment.payer,
  });

  // 7. Activation (or renewal).
  const activatedAt = deps.now();
  const health = deps.health;
  const alongside: AlongsideActivation | undefined =
    health &&
    ((tx, listingId) =>
      health.store.recordListingSampleWithin(tx, listingId, probeMs, activatedAt, health.prober.schedule));
  const activated = await withStore(() =>
    store.activateListing(pendingId, { txHash: transaction, now: activatedAt, alongside }),
  );
  if (activated.failed) {
    deps.logger.error(
      { err: activated.error, listingId: pendingId, transaction },
      "fee settled but activation failed; the reconciler will activate the listing",
    );
    return {
      status: 503,
      headers: { "Retry-After": "60", "PAYMENT-RESPONSE": paymentResponse },
      body: {
        error: "activation_deferred",
        message: `The fee was settled (${transaction}) but the listing could not be activated yet; the reconciler activates it within a few minutes. Send the same request again then for the result.`,
      },
    };
  }
  const { listing: active, renewed } = activated.value;
  deps.logger.info(
    { listingId: active.id, renewed, transaction, payer: payment.payer, resource: active.resource },
    "listing paid",
  );
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
    catalog: linkTo(market, "catalog"),
    renewed,
    transaction,
  };
}

function paymentKeyOf(payment: SignedPayment) {
  return {
    network: payment.requirements.network,
    asset: payment.requirements.asset,
    payer: payment.payer,
    nonce: payment.nonce,
  };
}

/** The answer to a payment recorded before: the same 200 if it bought a live listing, else 409. */
function earlierResult(
  { payment, listing }: { payment: Payment; listing: Listing | null },
  wanted: ListingInput,
  { market, now }: PaidListingDeps,
): CreateListingReply {
  if (payment.state === "pending") {
    return problem(
      409,
      "payment_in_progress",
      "This payment is being processed by another request; send the same request again in a minute for its result.",
    );
  }
  if (payment.state === "failed") {
    return problem(
      409,
      "payment_already_failed",
      `This payment was tried before and failed (${payment.failureReason ?? "unknown reason"}); sign a new payment.`,
    );
  }
  const sameListing =
    listing &&
    listing.resource === wanted.resource &&
    listing.method === wanted.method &&
    listing.sellerPayTo === getAddress(wanted.sellerPayTo);
  if (!listing || listing.state !== "active" || listing.expiresAt <= now() || !sameListing) {
    const what = listing
      ? `listing ${listing.id} (${listing.resource}, expiring ${listing.expiresAt.toISOString()})`
      : "a listing that has since been removed";
    return problem(
      409,
      "payment_already_used",
      `This payment already paid for ${what}; sign a new payment for this listing.`,
    );
  }
  const renewed = listing.listedAt.getTime() < payment.createdAt.getTime();
  const transaction = payment.txHash ?? "";
  return {
    status: 200,
    headers: {
      "PAYMENT-RESPONSE": paymentResponseHeader({
        success: true,
        transaction,
        network: market.network,
        payer: getAddress(payment.payer),
      }),
    },
    body: created(listing, renewed, transaction, market),
  };
}

type PaymentOutcome = "verified" | "settled" | "failed" | "unconfirmed" | "duplicate" | "unavailable";

/** Counts a listing-fee payment by outcome and the stage that decided it (x402_payments_total). */
function countPayment(outcome: PaymentOutcome, stage: "inspect" | "verify" | "record" | "settle"): void {
  metrics.payments.inc({ outcome, stage });
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
      reply: {
        status: 503,
        headers: { "Retry-After": "5" },
        body: {
          error: "storage_unavailable",
          message: "The listing database did not answer; nothing was charged. Retry shortly.",
        },
      },
    };
  }
}
