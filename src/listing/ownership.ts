// Self-service by a listing's owner, its sellerPayTo (an externally owned account: EIP-1271 contract
// wallets are not supported). The owner signs EIP-712 typed data (src/listing/owner-typed-data.ts)
// to claim, update or delist a live listing. In order, each refusal changing nothing:
//   404 the listing is not live; 403 wrong_chain (a stated chainId other than 8453);
//   401 deadline_passed; 403 deadline_too_far (more than 10 minutes ahead);
//   403 not_owner (the signature recovers someone else: a stranger, or a field changed after signing);
//   409 nonce_used (also decided inside the change's transaction, so a replay racing on another
//   instance loses there); an update's price or method change then needs a passing probe (422).
// Anyone may refresh a live listing: a probe now, within the per-client probe limit.
import { getAddress, type Hex, type TypedDataDefinition } from "viem";
import type { components } from "../../generated/openapi.js";
import { toCatalogItem } from "../catalog/catalog-item.js";
import { HttpError } from "../contract/errors.js";
import type { MarketFacts } from "../market/facts.js";
import { linkWithParams } from "../market/links.js";
import type { ProbeAttempt, SellerProbe } from "../probe/seller-probe.js";
import { normalizePrice, type Listing } from "../storage/listing/listing-store.js";
import {
  ListingConflictError,
  NonceUsedError,
  type OwnerStore,
  type SpentNonce,
  type StoredChanges,
} from "../storage/listing/owner-store.js";
import { CHAIN_ID } from "../constants.js";
import { WorkBusyError, type WorkPool } from "../workers/pool.js";
import { checkListingBody, fieldErrorsOf, probeCheck, reportOf } from "./listing-checks.js";
import {
  OWNER_DEADLINE_MAX_SECONDS,
  freshAuthorization,
  ownerTypedData,
  type ListingChanges,
  type OwnerAction,
} from "./owner-typed-data.js";

type Schemas = components["schemas"];
export type OwnerActionResult = Schemas["OwnerActionResult"];
export type SigningDocument = Schemas["SigningDocument"];
export type RefreshResult = Schemas["RefreshResult"];
type SignedBody = Schemas["OwnerSignedRequest"];
type UpdateBody = Schemas["ListingUpdateRequest"];

/** A clock difference tolerated between the signer and us on the deadline's upper bound. */
const DEADLINE_SKEW_SECONDS = 60;

const NO_REFUND = "The listing fee is not refunded.";

export interface OwnershipDeps {
  owners: OwnerStore;
  probe: SellerProbe;
  market: MarketFacts;
  /** Where signatures are recovered: a worker pool, off the request thread (src/workers/pool.ts). */
  signatures: Pick<WorkPool, "recoverTypedDataAddress">;
  now(): Date;
}

const SUBMIT = {
  claim: { method: "POST", path: "/listings/{id}/claim" },
  update: { method: "PATCH", path: "/listings/{id}" },
  delist: { method: "DELETE", path: "/listings/{id}" },
} as const;

function notLive(id: string): HttpError {
  return new HttpError(
    404,
    "listing_not_found",
    `No live listing ${id}: it never existed, expired, failed or was delisted. Nothing was changed.`,
  );
}

/** The listing an owner operation acts on; a claim may also take an indexed row (its 402's payTo claims it, issue 28). */
async function liveListing(id: string, deps: OwnershipDeps, action?: OwnerAction): Promise<Listing> {
  const listing = await deps.owners.live(id, deps.now(), action === "claim");
  if (!listing) throw notLive(id);
  return listing;
}

/** The changes an update body asks for, exactly as signed. */
function changesOf(body: UpdateBody): ListingChanges {
  const changes: ListingChanges = {};
  if (body.description !== undefined) changes.description = body.description;
  if (body.method !== undefined) changes.method = body.method;
  if (body.inputSchema !== undefined) changes.inputSchema = body.inputSchema as ListingChanges["inputSchema"];
  if (body.priceUsdc !== undefined) changes.priceUsdc = body.priceUsdc;
  return changes;
}

/** GET /listings/{id}/sign: the typed data for `action`, with a fresh nonce and a deadline 10 minutes ahead. */
export async function signingDocument(
  id: string,
  action: OwnerAction,
  changes: ListingChanges,
  deps: OwnershipDeps,
): Promise<SigningDocument> {
  const listing = await liveListing(id, deps, action);
  if (action === "update") refuseBadChanges(listing, changes, "query");
  const { nonce, deadline } = freshAuthorization(deps.now());
  const submit = SUBMIT[action];
  const typedData = ownerTypedData(deps.market.name, action, id, { nonce, deadline }, changes);
  return {
    action,
    listingId: id,
    signer: getAddress(listing.sellerPayTo),
    typedData: {
      ...typedData,
      types: Object.fromEntries(
        Object.entries(typedData.types).map(([name, fields]) => [name, fields.map((field) => ({ ...field }))]),
      ),
    },
    submit: {
      method: submit.method,
      url: linkWithParams(deps.market, submit.path, { id }),
      body: {
        ...changes,
        nonce,
        deadline,
        chainId: CHAIN_ID,
        signature: "<the signer's EIP-712 signature of typedData>",
      },
    },
    expiresAt: new Date(deadline * 1000).toISOString(),
    note:
      `Sign typedData with the key of ${getAddress(listing.sellerPayTo)} (eth_signTypedData_v4, or viem's signTypedData with its domain, types, primaryType and message), ` +
      `put the signature in submit.body and send it before the deadline; the nonce is accepted once. The domain is always chainId ${CHAIN_ID}, with no verifying contract. ` +
      "Only an externally owned account's signature is accepted: contract wallets (EIP-1271) are not supported." +
      (action === "delist" ? ` Delisting hides the listing everywhere at once; ${NO_REFUND}` : ""),
  };
}

/** The checks of a signed operation up to the nonce; returns the nonce to spend. */
async function authorize(
  action: OwnerAction,
  listing: Listing,
  body: SignedBody,
  changes: ListingChanges,
  deps: OwnershipDeps,
): Promise<SpentNonce> {
  if (body.chainId !== undefined && body.chainId !== CHAIN_ID) {
    throw new HttpError(
      403,
      "wrong_chain",
      `Owner operations are signed over chainId ${CHAIN_ID} (the listing's network eip155:${CHAIN_ID}), not ${body.chainId}. Nothing was changed.`,
    );
  }
  refuseBadDeadline(body.deadline, deps.now(), `GET /listings/${listing.id}/sign`);
  const typedData = ownerTypedData(
    deps.market.name,
    action,
    listing.id,
    { nonce: body.nonce as Hex, deadline: body.deadline },
    changes,
  );
  const signer = await recovered(
    deps.signatures,
    {
      ...typedData,
      message: { ...typedData.message, deadline: BigInt(body.deadline) },
    } as unknown as TypedDataDefinition,
    body.signature as Hex,
  );
  if (signer === null)
    throw new HttpError(
      403,
      "not_owner",
      "The signature is not a valid ECDSA signature of this operation's typed data. Nothing was changed.",
    );
  if (getAddress(signer) !== getAddress(listing.sellerPayTo)) {
    throw new HttpError(
      403,
      "not_owner",
      `This operation's typed data, as sent, was signed by ${getAddress(signer)}, not by the listing's owner ${getAddress(listing.sellerPayTo)} (its sellerPayTo): ` +
        "only the owner may sign, and every field must be sent as signed. Nothing was changed.",
    );
  }
  if (await deps.owners.nonceUsed(body.nonce)) throw nonceUsed(body.nonce);
  return { nonce: body.nonce, action, signer: getAddress(signer) };
}

/** A signed request's deadline: passed (401) or further ahead than a signature may reach (403). `signAgain` names where to get fresh typed data. */
export function refuseBadDeadline(deadline: number, now: Date, signAgain: string): void {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (deadline < nowSeconds) {
    throw new HttpError(
      401,
      "deadline_passed",
      `The signature's deadline ${new Date(deadline * 1000).toISOString()} has passed; sign again with a fresh deadline (${signAgain}). Nothing was changed.`,
    );
  }
  if (deadline > nowSeconds + OWNER_DEADLINE_MAX_SECONDS + DEADLINE_SKEW_SECONDS) {
    throw new HttpError(
      403,
      "deadline_too_far",
      `The deadline may be at most ${OWNER_DEADLINE_MAX_SECONDS} seconds ahead. Nothing was changed.`,
    );
  }
}

/** The signer, recovered off the request thread; 503 when too many recoveries already wait. */
export async function recovered(
  signatures: OwnershipDeps["signatures"],
  typedData: TypedDataDefinition,
  signature: Hex,
): Promise<string | null> {
  try {
    return await signatures.recoverTypedDataAddress(typedData, signature);
  } catch (error) {
    if (!(error instanceof WorkBusyError)) throw error;
    throw new HttpError(
      503,
      "busy",
      `Too many signatures are being checked right now; retry in ${error.retryAfterSeconds} s. Nothing was changed.`,
      undefined,
      {
        "Retry-After": String(error.retryAfterSeconds),
      },
    );
  }
}

export function nonceUsed(nonce: string): HttpError {
  return new HttpError(
    409,
    "nonce_used",
    `The nonce ${nonce} was used already; sign the operation again with a fresh nonce. Nothing was changed.`,
  );
}

/** A spent nonce or a vanished listing, raised inside the change's transaction, as the answer. */
async function applied(id: string, change: () => Promise<Listing | null>): Promise<Listing> {
  let listing: Listing | null;
  try {
    listing = await change();
  } catch (error) {
    if (error instanceof NonceUsedError) throw nonceUsed(error.nonce);
    if (error instanceof ListingConflictError) {
      throw new HttpError(
        409,
        "listing_exists",
        `Listing ${error.otherId} already lists this resource for this seller with that method; delist one first. Nothing was changed.`,
      );
    }
    throw error;
  }
  if (!listing) throw notLive(id);
  return listing;
}

function result(
  action: OwnerAction,
  listing: Listing,
  market: MarketFacts,
  message: string,
  changed?: string[],
): OwnerActionResult {
  const live = listing.state === "active" || listing.state === "indexed";
  return {
    action,
    listingId: listing.id,
    state: listing.state === "indexed" ? "indexed" : live ? "active" : "delisted",
    ownerVerified: listing.ownerVerified,
    ...(changed && { changed }),
    ...(live && { item: toCatalogItem(listing, market) }),
    message,
  };
}

/** POST /listings/{id}/claim. */
export async function claimListing(id: string, body: SignedBody, deps: OwnershipDeps): Promise<OwnerActionResult> {
  const listing = await liveListing(id, deps, "claim");
  const spent = await authorize("claim", listing, body, {}, deps);
  const claimed = await applied(id, () => deps.owners.claim(id, spent, deps.now()));
  return result(
    "claim",
    claimed,
    deps.market,
    `Listing ${id} is owner-verified: its owner ${spent.signer} signed the claim.`,
  );
}

/** DELETE /listings/{id}: hidden from every read at once; counted as removed in the status document. */
export async function delistListing(id: string, body: SignedBody, deps: OwnershipDeps): Promise<OwnerActionResult> {
  const listing = await liveListing(id, deps);
  const spent = await authorize("delist", listing, body, {}, deps);
  const delisted = await applied(id, () => deps.owners.delist(id, spent, deps.now()));
  return result(
    "delist",
    delisted,
    deps.market,
    `Listing ${id} is delisted: it no longer appears in any catalog, search or feed. ${NO_REFUND}`,
  );
}

/** An update that the listing checks refuse (a zero price, a control character, a huge schema): 400 naming the field. */
function refuseBadChanges(listing: Listing, changes: ListingChanges, location: "body" | "query"): void {
  const fields = Object.keys(changes);
  if (fields.length === 0) {
    throw new HttpError(
      400,
      "no_changes",
      "Name at least one field to change: description, method, inputSchema or priceUsdc. Nothing was changed.",
      [{ in: location, field: location === "body" ? "/" : "description", message: "no field to change" }],
    );
  }
  const merged = {
    resource: listing.resource,
    method: changes.method ?? (listing.method as "GET" | "POST"),
    priceUsdc: changes.priceUsdc ?? listing.priceUsdc,
    description: changes.description ?? listing.description,
    sellerPayTo: listing.sellerPayTo,
    ...(changes.inputSchema && { inputSchema: changes.inputSchema }),
  };
  const checked = checkListingBody(merged);
  if (checked.listing) return;
  const bad = fieldErrorsOf(checked.checks).map((field) =>
    location === "query" ? { ...field, in: "query" as const, field: field.field.replace(/^\//, "") } : field,
  );
  throw new HttpError(
    400,
    "invalid_update",
    `Invalid update: ${bad.map((field) => `${field.field} ${field.message}`).join("; ")}. Nothing was changed.`,
    bad,
  );
}

export type UpdateOutcome =
  { status: 200; body: OwnerActionResult } | { status: 422; body: Schemas["ValidationReport"] };

/**
 * PATCH /listings/{id}. A price or method change must show in a fresh probe of the seller's challenge
 * (the new price, for the new method) before anything is written; the probe's metadata is kept too.
 */
export async function updateListing(
  id: string,
  body: UpdateBody,
  clientIp: string,
  deps: OwnershipDeps & { recordHealth?: HealthRecorder | undefined },
): Promise<UpdateOutcome> {
  const listing = await liveListing(id, deps);
  const changes = changesOf(body);
  refuseBadChanges(listing, changes, "body");
  const spent = await authorize("update", listing, body, changes, deps);
  const stored: StoredChanges = { ...changes, inputSchema: changes.inputSchema as StoredChanges["inputSchema"] };
  const priceAtomic =
    changes.priceUsdc === undefined ? listing.priceAtomic : normalizePrice(changes.priceUsdc).priceAtomic;
  const method = changes.method ?? (listing.method as "GET" | "POST");
  let passed: { attempt: Extract<ProbeAttempt, { ok: true }>; latencyMs: number } | undefined;
  if (priceAtomic !== listing.priceAtomic || method !== listing.method) {
    const started = Date.now();
    const attempt = await deps.probe.probe(
      { resource: listing.resource, method, priceAtomic, sellerPayTo: listing.sellerPayTo },
      clientIp,
    );
    if (!attempt.ok) return refusedByProbe(attempt);
    stored.metadata = attempt.metadata.metadata;
    passed = { attempt, latencyMs: Date.now() - started };
  }
  const updated = await applied(id, () => deps.owners.update(id, stored, spent, deps.now()));
  // The probe that accepted the new terms is their first health sample (an earlier drift is over).
  if (passed && deps.recordHealth) await deps.recordHealth(updated, passed.attempt, passed.latencyMs, deps.now());
  const changed = Object.keys(changes);
  return {
    status: 200,
    body: result(
      "update",
      updated,
      deps.market,
      `Listing ${id} was updated (${changed.join(", ")}) by its owner ${spent.signer}.`,
      changed,
    ),
  };
}

function refusedByProbe(attempt: Extract<ProbeAttempt, { ok: false }>): {
  status: 422;
  body: Schemas["ValidationReport"];
} {
  if (attempt.code === "rate_limited") {
    throw new HttpError(
      429,
      "rate_limited",
      `${attempt.detail}. Nothing was changed; the nonce was not spent.`,
      undefined,
      {
        "Retry-After": String(attempt.retryAfterSeconds),
      },
    );
  }
  const report = reportOf([probeCheck(attempt)]);
  return {
    status: 422,
    body: {
      ...report,
      message: `The seller's challenge does not show the change (${attempt.code}): publish the new price or method first, then sign again or resend. Nothing was changed; the nonce was not spent.`,
    },
  };
}

/** Records one refresh probe in the listing's health (src/health/); true when it did. */
export type HealthRecorder = (
  listing: Listing,
  attempt: Exclude<ProbeAttempt, { code: "rate_limited" }>,
  latencyMs: number,
  now: Date,
) => Promise<boolean>;

/** POST /listings/{id}/refresh: probe now, keep the seller's current metadata. */
export async function refreshListing(
  id: string,
  clientIp: string,
  deps: OwnershipDeps & { recordHealth?: HealthRecorder | undefined },
): Promise<RefreshResult> {
  const listing = await liveListing(id, deps);
  const started = Date.now();
  const attempt = await deps.probe.probe(
    {
      resource: listing.resource,
      method: listing.method as "GET" | "POST",
      priceAtomic: listing.priceAtomic,
      sellerPayTo: listing.sellerPayTo,
    },
    clientIp,
  );
  if (!attempt.ok && attempt.code === "rate_limited") {
    throw new HttpError(429, "rate_limited", `${attempt.detail}. Nothing was probed.`, undefined, {
      "Retry-After": String(attempt.retryAfterSeconds),
    });
  }
  const latencyMs = Date.now() - started;
  let current = listing;
  let metadataChanged = false;
  if (attempt.ok) {
    const refreshed = await deps.owners.refreshMetadata(id, attempt.metadata.metadata, deps.now());
    if (!refreshed) throw notLive(id);
    ({ listing: current, changed: metadataChanged } = refreshed);
  }
  const healthRecorded = deps.recordHealth ? await deps.recordHealth(current, attempt, latencyMs, deps.now()) : false;
  // The item as buyers now see it: with the health this probe just recorded.
  if (healthRecorded) current = await liveListing(id, deps);
  return {
    listingId: id,
    ok: attempt.ok,
    ...(!attempt.ok && { code: attempt.code }),
    detail: attempt.detail,
    metadataChanged,
    healthRecorded,
    item: toCatalogItem(current, deps.market),
  };
}
