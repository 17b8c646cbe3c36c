// The facilitator as x402ResourceServer sees it: remote (HTTPFacilitatorClient) or in-process, with
// every transport failure turned into FacilitatorUnavailableError. The SDK passes errors of that
// family through untouched, where it would otherwise turn "fetch failed" into a payment rejection.
import { FacilitatorResponseError, HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/http";
import type { SupportedResponse } from "@x402/core/types";
import { SettleError, VerifyError } from "@x402/core/types";
import { RpcRequestError } from "viem";
import type { Logger } from "../logger.js";
import { NETWORK, X402_VERSION } from "../constants.js";
import { metrics, secondsSince } from "../metrics.js";

export type FacilitatorOperation = "verify" | "settle" | "supported";
export type UnavailableKind = "timeout" | "unreachable" | "bad_response";

/**
 * The facilitator did not give an answer: nothing can be said about the payment. The message
 * carries upstream detail (URLs, transactions) for the log only; it never goes into a reply.
 */
export class FacilitatorUnavailableError extends FacilitatorResponseError {
  constructor(
    readonly operation: FacilitatorOperation,
    readonly kind: UnavailableKind,
    detail: string,
    /** For a settle: whether a broadcast may have happened ("none" only when we know it did not). */
    readonly broadcast: "none" | "maybe" = "maybe",
  ) {
    super(`facilitator ${operation}: ${kind}: ${detail}`);
    this.name = "FacilitatorUnavailableError";
  }
}

/** The one kind this marketplace needs: x402 v2, `exact`, Base. */
export const BASE_EXACT_SUPPORT: SupportedResponse = {
  kinds: [{ x402Version: X402_VERSION, scheme: "exact", network: NETWORK }],
  extensions: [],
  signers: {},
};

/**
 * What kind of no-answer an error is, for a facilitator over HTTP and for the chain node behind an
 * in-process one: a timeout; an answer that was no use (an HTTP status, a JSON-RPC error of the node);
 * or no answer at all.
 */
export function unavailableKindOf(error: unknown): UnavailableKind {
  const name = (error as { name?: string })?.name;
  if (name === "FacilitatorTimeoutError" || name === "TimeoutError") return "timeout";
  if (error instanceof FacilitatorResponseError || error instanceof RpcRequestError) return "bad_response";
  if (name === "HttpRequestError" && (error as { status?: number }).status !== undefined) return "bad_response";
  const message = error instanceof Error ? error.message : String(error);
  if (/failed \(\d{3}\)/.test(message)) return "bad_response";
  return "unreachable";
}

function withTimeout<T>(operation: FacilitatorOperation, timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new FacilitatorUnavailableError(operation, "timeout", `no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

async function guarded<T>(operation: FacilitatorOperation, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  let outcome = "ok";
  try {
    return await withTimeout(operation, timeoutMs, Promise.resolve().then(call));
  } catch (error) {
    if (error instanceof VerifyError || error instanceof SettleError) {
      outcome = "refused";
      throw error;
    }
    outcome = "unavailable";
    if (error instanceof FacilitatorUnavailableError) throw error;
    throw new FacilitatorUnavailableError(
      operation,
      unavailableKindOf(error),
      error instanceof Error ? error.message : String(error),
    );
  } finally {
    metrics.facilitatorDuration.observe({ call: operation, outcome }, secondsSince(started));
  }
}

export interface GuardOptions {
  timeoutMs: number;
  logger: Logger;
  /** Where the facilitator is, for log lines. */
  label: string;
  /** Supported kinds fetched already (at start): answered without asking again. */
  supported?: SupportedResponse;
}

/**
 * Wraps a facilitator: verify and settle are bounded by `timeoutMs` and fail with
 * FacilitatorUnavailableError when no answer came. getSupported falls back to BASE_EXACT_SUPPORT when
 * the facilitator cannot be reached, so the service starts (and challenges) while it is down; the
 * requirements are fully explicit, so the SDK needs nothing else from it. A facilitator that answers
 * without supporting exact on eip155:8453 is refused at start (see {@link supportsBaseExact}).
 */
export function guardFacilitator(
  inner: FacilitatorClient,
  { timeoutMs, logger, label, supported }: GuardOptions,
): FacilitatorClient {
  return {
    verify: (payload, requirements) => guarded("verify", timeoutMs, () => inner.verify(payload, requirements)),
    settle: (payload, requirements) => guarded("settle", timeoutMs, () => inner.settle(payload, requirements)),
    getSupported: async () => {
      if (supported) return supported;
      try {
        return await fetchSupported(inner, timeoutMs);
      } catch (error) {
        logger.warn(
          { facilitator: label, err: (error as Error).message },
          "facilitator unreachable at start; payments answer 502/503 until it is back",
        );
        return BASE_EXACT_SUPPORT;
      }
    },
  };
}

/** The facilitator's supported kinds; FacilitatorUnavailableError when it gives no answer. */
export function fetchSupported(facilitator: FacilitatorClient, timeoutMs: number): Promise<SupportedResponse> {
  return guarded("supported", timeoutMs, () => facilitator.getSupported());
}

export function supportsBaseExact(supported: SupportedResponse): boolean {
  return supported.kinds.some(
    (kind) => kind.x402Version === X402_VERSION && kind.scheme === "exact" && kind.network === NETWORK,
  );
}

export interface RemoteFacilitatorOptions {
  url: string;
  authHeaders: Record<string, string>;
  timeoutMs: number;
}

/** A remote facilitator; the auth headers go with every call (verify, settle, supported). */
export function remoteFacilitator({ url, authHeaders, timeoutMs }: RemoteFacilitatorOptions): FacilitatorClient {
  const hasAuth = Object.keys(authHeaders).length > 0;
  return new HTTPFacilitatorClient({
    url,
    timeoutMs,
    ...(hasAuth && {
      createAuthHeaders: async () => ({ verify: authHeaders, settle: authHeaders, supported: authHeaders }),
    }),
  });
}
