// POST /listings/validate: every check of the paid route except payment and saving; and its guide.
import type { MarketFacts } from "../market/facts.js";
import { exampleListing, listingRequestSchema } from "../documents/listing-request.js";
import type { Reply } from "../contract/typed-handlers.js";
import type { SellerProbe } from "../probe/seller-probe.js";
import {
  checkListingBody,
  probeCheck,
  reportOf,
  skippedProbe,
  type ListingCheck,
  type ListingRequest,
} from "./listing-checks.js";
import { linkTo } from "../market/links.js";

export async function dryRunListing(
  body: ListingRequest,
  clientIp: string,
  probe: SellerProbe,
): Promise<Reply<"validateListing">> {
  const checked = checkListingBody(body);
  let sellerProbe: ListingCheck;
  if (!checked.checks.find((check) => check.name === "resource")?.ok) {
    sellerProbe = skippedProbe("not run: the resource URL failed its own check");
  } else {
    const attempt = await probe.probe(
      // The resource as it would be listed (its normalised form), exactly as the paid route probes it.
      {
        resource: checked.listing?.resource ?? body.resource,
        method: body.method ?? "POST",
        priceAtomic: checked.priceAtomic,
        sellerPayTo: body.sellerPayTo,
      },
      clientIp,
    );
    if (!attempt.ok && attempt.code === "rate_limited") {
      return {
        status: 429,
        headers: { "Retry-After": String(attempt.retryAfterSeconds) },
        body: { error: "rate_limited", message: attempt.detail },
      };
    }
    sellerProbe = probeCheck(attempt);
  }
  const report = reportOf([...checked.checks, sellerProbe]);
  return report.ok ? { status: 200, body: report } : { status: 422, body: report };
}

/** GET /listings/validate: how to call the dry run. */
export function validationGuide(market: MarketFacts): Record<string, unknown> {
  const url = linkTo(market, "validate");
  const example = exampleListing(market);
  return {
    name: "Listing dry run",
    description:
      "POST a listing body here to run every check of the paid POST /listings except payment and saving. Nothing is charged and nothing is saved.",
    method: "POST",
    url,
    contentType: "application/json",
    schema: listingRequestSchema(),
    example,
    curl: `curl -sS -X POST ${url} -H 'content-type: application/json' -d '${JSON.stringify(example)}'`,
    checks: [
      {
        name: "schema",
        what: "the body matches the listing schema (unknown fields, types, lengths, patterns); a failure is a 400 with field errors",
      },
      { name: "network", what: `the network is ${market.network}` },
      { name: "price", what: "priceUsdc is above zero, with at most 6 decimals" },
      { name: "description", what: "at least 8 characters besides spaces" },
      { name: "sellerPayTo", what: "a valid address (EIP-55 checksum when mixed case), not the zero address" },
      { name: "resource", what: "an https URL without credentials or fragment" },
      {
        name: "seller-probe",
        what: `an unpaid request with the listing's method to the resource answers 402 with an x402 v2 challenge (PAYMENT-REQUIRED header or JSON body) that has an exact requirement on ${market.network} paying sellerPayTo exactly priceUsdc in ${market.asset}. Public addresses only, no redirects, short timeout.`,
      },
    ],
    responses: {
      "200": "every check passed: the report, ok true",
      "400": "the body breaks the schema: error invalid_request with the offending fields",
      "422": "a later check failed: the report names each check with ok, code and reason",
      "429": "too many probes from this client or of this host; see Retry-After",
    },
    charged: false,
    saved: false,
    next: {
      method: "POST",
      url: linkTo(market, "list"),
      fee: `${market.feeUsdc} (${market.feeAtomic} atomic units) via x402`,
      challenge: linkTo(market, "challenge"),
    },
  };
}
