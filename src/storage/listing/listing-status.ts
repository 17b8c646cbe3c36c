// Why a listing is where it is: one status (a state a seller or buyer can act on) and every reason
// that applies, each a stable code with words and the evidence behind it. GET /listings/{id}/status,
// the listing document, the change log's events and their webhooks all say it this way.
import type { Listing } from "../../../generated/prisma/sqlite/client.js";
import { DAY_MS } from "../../constants.js";
import type { ListingEventDraft, ListingEventType, ListingReason } from "../listing-types.js";

/** What a listing's status can be, most pressing first when several apply. */
export const LISTING_STATUSES = [
  "pending",
  "failed",
  "delisted",
  "expired",
  "drifted",
  "unhealthy",
  "expiring",
  "live",
] as const;
export type ListingStatusName = (typeof LISTING_STATUSES)[number];

/** Every reason code, with what it means. The contract lists the same codes (spec/models/events.tsp). */
export const REASON_CODES = {
  payment_pending: "The listing fee's settlement is not confirmed on chain yet; the listing is not shown.",
  payment_failed: "The listing fee did not settle; the listing is not shown and nothing was charged.",
  delisted_by_owner: "Its owner (sellerPayTo) withdrew it with a signed request; it is hidden everywhere.",
  term_ended: "Its paid term ended; pay the listing fee again to renew it.",
  expiring_soon: "Its paid term ends within 7 days; pay the listing fee again to renew it.",
  terms_drifted: "The seller's own 402 no longer matches what was listed (payTo, asset or price).",
  probe_failing: "The seller's endpoint failed consecutive probes; the listing is marked unhealthy.",
  probe_passing: "The last probe of the seller's endpoint answered the listed 402.",
  not_reprobed_yet: "Listed after a passing probe; the health prober has not probed it again yet.",
  owner_verified: "The fee was paid by the listing's sellerPayTo, or its owner signed a claim.",
  awaiting_probe_confirmation:
    "Read from another catalog or domain; not shown until this marketplace's own probe finds its 402 matching.",
  indexed_not_listed:
    "Read from another catalog or domain and confirmed by this marketplace's probe; not a paid listing (shown with source=indexed or all).",
} as const;
export type ReasonCode = keyof typeof REASON_CODES;

export const EXPIRING_WITHIN_MS = 7 * DAY_MS;

export interface ListingStatus {
  state: ListingStatusName;
  reasons: ListingReason[];
}

const reason = (code: ReasonCode, evidence?: Record<string, unknown>): ListingReason => ({
  code,
  message: REASON_CODES[code],
  ...(evidence && { evidence }),
});

type StatusFields = Pick<
  Listing,
  "state" | "expiresAt" | "delistedAt" | "healthStatus" | "healthSummary" | "ownerVerified"
> &
  Partial<Pick<Listing, "indexedSource">>;

/** The listing's status at `now`, from its row alone. */
export function listingStatus(listing: StatusFields, now: Date): ListingStatus {
  const expiresAt = listing.expiresAt.toISOString();
  if (listing.state === "pending") return { state: "pending", reasons: [reason("payment_pending")] };
  if (listing.state === "failed") return { state: "failed", reasons: [reason("payment_failed")] };
  if (listing.state === "delisted")
    return {
      state: "delisted",
      reasons: [reason("delisted_by_owner", { delistedAt: listing.delistedAt?.toISOString() ?? null })],
    };
  if (listing.expiresAt.getTime() <= now.getTime())
    return { state: "expired", reasons: [reason("term_ended", { expiresAt })] };
  const source = { source: listing.indexedSource ?? null };
  if (listing.state === "indexing")
    return { state: "pending", reasons: [reason("awaiting_probe_confirmation", source)] };
  const health = healthEvidence(listing.healthSummary);
  const reasons: ListingReason[] = [];
  let state: ListingStatusName = "live";
  if (listing.healthStatus === "drifted") {
    state = "drifted";
    reasons.push(reason("terms_drifted", health));
  } else if (listing.healthStatus === "unhealthy") {
    state = "unhealthy";
    reasons.push(reason("probe_failing", health));
  } else if (listing.healthStatus === "healthy") {
    reasons.push(reason("probe_passing", health));
  } else {
    reasons.push(reason("not_reprobed_yet"));
  }
  if (listing.state === "indexed") reasons.push(reason("indexed_not_listed", source));
  // An indexed row's expiry is a week past its last sighting, not a paid term: no renewal warning.
  else if (listing.expiresAt.getTime() - now.getTime() <= EXPIRING_WITHIN_MS) {
    if (state === "live") state = "expiring";
    reasons.push(reason("expiring_soon", { expiresAt }));
  }
  if (listing.ownerVerified) reasons.push(reason("owner_verified"));
  return { state, reasons };
}

/** What the last probes showed (the published health summary): when, and the failure code if any. */
function healthEvidence(summary: unknown): Record<string, unknown> | undefined {
  if (!summary || typeof summary !== "object") return undefined;
  const { lastCheckedAt, lastHealthyAt, failureCode } = summary as Record<string, unknown>;
  const evidence = Object.fromEntries(
    Object.entries({ lastCheckedAt, lastHealthyAt, failureCode }).filter(([, value]) => value !== undefined),
  );
  return Object.keys(evidence).length > 0 ? evidence : undefined;
}

/** A change to record with the write that made it: the listing's status after it, and what changed. */
export function listingEvent(
  listing: StatusFields & Pick<Listing, "id" | "sellerPayTo">,
  type: ListingEventType,
  now: Date,
  data?: Record<string, unknown>,
): ListingEventDraft {
  return {
    listingId: listing.id,
    sellerPayTo: listing.sellerPayTo,
    type,
    status: listingStatus(listing, now),
    ...(data && { data }),
  };
}

const TERMS = ["description", "method", "priceUsdc", "network", "serviceName"] as const;

/** The listed terms that differ between two versions of a listing, as { field: { from, to } }. */
export function termChanges(
  before: Pick<Listing, (typeof TERMS)[number]>,
  after: Pick<Listing, (typeof TERMS)[number]>,
): Record<string, { from: unknown; to: unknown }> {
  return Object.fromEntries(
    TERMS.filter((field) => before[field] !== after[field]).map((field) => [
      field,
      { from: before[field], to: after[field] },
    ]),
  );
}
