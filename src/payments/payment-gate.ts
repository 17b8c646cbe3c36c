// The x402 gate of every paid route (the listing fee and the /kr-* demo endpoints), on the SDK's
// x402ResourceServer: it states the terms, checks and verifies a payment, and settles it when the
// caller says so. It never settles by itself: the caller decides when (after its own row exists).
import {
  encodePaymentResponseHeader,
  type FacilitatorClient,
  type HTTPAdapter,
  type HTTPRequestContext,
} from "@x402/core/http";
import { PaymentPayloadV2Schema, z } from "@x402/core/schemas";
import { x402ResourceServer } from "@x402/core/server";
import {
  SettleError,
  VerifyError,
  type Network,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  type ResourceInfo,
  type SettleResponse,
} from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { getAddress, type Address, type Hex } from "viem";
import type { RouteDiscovery } from "./bazaar.js";
import { FacilitatorUnavailableError, type UnavailableKind } from "./facilitator-client.js";
import { PAYMENT_TIMEOUT_SECONDS } from "../constants.js";
import { deepFreeze } from "../contract/json.js";

/** Clock difference tolerated between a buyer and us when bounding an authorization's lifetime. */
export const CLOCK_SKEW_SECONDS = 60;
/**
 * An accepted authorization expires at most this long after we first saw it, so a pending payment
 * older than this can no longer settle: the reconciler may then fail it when it is unused on chain.
 */
export const AUTHORIZATION_LIFETIME_LIMIT_MS = (PAYMENT_TIMEOUT_SECONDS + CLOCK_SKEW_SECONDS) * 1000;

export interface TokenTerms {
  network: Network;
  asset: string;
  tokenName: string;
  tokenVersion: string;
}

/** What one paid route charges, and for what. */
export interface Charge {
  /** Atomic units of the token. */
  amount: string;
  payTo: string;
  resource: ResourceInfo;
  /** The route's bazaar declaration: every PaymentRequired of the charge carries it as `extensions`. */
  discovery?: RouteDiscovery;
}

/** A signed payment that fits the charge (and, once past `verify`, verified by the facilitator); never settled here unasked. */
export interface SignedPayment {
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  payer: Address;
  nonce: Hex;
}

/** The payment a request carries: its PAYMENT-SIGNATURE decoded once (readPaymentHeader), for every step that reads it. */
export type SentPayment =
  /** `v1`: an x402 v1 X-PAYMENT header came instead. */
  | { kind: "none"; v1: boolean }
  | { kind: "malformed" }
  /** Decoded JSON, not yet checked against the x402 v2 schema. */
  | { kind: "decoded"; payload: unknown };

export function readPaymentHeader(headers: Record<string, string | undefined>): SentPayment {
  const header = headers["payment-signature"];
  if (!header) return { kind: "none", v1: Boolean(headers["x-payment"]) };
  try {
    return { kind: "decoded", payload: decodeBase64Json(header) };
  } catch {
    return { kind: "malformed" };
  }
}

// The x402 headers are base64 of JSON, as the SDK's encode/decode functions make and read them, but
// through Buffer: the SDK's copy the bytes one at a time through atob/btoa strings, and a
// PAYMENT-SIGNATURE carries the whole challenge back (kilobytes), read on every paid request.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64Json(header: string): unknown {
  if (!BASE64.test(header)) throw new Error("not base64");
  return JSON.parse(Buffer.from(header, "base64").toString("utf8"));
}

const encodeBase64Json = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64");

type Unpaid = { kind: "unpaid"; paymentRequired: PaymentRequired };
/** `message` is ours and safe to show; `detail` is the facilitator's own text, for the log only. */
type Rejected = {
  kind: "rejected";
  reason: string;
  message: string;
  detail?: string;
  paymentRequired: PaymentRequired;
};

export type InspectOutcome = Unpaid | Rejected | { kind: "signed"; payment: SignedPayment; charge: Charge };
type Verified = { kind: "verified"; payment: SignedPayment };
export type GateOutcome = Unpaid | Rejected | Verified;

/** `detail` is upstream text (it may hold node URLs or transactions): for the log, never for a reply. */
export type SettleOutcome =
  | { kind: "settled"; transaction: string; paymentResponse: string }
  /** The facilitator's definite refusal: nothing was transferred by this settlement. */
  | { kind: "failed"; reason: string; detail: string; transaction: string; paymentResponse: string }
  /** No definite answer, and a broadcast may have happened: the authorization may still settle. */
  | { kind: "unconfirmed"; reason: UnavailableKind | "settlement_pending"; detail: string; transaction: string }
  /** No answer, and nothing was broadcast: the authorization is untouched and may be sent again. */
  | { kind: "not_sent"; reason: UnavailableKind; detail: string };

const eip3009Authorization = z.object({
  authorization: z.object({
    from: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
    to: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
    value: z.string().regex(/^\d{1,78}$/),
    validAfter: z.string().regex(/^\d{1,78}$/),
    validBefore: z.string().regex(/^\d{1,78}$/),
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  }),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
});

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The first term of `accepted` that differs from ours, as a named reason; null when none does. */
function termMismatch(
  ours: PaymentRequirements,
  accepted: PaymentRequirements,
): { reason: string; message: string } | null {
  const differs = (field: string, theirs: unknown, wanted: unknown) => ({
    reason: `payment_${field}_mismatch`,
    message: `the payment's accepted ${field} is ${JSON.stringify(theirs)}; this route requires ${JSON.stringify(wanted)}`,
  });
  if (accepted.scheme !== ours.scheme) return differs("scheme", accepted.scheme, ours.scheme);
  if (accepted.network !== ours.network) return differs("network", accepted.network, ours.network);
  if (!sameAddress(accepted.asset, ours.asset)) return differs("asset", accepted.asset, ours.asset);
  if (accepted.amount !== ours.amount) return differs("amount", accepted.amount, ours.amount);
  if (!sameAddress(accepted.payTo, ours.payTo)) return differs("pay_to", accepted.payTo, ours.payTo);
  return null;
}

export class PaymentGate {
  private constructor(
    private readonly server: x402ResourceServer,
    readonly token: TokenTerms,
  ) {}

  /** Registers the `exact` EVM scheme and loads the facilitator's supported kinds (mandatory in the SDK). */
  static async create(facilitator: FacilitatorClient, token: TokenTerms): Promise<PaymentGate> {
    const server = registerExactEvmScheme(new x402ResourceServer(facilitator), {
      networks: [token.network],
    }).registerExtension(bazaarResourceServerExtension);
    await server.initialize();
    return new PaymentGate(server, token);
  }

  async requirementsFor(charge: Charge): Promise<PaymentRequirements> {
    const [requirements] = await this.server.buildPaymentRequirements({
      scheme: "exact",
      network: this.token.network,
      payTo: charge.payTo,
      price: {
        amount: charge.amount,
        asset: this.token.asset,
        extra: { name: this.token.tokenName, version: this.token.tokenVersion },
      },
      maxTimeoutSeconds: PAYMENT_TIMEOUT_SECONDS,
    });
    return requirements!;
  }

  /** The x402 v2 PaymentRequired object: what the `PAYMENT-REQUIRED` header carries, decoded. */
  async challenge(charge: Charge, error = "payment_required"): Promise<PaymentRequired> {
    if (error === "payment_required") return this.unpaidChallenge(charge);
    return this.paymentRequired(await this.requirementsFor(charge), charge, error);
  }

  /**
   * The challenge to an unpaid request, built once per charge object and frozen: it depends only on
   * the charge and the gate's fixed terms, and a charge built once (the listing fee) is stated on
   * every unpaid request, so its answer can be rendered once too (src/payments/replies.ts).
   */
  private unpaidChallenge(charge: Charge): Promise<PaymentRequired> {
    let known = this.unpaidChallenges.get(charge);
    if (!known) {
      // A copy is frozen: the SDK's answer may share objects with the charge's own declaration.
      known = this.requirementsFor(charge).then(async (requirements) =>
        deepFreeze(structuredClone(await this.paymentRequired(requirements, charge, "payment_required"))),
      );
      this.unpaidChallenges.set(charge, known);
      known.catch(() => this.unpaidChallenges.delete(charge));
    }
    return known;
  }

  private readonly unpaidChallenges = new WeakMap<Charge, Promise<PaymentRequired>>();

  private paymentRequired(requirements: PaymentRequirements, charge: Charge, error: string): Promise<PaymentRequired> {
    const extensions =
      charge.discovery &&
      this.server.enrichExtensions(charge.discovery.extensions, requestContextOf(charge, charge.discovery));
    return this.server.createPaymentRequiredResponse([requirements], charge.resource, error, extensions);
  }

  /**
   * Reads the payment sent with a request and checks it against the charge, without asking the
   * facilitator: a signed payment comes back with its dedupe key, for the caller to look up first.
   */
  async inspect(sent: SentPayment, charge: Charge, now: Date): Promise<InspectOutcome> {
    const requirements = await this.requirementsFor(charge);
    const reject = (reason: string, message: string) => this.rejection(requirements, charge, reason, message);

    if (sent.kind === "none") {
      if (sent.v1)
        return reject("x402_v1_not_supported", "X-PAYMENT is x402 v1; send an x402 v2 payment in PAYMENT-SIGNATURE");
      return { kind: "unpaid", paymentRequired: await this.unpaidChallenge(charge) };
    }
    if (sent.kind === "malformed")
      return reject(
        "invalid_payment_signature_header",
        "PAYMENT-SIGNATURE must be base64-encoded JSON of an x402 v2 payment payload",
      );
    const decoded = sent.payload;
    const parsed = PaymentPayloadV2Schema.safeParse(decoded);
    if (!parsed.success) {
      const version = (decoded as { x402Version?: unknown } | null)?.x402Version;
      if (version !== undefined && version !== 2)
        return reject("unsupported_x402_version", `x402Version ${JSON.stringify(version)} is not accepted; use 2`);
      return reject(
        "invalid_payment_payload",
        `the payment payload is not an x402 v2 payload: ${parsed.error.issues[0]?.message ?? "malformed"}`,
      );
    }
    const payload = parsed.data as PaymentPayload;
    const mismatch = termMismatch(requirements, payload.accepted);
    if (mismatch) return reject(mismatch.reason, mismatch.message);
    const matching = this.server.findMatchingRequirements([requirements], payload);
    if (!matching)
      return reject(
        "payment_terms_mismatch",
        "the payment's accepted terms differ from this route's requirements (timeout or token data)",
      );
    const authorization = eip3009Authorization.safeParse(payload.payload);
    if (!authorization.success) {
      return reject(
        "invalid_payment_payload",
        "an exact payment on this route must be an EIP-3009 authorization with a signature",
      );
    }
    const { from, nonce, validBefore } = authorization.data.authorization;
    const latestExpiry = Math.floor(now.getTime() / 1000) + PAYMENT_TIMEOUT_SECONDS + CLOCK_SKEW_SECONDS;
    if (BigInt(validBefore) > BigInt(latestExpiry)) {
      return reject(
        "authorization_validity_too_long",
        `validBefore ${validBefore} is more than ${PAYMENT_TIMEOUT_SECONDS} s (+${CLOCK_SKEW_SECONDS} s clock skew) ahead; sign an authorization that expires within maxTimeoutSeconds`,
      );
    }
    return {
      kind: "signed",
      payment: { payload, requirements: matching, payer: getAddress(from), nonce: nonce.toLowerCase() as Hex },
      charge,
    };
  }

  /** Has the facilitator verify a signed payment. Throws FacilitatorUnavailableError when it gives no answer. */
  async verify(signed: Extract<InspectOutcome, { kind: "signed" }>): Promise<Rejected | Verified> {
    const { payment, charge } = signed;
    const refuse = async (reason: string, detail: string | undefined) => ({
      ...(await this.rejection(payment.requirements, charge, reason, `the facilitator refused the payment: ${reason}`)),
      detail,
    });
    let verified;
    try {
      verified = await this.server.verifyPayment(payment.payload, payment.requirements);
    } catch (error) {
      if (error instanceof VerifyError)
        return refuse(error.invalidReason ?? "payment_invalid", error.invalidMessage ?? error.message);
      throw error;
    }
    if (!verified.isValid) return refuse(verified.invalidReason ?? "payment_invalid", verified.invalidMessage);
    return { kind: "verified", payment };
  }

  /** inspect, then verify. */
  async check(headers: Record<string, string | undefined>, charge: Charge, now: Date): Promise<GateOutcome> {
    const inspected = await this.inspect(readPaymentHeader(headers), charge, now);
    return inspected.kind === "signed" ? this.verify(inspected) : inspected;
  }

  private async rejection(
    requirements: PaymentRequirements,
    charge: Charge,
    reason: string,
    message: string,
  ): Promise<Rejected> {
    return {
      kind: "rejected",
      reason,
      message,
      paymentRequired: await this.paymentRequired(requirements, charge, reason),
    };
  }

  /** Settles a verified payment. Call it once the caller's own record of the payment exists. */
  async settle(payment: SignedPayment): Promise<SettleOutcome> {
    let result: SettleResponse;
    try {
      result = await this.server.settlePayment(payment.payload, payment.requirements);
    } catch (error) {
      if (error instanceof SettleError && error.statusCode < 500) {
        return this.failed({
          success: false,
          errorReason: error.errorReason,
          errorMessage: error.errorMessage,
          transaction: error.transaction ?? "",
          network: payment.requirements.network,
          payer: payment.payer,
        });
      }
      const detail = error instanceof Error ? error.message : String(error);
      if (error instanceof FacilitatorUnavailableError) {
        if (error.broadcast === "none") return { kind: "not_sent", reason: error.kind, detail };
        return { kind: "unconfirmed", reason: error.kind, detail, transaction: "" };
      }
      return { kind: "unconfirmed", reason: "bad_response", detail, transaction: "" };
    }
    if (result.success) {
      const { transaction, network, payer } = result;
      return {
        kind: "settled",
        transaction,
        paymentResponse: encodePaymentResponseHeader({ success: true, transaction, network, payer }),
      };
    }
    if (result.errorReason === "settlement_pending") {
      return {
        kind: "unconfirmed",
        reason: "settlement_pending",
        detail: result.errorMessage ?? "the settlement was broadcast but not confirmed in time",
        transaction: result.transaction,
      };
    }
    return this.failed(result);
  }

  /** The header carries the named reason and the transaction only, never the facilitator's message. */
  private failed(result: SettleResponse): SettleOutcome {
    const reason = result.errorReason || "settlement_failed";
    const { transaction, network, payer } = result;
    return {
      kind: "failed",
      reason,
      detail: result.errorMessage || reason,
      transaction,
      paymentResponse: encodePaymentResponseHeader({
        success: false,
        errorReason: reason,
        transaction,
        network,
        payer,
      }),
    };
  }
}

/**
 * The request the bazaar enrichment sees: the route's declared method and the resource's path, so the
 * declaration names the method the route is called with (a HEAD or the challenge document asks too).
 */
function requestContextOf(charge: Charge, discovery: RouteDiscovery): HTTPRequestContext {
  const url = new URL(charge.resource.url);
  const adapter: HTTPAdapter = {
    getHeader: () => undefined,
    getMethod: () => discovery.method,
    getPath: () => url.pathname,
    getUrl: () => url.href,
    getAcceptHeader: () => "application/json",
    getUserAgent: () => "",
  };
  return { adapter, path: url.pathname, method: discovery.method };
}

export function paymentRequiredHeader(paymentRequired: PaymentRequired): string {
  return encodeBase64Json(paymentRequired);
}

/**
 * A `PAYMENT-RESPONSE` header from our own record of a settlement: the named reason and the
 * transaction hash only, never a facilitator's or a node's message.
 */
export function paymentResponseHeader(settlement: {
  success: boolean;
  errorReason?: string;
  transaction: string;
  network: string;
  payer: string;
}): string {
  return encodePaymentResponseHeader({ ...settlement, network: settlement.network as Network });
}
