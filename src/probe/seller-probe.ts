// The seller probe: an unpaid request to a listed resource must be answered 402 with an x402 v2
// challenge that has an `exact` requirement on Base paying the seller the listed price in our token.
// It is SSRF-safe (see address-policy.ts and pinned-request.ts) and rate-limited, since
// validation is free.
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { ProbeConfig } from "../config.js";
import { defaultResolver, resolveDestination, type Destination, type Resolver } from "./destination.js";
import { pinnedRequest, type PinnedResponse } from "./pinned-request.js";
import { readSellerMetadata, withoutResourceMetadata, type ReadMetadata } from "./seller-metadata.js";
import { metrics, secondsSince } from "../metrics.js";
import { memoryProbeLimits, type ProbeLimits } from "./rate-limiter.js";

export interface ProbeTarget {
  resource: string;
  method: "GET" | "POST";
  /** The listed price in atomic units; null when the price itself is invalid (then not compared). */
  priceAtomic: string | null;
  /** The seller's address; null when the probe is to learn it (the index crawler reading a manifest's bare URL). */
  sellerPayTo: string | null;
}

/** What every accepted challenge must name besides the seller: our network and token. */
export interface ProbeExpectations {
  network: string;
  asset: string;
}

export type ProbeFailureCode =
  | "invalid_url"
  | "not_https"
  | "host_unresolvable"
  | "address_not_allowed"
  | "unreachable"
  | "tls_error"
  | "timeout"
  | "redirect"
  | "not_402"
  | "no_challenge"
  | "x402_v1_challenge"
  | "malformed_challenge"
  | "no_exact_base_requirement"
  | "pay_to_mismatch"
  | "asset_mismatch"
  | "price_mismatch";

export type ProbeResult =
  | { ok: true; detail: string; requirement: PaymentRequirements; metadata: ReadMetadata }
  | { ok: false; code: ProbeFailureCode; detail: string };

export type ProbeAttempt =
  | ProbeResult
  | { ok: false; code: "rate_limited"; scope: "client" | "host"; retryAfterSeconds: number; detail: string };

export type { Resolver };

const USER_AGENT = "x402-marketplace-probe/1 (+seller listing check)";
const fail = (code: ProbeFailureCode, detail: string): Extract<ProbeResult, { ok: false }> => ({
  ok: false,
  code,
  detail,
});
const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Counts a probe's outcome (x402_seller_probes_total): ok, its failure code, or rate_limited; each probe once. */
function counted<T extends ProbeAttempt>(attempt: T): T {
  metrics.probes.inc({ outcome: attempt.ok ? "ok" : attempt.code });
  return attempt;
}

export class SellerProbe {
  private readonly limits: ProbeLimits;

  constructor(
    private readonly config: ProbeConfig,
    private readonly expected: ProbeExpectations,
    private readonly resolve: Resolver = defaultResolver,
    /** Per instance in memory unless given (shared through Redis: rate-limiter.ts createProbeLimits). */
    limits?: ProbeLimits,
  ) {
    this.limits = limits ?? memoryProbeLimits(config);
  }

  /** Seconds until `clientIp` may have a probe again (0: now); takes nothing. */
  clientWait(clientIp: string): Promise<number> {
    return this.limits.perClient.wait(clientIp);
  }

  /** Probes `target` on behalf of `clientIp`, within the per-client and per-host rate limits. */
  async probe(target: ProbeTarget, clientIp: string): Promise<ProbeAttempt> {
    let url: URL;
    try {
      url = new URL(target.resource);
    } catch {
      return counted(fail("invalid_url", `${JSON.stringify(target.resource)} is not an absolute URL`));
    }
    if (url.protocol !== "https:" && !(url.protocol === "http:" && this.config.allowLoopbackSellers)) {
      return counted(fail("not_https", `the resource must be https, not ${url.protocol.replace(":", "")}`));
    }
    const host = url.hostname.toLowerCase();
    const clientWait = await this.limits.perClient.take(clientIp);
    if (clientWait > 0)
      return counted({
        ok: false,
        code: "rate_limited",
        scope: "client",
        retryAfterSeconds: clientWait,
        detail: `too many probes from ${clientIp}; retry in ${clientWait} s`,
      });
    const hostWait = await this.limits.perHost.take(host);
    if (hostWait > 0) {
      await this.limits.perClient.refund(clientIp);
      return counted({
        ok: false,
        code: "rate_limited",
        scope: "host",
        retryAfterSeconds: hostWait,
        detail: `too many probes of ${host}; retry in ${hostWait} s`,
      });
    }
    return this.probeUrl(url, target);
  }

  /**
   * The scheduled re-probe of a listing (src/health/): the same checks and SSRF defences, without the
   * per-client and per-host token buckets (the re-prober keeps its own per-host politeness).
   */
  check(target: ProbeTarget): Promise<ProbeResult> {
    let url: URL;
    try {
      url = new URL(target.resource);
    } catch {
      return Promise.resolve(fail("invalid_url", `${JSON.stringify(target.resource)} is not an absolute URL`));
    }
    if (url.protocol !== "https:" && !(url.protocol === "http:" && this.config.allowLoopbackSellers)) {
      return Promise.resolve(fail("not_https", `the resource must be https, not ${url.protocol.replace(":", "")}`));
    }
    return this.probeUrl(url, target);
  }

  /** Every probe that goes out passes here (a scheduled re-probe too): counted and timed by outcome. */
  private async probeUrl(url: URL, target: ProbeTarget): Promise<ProbeResult> {
    const started = process.hrtime.bigint();
    const result = counted(await this.probeUrlUntimed(url, target));
    metrics.probeDuration.observe({ outcome: result.ok ? "ok" : result.code }, secondsSince(started));
    return result;
  }

  private async probeUrlUntimed(url: URL, target: ProbeTarget): Promise<ProbeResult> {
    const destination = await this.destination(url);
    if ("code" in destination) return destination;
    if (url.protocol === "http:" && destination.range !== "loopback") {
      return fail("not_https", "the resource must be https (plain http is allowed for loopback test sellers only)");
    }
    const response = await pinnedRequest({
      url,
      method: target.method,
      address: destination.address,
      family: destination.family,
      timeoutMs: this.config.timeoutMs,
      maxBytes: this.config.maxResponseBytes,
      insecureTls: destination.range === "loopback",
      userAgent: USER_AGENT,
    });
    const where = `${target.method} ${url.href}`;
    if (!response.ok) return fail(response.reason, `${where}: ${response.detail}`);
    if (response.status >= 300 && response.status < 400) {
      return fail(
        "redirect",
        `${where} answered ${response.status} to ${response.headers.location ?? "(no Location)"}; redirects are not followed: list the final URL`,
      );
    }
    if (response.status !== 402) {
      return fail(
        "not_402",
        `${where} answered ${response.status} without payment; an x402 endpoint must answer 402 with a payment challenge`,
      );
    }
    const challenge = readChallenge(response);
    if ("code" in challenge) return fail(challenge.code, `${where}: ${challenge.detail}`);
    const matched = this.matchRequirement(challenge.paymentRequired, target);
    return matched.ok ? { ...matched, metadata: challenge.metadata } : matched;
  }

  /** Resolves the host and judges every address it has: one refused address refuses the host. */
  private async destination(url: URL): Promise<Destination | Extract<ProbeResult, { ok: false }>> {
    const found = await resolveDestination(url, {
      resolve: this.resolve,
      timeoutMs: this.config.timeoutMs,
      allowLoopback: this.config.allowLoopbackSellers,
      allowedWhat: "probed",
    });
    return "code" in found ? fail(found.code, found.detail) : found;
  }

  private matchRequirement(
    challenge: PaymentRequired,
    target: ProbeTarget,
  ): Omit<Extract<ProbeResult, { ok: true }>, "metadata"> | Extract<ProbeResult, { ok: false }> {
    const offered = challenge.accepts
      .map((requirement) => `${requirement.scheme} on ${requirement.network}`)
      .join(", ");
    const candidates = challenge.accepts.filter(
      (requirement) => requirement.scheme === "exact" && requirement.network === this.expected.network,
    );
    if (candidates.length === 0) {
      return fail(
        "no_exact_base_requirement",
        `the challenge offers ${offered || "nothing"}; it needs an exact requirement on ${this.expected.network}`,
      );
    }
    const judged = candidates.map((requirement) => ({ requirement, mismatches: this.mismatches(requirement, target) }));
    const match = judged.find(({ mismatches }) => mismatches.length === 0);
    if (match) {
      return {
        ok: true,
        detail: `402 with an exact ${this.expected.network} requirement paying ${match.requirement.payTo} ${match.requirement.amount} atomic units of ${match.requirement.asset}`,
        requirement: match.requirement,
      };
    }
    const { mismatches } = judged[0]!;
    return fail(mismatches[0]!.code, mismatches.map(({ detail }) => detail).join("; "));
  }

  private mismatches(
    requirement: PaymentRequirements,
    target: ProbeTarget,
  ): Array<{ code: ProbeFailureCode; detail: string }> {
    const found: Array<{ code: ProbeFailureCode; detail: string }> = [];
    if (target.sellerPayTo !== null && !sameAddress(requirement.payTo, target.sellerPayTo)) {
      found.push({
        code: "pay_to_mismatch",
        detail: `payTo is ${requirement.payTo}, but sellerPayTo is ${target.sellerPayTo}`,
      });
    }
    if (!sameAddress(requirement.asset, this.expected.asset)) {
      found.push({
        code: "asset_mismatch",
        detail: `asset is ${requirement.asset}; this marketplace lists payments in ${this.expected.asset}`,
      });
    }
    if (target.priceAtomic !== null && requirement.amount !== target.priceAtomic) {
      found.push({
        code: "price_mismatch",
        detail: `amount is ${requirement.amount}, but priceUsdc is ${target.priceAtomic} in atomic units (6 decimals)`,
      });
    }
    return found;
  }
}

type ReadChallenge =
  { paymentRequired: PaymentRequired; metadata: ReadMetadata } | { code: ProbeFailureCode; detail: string };

/** The x402 challenge of a 402 (the PAYMENT-REQUIRED header, or an x402 v2 JSON body) and the service metadata it declares. */
export function readChallenge(response: Extract<PinnedResponse, { ok: true }>): ReadChallenge {
  const header = response.headers["payment-required"];
  if (typeof header === "string" && header !== "") {
    let decoded: unknown;
    try {
      decoded = decodePaymentRequiredHeader(header);
    } catch {
      return { code: "malformed_challenge", detail: "the PAYMENT-REQUIRED header is not base64-encoded JSON" };
    }
    return parseChallenge(decoded, "the PAYMENT-REQUIRED header");
  }
  if (response.truncated) {
    return {
      code: "no_challenge",
      detail: `402 without a PAYMENT-REQUIRED header, and a body longer than the ${response.body.length} bytes the probe reads`,
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString("utf8"));
  } catch {
    return {
      code: "no_challenge",
      detail: "402 without a PAYMENT-REQUIRED header or a JSON body carrying an x402 challenge",
    };
  }
  return parseChallenge(body, "the 402 body");
}

function parseChallenge(value: unknown, where: string): ReadChallenge {
  const version = (value as { x402Version?: unknown } | null)?.x402Version;
  if (version === 1)
    return { code: "x402_v1_challenge", detail: `${where} is an x402 v1 challenge; x402 v2 is required` };
  // Bad metadata is dropped by its own rules (seller-metadata.ts), never a reason to refuse the challenge.
  const parsed = PaymentRequiredV2Schema.safeParse(withoutResourceMetadata(value));
  if (parsed.success) return { paymentRequired: parsed.data as PaymentRequired, metadata: readSellerMetadata(value) };
  if (version === undefined)
    return { code: "no_challenge", detail: `${where} carries no x402 challenge (no x402Version)` };
  const issue = parsed.error.issues[0];
  return {
    code: "malformed_challenge",
    detail: `${where} is not a valid x402 v2 challenge: ${issue ? `${issue.path.join(".") || "value"} ${issue.message}` : "malformed"}`,
  };
}
