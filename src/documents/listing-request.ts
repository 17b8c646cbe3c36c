import type { components } from "../../generated/openapi.js";
import type { Config } from "../config.js";

export type ListingRequest = components["schemas"]["ListingRequest"];
type Schema = Record<string, unknown>;

/** Inlines `#/components/schemas/*` references, so the schema stands alone. */
function inline(node: unknown, schemas: Record<string, Schema>): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, schemas));
  if (node === null || typeof node !== "object") return node;
  const ref = (node as { $ref?: string }).$ref;
  if (typeof ref === "string") {
    const name = ref.replace("#/components/schemas/", "");
    const target = schemas[name];
    if (!target) throw new Error(`contract: unresolved reference ${ref}`);
    return inline(target, schemas);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, schemas)]));
}

const schemaOf = new WeakMap<Record<string, unknown>, Schema>();

/** The bare JSON Schema of the listing request body, from the compiled contract (built once per contract). */
export function listingRequestSchema(contract: Record<string, unknown>): Schema {
  const known = schemaOf.get(contract);
  if (known) return known;
  const schema = inlinedListingSchema(contract);
  schemaOf.set(contract, schema);
  return schema;
}

function inlinedListingSchema(contract: Record<string, unknown>): Schema {
  const schemas = (contract.components as { schemas: Record<string, Schema> }).schemas;
  const body = inline(schemas.ListingRequest, schemas) as Schema;
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "ListingRequest",
    description: "Body of POST /listings and POST /listings/validate. Unknown fields are rejected.",
    ...body,
  };
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
