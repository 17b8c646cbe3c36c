// The checks of a listing body, shared by the paid route and the dry run: each one named, with
// ok and a reason. The contract has already refused bodies that break the schema (400).
import { getAddress, isAddress, zeroAddress } from "viem";
import type { components } from "../../generated/openapi.js";
import { HttpError, type FieldError } from "../contract/errors.js";
import type { ProbeAttempt, ProbeResult } from "../probe/seller-probe.js";
import { describeMetadata } from "../probe/seller-metadata.js";
import { normalizePrice, type ListingInput } from "../storage/listing/listing-store.js";
import { NETWORK } from "../constants.js";

export type ListingRequest = components["schemas"]["ListingRequest"];
export type ValidationReport = components["schemas"]["ValidationReport"];
export type ListingCheck = components["schemas"]["ValidationCheck"];

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
    return {
      check: fail(
        "price",
        "price_malformed",
        `priceUsdc ${JSON.stringify(priceUsdc)} is not a decimal with at most 6 decimals`,
      ),
      priceAtomic: null,
    };
  }
  if (BigInt(atomic) === 0n)
    return { check: fail("price", "price_not_positive", "priceUsdc must be above zero"), priceAtomic: null };
  return { check: pass("price", `${priceUsdc} is ${atomic} atomic units (6 decimals)`), priceAtomic: atomic };
}

function checkSellerPayTo(sellerPayTo: string): ListingCheck {
  if (!isAddress(sellerPayTo, { strict: true })) {
    return fail(
      "sellerPayTo",
      "bad_checksum",
      `${sellerPayTo} mixes upper and lower case but is not a valid EIP-55 checksum (a typo?); send it all lower case or correctly checksummed`,
    );
  }
  if (getAddress(sellerPayTo) === zeroAddress)
    return fail("sellerPayTo", "zero_address", "sellerPayTo is the zero address, which nobody can spend from");
  return pass("sellerPayTo", `sales settle to ${getAddress(sellerPayTo)}`);
}

/**
 * The resource as it is listed: the WHATWG serialisation (`URL.href`), which is what any HTTP
 * client sends on the wire anyway. `<`, `"`, spaces and control characters in the path or query come
 * out percent-encoded, so every document, feed and search shows the URL a buyer will really call,
 * and two spellings of one endpoint are one listing.
 */
function checkResource(resource: string): { check: ListingCheck; listed: string | null } {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return {
      check: fail("resource", "invalid_url", `${JSON.stringify(resource)} is not an absolute URL`),
      listed: null,
    };
  }
  if (url.protocol !== "https:")
    return { check: fail("resource", "not_https", "the resource must be an https URL"), listed: null };
  if (url.username || url.password)
    return {
      check: fail("resource", "credentials_in_url", "the resource URL must not carry a user name or password"),
      listed: null,
    };
  if (url.hash)
    return {
      check: fail(
        "resource",
        "fragment_in_url",
        "the resource URL must not carry a #fragment (it is never sent to the seller)",
      ),
      listed: null,
    };
  const normalised = url.href === resource ? "" : " (listed in this normalised form)";
  return { check: pass("resource", `${url.href} is a well-formed https URL${normalised}`), listed: url.href };
}

/** How deep and how large a seller's inputSchema may be: real schemas are a few levels and a few KiB. */
export const INPUT_SCHEMA_MAX_DEPTH = 32;
export const INPUT_SCHEMA_MAX_BYTES = 16 * 1024;

// Tab and line feed may format a description; every other C0 control and DEL has no use in it, and
// NUL cannot be stored (PostgreSQL text) nor carried by XML feeds.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const DESCRIPTION_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F]/u;

/** In a `u` regular expression a surrogate pair is one code point: this matches only unpaired halves. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

function descriptionProblem(description: string): string | null {
  const control = DESCRIPTION_CONTROL.exec(description);
  if (control)
    return `must not contain control characters other than tab and line feed (found ${codePoint(control[0])})`;
  if (UNPAIRED_SURROGATE.test(description)) return "must be well-formed Unicode (it has an unpaired surrogate)";
  return null;
}

/** A string PostgreSQL's jsonb refuses: NUL, or an unpaired surrogate (sent as a `\ud800` escape). */
function unstorableText(text: string): boolean {
  return text.includes("\u0000") || UNPAIRED_SURROGATE.test(text);
}

/** Walks the schema without recursion, so no nesting can exhaust the stack here. */
function inputSchemaProblem(schema: unknown): string | null {
  const pending: Array<{ value: unknown; depth: number; at: string }> = [{ value: schema, depth: 1, at: "" }];
  while (pending.length > 0) {
    const { value, depth, at } = pending.pop()!;
    if (typeof value === "string") {
      if (unstorableText(value))
        return `has a NUL character or an unpaired surrogate at ${at || "/"}, which cannot be stored`;
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth > INPUT_SCHEMA_MAX_DEPTH) return `nests deeper than ${INPUT_SCHEMA_MAX_DEPTH} levels`;
    for (const [key, child] of Object.entries(value)) {
      if (unstorableText(key))
        return `has a NUL character or an unpaired surrogate in a key under ${at || "/"}, which cannot be stored`;
      pending.push({ value: child, depth: depth + 1, at: `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}` });
    }
  }
  // Measured only once the depth is known to be small: JSON.stringify recurses.
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > INPUT_SCHEMA_MAX_BYTES)
    return `is ${bytes} bytes as JSON; at most ${INPUT_SCHEMA_MAX_BYTES} are accepted`;
  return null;
}

/**
 * What the contract cannot say about a body and no storage may receive: a 400 on the dry run and the
 * paid route alike, before any probe or payment. (A schema nested 3,000 deep used to pass the dry run
 * and then overflow the stack in Prisma's query serialiser, which walks JSON values recursively:
 * the paid route answered 503 storage_unavailable.)
 */
function refuseUnstorable(body: ListingRequest): void {
  const fields: FieldError[] = [];
  const description = descriptionProblem(body.description);
  if (description) fields.push({ in: "body", field: "/description", message: description });
  const inputSchema = body.inputSchema === undefined ? null : inputSchemaProblem(body.inputSchema);
  if (inputSchema) fields.push({ in: "body", field: "/inputSchema", message: inputSchema });
  if (fields.length === 0) return;
  const summary = fields.map((field) => `${field.field} ${field.message}`).join("; ");
  throw new HttpError(
    400,
    "invalid_listing",
    `Invalid listing: ${summary}. Nothing was charged and nothing was saved.`,
    fields,
  );
}

export interface CheckedBody {
  checks: ListingCheck[];
  /** The listing as the store takes it; null when a check failed. */
  listing: ListingInput | null;
  priceAtomic: string | null;
}

/** Every check that needs no network. Throws a 400 HttpError for a body no storage may receive. */
export function checkListingBody(body: ListingRequest): CheckedBody {
  refuseUnstorable(body);
  const network = body.network ?? NETWORK;
  const price = checkPrice(body.priceUsdc);
  const resource = checkResource(body.resource);
  const checks = [
    pass("schema", "the body matches the listing schema (GET /listings/schema)"),
    network === NETWORK
      ? pass("network", `${network} (Base)`)
      : fail("network", "unsupported_network", `only ${NETWORK} is supported, not ${network}`),
    price.check,
    body.description.trim().length >= 8
      ? pass("description", `${body.description.trim().length} characters`)
      : fail("description", "description_blank", "description needs at least 8 characters besides spaces"),
    checkSellerPayTo(body.sellerPayTo),
    resource.check,
  ];
  const listing: ListingInput | null =
    checks.every((check) => check.ok) && resource.listed
      ? {
          resource: resource.listed,
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

/**
 * The seller probe as a check; a rate-limited attempt is not a check result (the caller answers 429).
 * A passed probe's reason also says which service metadata would be stored and which was dropped.
 */
export function probeCheck(attempt: Exclude<ProbeAttempt, { code: "rate_limited" }>): ListingCheck {
  return attempt.ok
    ? pass("seller-probe", `${attempt.detail}; ${describeMetadata(attempt.metadata)}`)
    : fail("seller-probe", attempt.code, attempt.detail);
}

/** The listing with the service metadata its seller's 402 declares (sanitised by the probe). */
export function withSellerMetadata(listing: ListingInput, probed: Extract<ProbeResult, { ok: true }>): ListingInput {
  const { metadata } = probed.metadata;
  return Object.keys(metadata).length > 0 ? { ...listing, metadata } : listing;
}

export function skippedProbe(reason: string): ListingCheck {
  return fail("seller-probe", "skipped", reason);
}

export function reportOf(checks: ListingCheck[]): ValidationReport {
  const failed = checks.filter((check) => !check.ok);
  if (failed.length === 0) return { ok: true, charged: false, saved: false, checks };
  const summary = failed.map((check) => `${check.name}: ${check.code ?? "failed"}`).join("; ");
  return {
    ok: false,
    charged: false,
    saved: false,
    checks,
    error: "listing_checks_failed",
    message: `The listing failed ${failed.length === 1 ? "a check" : `${failed.length} checks`} (${summary}). Nothing was charged or saved.`,
  };
}

/** Failed checks as field errors (the paid route answers 400 before asking for payment). */
export function fieldErrorsOf(checks: ListingCheck[]): FieldError[] {
  return checks
    .filter((check) => !check.ok)
    .map((check) => ({
      in: "body" as const,
      field: FIELD_OF[check.name] ?? "",
      message: check.reason ?? check.code ?? "is invalid",
    }));
}
