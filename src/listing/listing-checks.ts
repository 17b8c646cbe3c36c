// The checks of a listing body, shared by the paid route and the dry run: each one named, with
// ok and a reason. The contract has already refused bodies that break the schema (400).
import { getAddress, isAddress, zeroAddress } from "viem";
import type { components } from "../../generated/openapi.js";
import type { FieldError } from "../http/errors.js";
import type { ProbeAttempt } from "../probe/seller-probe.js";
import { normalizePrice, type ListingInput } from "../storage/listing-store.js";

export type ListingRequest = components["schemas"]["ListingRequest"];
export type ValidationReport = components["schemas"]["ValidationReport"];
export type ListingCheck = components["schemas"]["ValidationCheck"];

export const LISTING_NETWORK = "eip155:8453";

/** The body field each check is about, for 400 field errors on the paid route. */
const FIELD_OF: Record<string, string> = {
  network: "/network",
  price: "/priceUsdc",
  description: "/description",
  sellerPayTo: "/sellerPayTo",
  resource: "/resource",
};

const pass = (name: string, reason: string): ListingCheck => ({ name, ok: true, reason });
const fail = (name: string, code: string, reason: string): ListingCheck => ({ name, ok: false, code, reason });

function checkPrice(priceUsdc: string): { check: ListingCheck; priceAtomic: string | null } {
  let atomic: string;
  try {
    atomic = normalizePrice(priceUsdc).priceAtomic;
  } catch {
    return { check: fail("price", "price_malformed", `priceUsdc ${JSON.stringify(priceUsdc)} is not a decimal with at most 6 decimals`), priceAtomic: null };
  }
  if (BigInt(atomic) === 0n) return { check: fail("price", "price_not_positive", "priceUsdc must be above zero"), priceAtomic: null };
  return { check: pass("price", `${priceUsdc} is ${atomic} atomic units (6 decimals)`), priceAtomic: atomic };
}

function checkSellerPayTo(sellerPayTo: string): ListingCheck {
  if (!isAddress(sellerPayTo, { strict: true })) {
    return fail("sellerPayTo", "bad_checksum", `${sellerPayTo} mixes upper and lower case but is not a valid EIP-55 checksum (a typo?); send it all lower case or correctly checksummed`);
  }
  if (getAddress(sellerPayTo) === zeroAddress) return fail("sellerPayTo", "zero_address", "sellerPayTo is the zero address, which nobody can spend from");
  return pass("sellerPayTo", `sales settle to ${getAddress(sellerPayTo)}`);
}

function checkResource(resource: string): ListingCheck {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return fail("resource", "invalid_url", `${JSON.stringify(resource)} is not an absolute URL`);
  }
  if (url.protocol !== "https:") return fail("resource", "not_https", "the resource must be an https URL");
  if (url.username || url.password) return fail("resource", "credentials_in_url", "the resource URL must not carry a user name or password");
  if (url.hash) return fail("resource", "fragment_in_url", "the resource URL must not carry a #fragment (it is never sent to the seller)");
  return pass("resource", `${url.href} is a well-formed https URL`);
}

export interface CheckedBody {
  checks: ListingCheck[];
  /** The listing as the store takes it; null when a check failed. */
  listing: ListingInput | null;
  priceAtomic: string | null;
}

/** Every check that needs no network. */
export function checkListingBody(body: ListingRequest): CheckedBody {
  const network = body.network ?? LISTING_NETWORK;
  const price = checkPrice(body.priceUsdc);
  const checks = [
    pass("schema", "the body matches the listing schema (GET /listings/schema)"),
    network === LISTING_NETWORK ? pass("network", `${network} (Base)`) : fail("network", "unsupported_network", `only ${LISTING_NETWORK} is supported, not ${network}`),
    price.check,
    body.description.trim().length >= 8
      ? pass("description", `${body.description.trim().length} characters`)
      : fail("description", "description_blank", "description needs at least 8 characters besides spaces"),
    checkSellerPayTo(body.sellerPayTo),
    checkResource(body.resource),
  ];
  const listing: ListingInput | null = checks.every((check) => check.ok)
    ? {
        resource: body.resource,
        method: body.method ?? "POST",
        priceUsdc: body.priceUsdc,
        description: body.description,
        sellerPayTo: body.sellerPayTo,
        inputSchema: (body.inputSchema as ListingInput["inputSchema"]) ?? null,
        network,
      }
    : null;
  return { checks, listing, priceAtomic: price.priceAtomic };
}

/** The seller probe as a check; a rate-limited attempt is not a check result (the caller answers 429). */
export function probeCheck(attempt: Exclude<ProbeAttempt, { code: "rate_limited" }>): ListingCheck {
  return attempt.ok ? pass("seller-probe", attempt.detail) : fail("seller-probe", attempt.code, attempt.detail);
}

export function skippedProbe(reason: string): ListingCheck {
  return fail("seller-probe", "skipped", reason);
}

export function reportOf(checks: ListingCheck[]): ValidationReport {
  return { ok: checks.every((check) => check.ok), charged: false, saved: false, checks };
}

/** Failed checks as field errors (the paid route answers 400 before asking for payment). */
export function fieldErrorsOf(checks: ListingCheck[]): FieldError[] {
  return checks
    .filter((check) => !check.ok)
    .map((check) => ({ in: "body" as const, field: FIELD_OF[check.name] ?? "", message: check.reason ?? check.code ?? "is invalid" }));
}
