// The contract's schemas as src/contract/schemas.ts hands them out, against generated/openapi.json
// read raw here: references resolved, nullable spelled for JSON Schema, nothing a reader can change.
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { componentSchema, queryParameters } from "../../src/contract/schemas.js";
import { exampleListing, listingRequestSchema } from "../../src/documents/listing-request.js";
import { rawContract as raw, type SchemaNode as Node } from "../support/raw-contract.js";

/** The plain reading of the contract: every reference replaced by its target, nothing else touched. */
function resolved(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(resolved);
  if (node === null || typeof node !== "object") return node;
  const { $ref } = node as { $ref?: string };
  if ($ref) return resolved(raw.components.schemas[$ref.replace("#/components/schemas/", "")]);
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolved(value)]));
}

function everyNode(node: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(node)) node.forEach((item) => everyNode(item, visit));
  else if (node !== null && typeof node === "object") {
    visit(node as Node);
    Object.values(node).forEach((value) => everyNode(value, visit));
  }
}

const models = Object.keys(raw.components.schemas);
const nullableSomewhere = (name: string) =>
  JSON.stringify(resolved(raw.components.schemas[name])).includes('"nullable"');

describe("the contract's component schemas", () => {
  it("have every reference inlined", () => {
    for (const name of models)
      everyNode(componentSchema(name), (node) => expect(node, name).not.toHaveProperty("$ref"));
    expect(() => componentSchema("NoSuchModel")).toThrow("contract: no schema NoSuchModel");
  });

  it("are the plain resolution of the contract's wherever nothing in them is nullable, the listing body too", () => {
    const plain = models.filter((name) => !nullableSomewhere(name));
    expect(plain).toContain("ListingRequest");
    for (const name of plain) expect(componentSchema(name), name).toEqual(resolved(raw.components.schemas[name]));
  });

  it("spell OpenAPI 3.0 nullable as a union with null, which JSON Schema validators understand", () => {
    expect(models.filter(nullableSomewhere)).toEqual(
      expect.arrayContaining(["DiscoveryDocument", "FeedDocument", "Pagination"]),
    );
    const discovery = componentSchema("DiscoveryDocument") as { properties: Record<string, unknown> };
    expect(discovery.properties.query).toEqual({
      anyOf: [{ type: "string", description: expect.any(String) }, { type: "null" }],
    });
    for (const name of models)
      everyNode(componentSchema(name), (node) => expect(node, name).not.toHaveProperty("nullable"));
    // zod reads JSON Schema only: it would refuse a null cursor under `nullable: true`.
    const pagination = z.fromJSONSchema(componentSchema("Pagination") as Parameters<typeof z.fromJSONSchema>[0]);
    expect(pagination.safeParse({ limit: 20, offset: 0, total: 0, cursor: null, nextCursor: null }).success).toBe(true);
    expect(pagination.safeParse({ limit: 20, offset: 0, total: 0, cursor: 5, nextCursor: null }).success).toBe(false);
  });

  it("cannot be changed by one reader for all the others", () => {
    const listing = componentSchema("ListingRequest") as { properties: { method: { default: string } } };
    expect(() => {
      listing.properties.method.default = "GET";
    }).toThrow(TypeError);
    expect(Object.isFrozen(listingRequestSchema())).toBe(true);
  });
});

describe("GET /listings/schema's document", () => {
  it("is draft-07 JSON Schema of the listing body: the contract's ListingRequest under a title", () => {
    const schema = listingRequestSchema();
    const { $schema, title, ...body } = schema;
    expect({ $schema, title }).toEqual({ $schema: "http://json-schema.org/draft-07/schema#", title: "ListingRequest" });
    expect(body).toEqual(resolved(raw.components.schemas.ListingRequest));
    expect(Object.keys(schema).slice(0, 3)).toEqual(["$schema", "title", "description"]);
  });

  it("accepts the example listing and refuses an unknown field", () => {
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv, { mode: "full" });
    const validate = ajv.compile(listingRequestSchema());
    const example = exampleListing({ network: "eip155:8453" });
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...example, colour: "blue" })).toBe(false);
  });
});

describe("an operation's query parameters", () => {
  const operation = (operationId: string) =>
    Object.values(raw.paths)
      .flatMap((item) => Object.values(item))
      .find((candidate) => candidate.operationId === operationId)!;

  it.each(["searchCatalog", "searchResources", "getCatalog"])(
    "are %s's, in order, each with its schema resolved",
    (operationId) => {
      const expected = (operation(operationId).parameters ?? [])
        .map((parameter) =>
          parameter.$ref
            ? raw.components.parameters[parameter.$ref.replace("#/components/parameters/", "")]!
            : parameter,
        )
        .filter((parameter) => parameter.in === "query")
        .map(({ name, required, description, schema }) => ({
          name,
          required: required === true,
          ...(description ? { description } : {}),
          schema: resolved(schema),
        }));
      expect(expected.length).toBeGreaterThan(0);
      expect(queryParameters(operationId)).toEqual(expected);
    },
  );

  it("leave out headers, and an unknown operation is an error", () => {
    expect(queryParameters("searchCatalog").map((parameter) => parameter.name)).not.toContain("If-None-Match");
    expect(() => queryParameters("noSuchOperation")).toThrow("contract: no operation noSuchOperation");
  });
});
