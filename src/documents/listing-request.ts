import type { components } from "../../generated/openapi.js";
import type { Config } from "../config.js";
import { componentSchema } from "../contract/schemas.js";

export type ListingRequest = components["schemas"]["ListingRequest"];
type Schema = Record<string, unknown>;

const LISTING_SCHEMA: Schema = Object.freeze({
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "ListingRequest",
  description: "Body of POST /listings and POST /listings/validate. Unknown fields are rejected.",
  ...componentSchema("ListingRequest"),
});

/**
 * The bare JSON Schema of the listing request body, from the contract's dereferenced schemas.
 * The argument is ignored: there is one contract, dereferenced once in src/contract/schemas.ts.
 */
export function listingRequestSchema(): Schema {
  return LISTING_SCHEMA;
}

/** An example listing body; it passes the schema. */
export function exampleListing(config: Pick<Config, "network">): ListingRequest {
  return {
    resource: "https://seller.example.com/api/summarise",
    method: "POST",
    priceUsdc: "0.03",
    description: "Summarises any public web page into five bullet points.",
    sellerPayTo: "0x1111111111111111111111111111111111111111",
    inputSchema: {
      type: "object",
      properties: { url: { type: "string", format: "uri" } },
      required: ["url"],
    },
    network: config.network,
  };
}
