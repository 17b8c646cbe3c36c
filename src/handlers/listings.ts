// The listings area (spec/listings.tsp): the paid listing, its dry run, the listing schema and
// example, and the fee documents.
import type { components } from "../../generated/openapi.js";
import { toCatalogItem } from "../catalog/catalog-item.js";
import { HttpError } from "../contract/errors.js";
import { taggedJson } from "../contract/rendered.js";
import { facilitatorDocument, feeCard } from "../documents/listing-fee.js";
import { exampleListing, listingRequestSchema } from "../documents/listing-request.js";
import { dryRunListing, validationGuide } from "../listing/dry-run.js";
import { createPaidListing, listingFeeCharge } from "../listing/paid-listing.js";
import { linkTo, linksTo, linkWithParams } from "../market/links.js";
import { catalogState, liveListing, newestForeign } from "../queries/catalog.js";
import { listingDocumentOf } from "../queries/listing-document.js";
import { listingStatusOf } from "../queries/listing-events.js";
import type { Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";
import { ownershipHandlers } from "./ownership.js";

type PaymentChallenge = components["schemas"]["PaymentChallenge"];

/** Items shown by `GET /listings`; the discovery routes page through all of them. */
const NEWEST = 50;

/** POST /listings: the paid listing (src/listing/paid-listing.ts). */
const createListing: Handler<"createListing"> = (
  input,
  { store, payments, probe, market, logger, now, health, idempotency },
) =>
  createPaidListing(
    { body: input.body, headers: input.headers, clientIp: input.clientIp },
    { store, gate: payments.gate, probe, market, chain: payments.chain, logger, now, health, idempotency },
  );

/** `GET /listings`: the free catalog of active third-party listings plus fee, schema and example. */
const getListings: Handler<"getListings"> = async (_input, services) => {
  const { market } = services;
  const page = await newestForeign(services, await catalogState(services), NEWEST);
  return {
    status: 200,
    body: {
      listingFeeUsdc: market.feeUsdc,
      listingFeePayTo: market.payTo,
      ttlDays: market.ttlDays,
      count: page.total,
      items: page.rows.map((row) => toCatalogItem(row, market)),
      schema: listingRequestSchema(),
      example: exampleListing(market),
      links: {
        ...linksTo(market, ["resources", "search", "challenge", "feed"]),
        validate: linkTo(market, "/listings/validate"),
        schema: linkTo(market, "/listings/schema"),
      },
    },
  };
};

/** POST /listings/validate: the paid route's checks, without payment and without saving. */
const validateListing: Handler<"validateListing"> = (input, { probe }) =>
  dryRunListing(input.body!, input.clientIp, probe);

/** GET /listings/validate: how to call the dry run. */
const getValidationGuide: Handler<"getValidationGuide"> = (_input, { market }) => ({
  status: 200,
  body: validationGuide(market),
});

/** The bare JSON Schema of the listing body, from the contract. */
const getListingSchema: Handler<"getListingSchema"> = () => ({
  status: 200,
  body: listingRequestSchema(),
});

/** An example listing body. */
const getListingExample: Handler<"getListingExample"> = (_input, { config }) => ({
  status: 200,
  body: exampleListing(config),
});

/** GET /listings/challenge: exactly what an unpaid POST /listings carries in PAYMENT-REQUIRED, as JSON. */
const getListingChallenge: Handler<"getListingChallenge"> = async (_input, { payments, market }) => ({
  status: 200,
  body: (await payments.gate.challenge(listingFeeCharge(market))) as PaymentChallenge,
});

/** /fee.json and its aliases. */
const getFeeCard: Handler<"getFeeCard"> = (_input, { market }) => ({ status: 200, body: feeCard(market) });

/** /facilitator.json: where fees are verified and settled, and what the marketplace never does. */
const getFacilitator: Handler<"getFacilitator"> = (_input, { payments, market }) => ({
  status: 200,
  body: facilitatorDocument(market, payments.facilitator),
});

/** GET /listings/{id}: one live listing with its health and usage history; 404 when it is not live. */
const getListing: Handler<"getListing"> = async (input, services) => {
  const { token } = await catalogState(services);
  const listing = await liveListing(services, input.params.id);
  if (!listing)
    throw new HttpError(
      404,
      "listing_not_found",
      `No live listing ${input.params.id}: it never existed, expired, failed or was delisted.`,
    );
  const { document, reusableUntil } = await listingDocumentOf(listing, services);
  return reusableUntil === null
    ? taggedJson(document, null)
    : { ...taggedJson(document, token), cacheUntil: reusableUntil };
};

/** Any stored listing's status, reasons and transitions: why it is (or is not) in the catalog. */
const getListingStatus: Handler<"getListingStatus"> = async (input, services) => {
  const found = await listingStatusOf(services, input.params.id);
  if (!found)
    throw new HttpError(
      404,
      "listing_not_found",
      `No listing ${input.params.id} is stored: it never existed, or it expired more than a week ago.`,
    );
  const links = {
    self: linkWithParams(services.market, "/listings/{id}/status", { id: input.params.id }),
    listing: linkWithParams(services.market, "/listings/{id}", { id: input.params.id }),
  };
  return { status: 200, body: { listingId: input.params.id, ...found, links } };
};

export const listingsHandlers: AreaHandlers<"listings"> = {
  getListing,
  getListingStatus,
  ...ownershipHandlers,
  createListing,
  getListings,
  validateListing,
  getValidationGuide,
  getListingSchema,
  getListingExample,
  getListingChallenge,
  getFeeCard,
  getFacilitator,
};
