// The owner's self-service routes of the listings area (src/listing/ownership.ts): the typed data to
// sign, claim, update and delist signed by sellerPayTo, and the free refresh.
import { HttpError } from "../contract/errors.js";
import {
  claimListing,
  delistListing,
  refreshListing,
  signingDocument,
  updateListing,
  type HealthRecorder,
  type OwnershipDeps,
} from "../listing/ownership.js";
import type { ListingChanges } from "../listing/owner-typed-data.js";
import type { Handler, ListingsAreaContext } from "../services.js";

function ownershipDeps({ owners, probe, market, work, now }: ListingsAreaContext): OwnershipDeps {
  return { owners, probe, market, signatures: work.pool, now };
}

/**
 * An update's probe of its new terms (signed by the owner) counts like a round's; a free refresh's is
 * a health sample that counts only when the listing is due (src/health/health.ts).
 */
function healthRecorder({ health }: ListingsAreaContext, kind: "update" | "refresh"): HealthRecorder {
  const record = kind === "update" ? health.recordProbe : health.recordRefresh;
  return async (listing, attempt, latencyMs, now) => {
    await record(listing.id, attempt.ok ? { ok: true, latencyMs } : { ok: false, code: attempt.code, latencyMs }, now);
    return true;
  };
}

/** The query's inputSchema is JSON text: an object, or null to remove the schema. */
function inputSchemaOf(text: string | undefined): ListingChanges["inputSchema"] {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || (typeof parsed === "object" && !Array.isArray(parsed)))
    return parsed as ListingChanges["inputSchema"];
  throw new HttpError(400, "invalid_request", "inputSchema must be a JSON object (or null to remove the schema).", [
    { in: "query", field: "inputSchema", message: "is not a JSON object or null" },
  ]);
}

const getOwnerSigningData: Handler<"getOwnerSigningData"> = async ({ params, query }, services) => {
  const { action, description, method, priceUsdc } = query;
  const changes: ListingChanges = {};
  if (action === "update") {
    if (description !== undefined) changes.description = description;
    if (method !== undefined) changes.method = method;
    if (priceUsdc !== undefined) changes.priceUsdc = priceUsdc;
    const inputSchema = inputSchemaOf(query.inputSchema);
    if (inputSchema !== undefined) changes.inputSchema = inputSchema;
  }
  return { status: 200, body: await signingDocument(params.id, action, changes, ownershipDeps(services)) };
};

const claimListingHandler: Handler<"claimListing"> = async ({ params, body }, services) => ({
  status: 200,
  body: await claimListing(params.id, body!, ownershipDeps(services)),
});

const updateListingHandler: Handler<"updateListing"> = ({ params, body, clientIp }, services) =>
  updateListing(params.id, body!, clientIp, {
    ...ownershipDeps(services),
    recordHealth: healthRecorder(services, "update"),
  });

const delistListingHandler: Handler<"delistListing"> = async ({ params, body }, services) => ({
  status: 200,
  body: await delistListing(params.id, body!, ownershipDeps(services)),
});

const refreshListingHandler: Handler<"refreshListing"> = async ({ params, clientIp }, services) => ({
  status: 200,
  body: await refreshListing(params.id, clientIp, {
    ...ownershipDeps(services),
    recordHealth: healthRecorder(services, "refresh"),
  }),
});

export const ownershipHandlers = {
  getOwnerSigningData,
  claimListing: claimListingHandler,
  updateListing: updateListingHandler,
  delistListing: delistListingHandler,
  refreshListing: refreshListingHandler,
};
