import { exampleListing, listingRequestSchema } from "../documents/listing-request.js";
import type { Handler } from "../services.js";

/** The bare JSON Schema of the listing body, from the contract. */
export const getListingSchema: Handler<"getListingSchema"> = (_input, { contract }) => ({
  status: 200,
  body: listingRequestSchema(contract.document),
});

/** An example listing body. */
export const getListingExample: Handler<"getListingExample"> = (_input, { config }) => ({
  status: 200,
  body: exampleListing(config),
});
