// The contract's schemas as standalone JSON Schema: generated/openapi.json dereferenced once, by
// @apidevtools/json-schema-ref-parser, while this module loads (top-level await), so every reader
// below is synchronous. The listing body schema and the MCP tool schemas both come from here.
import { dereference } from "@apidevtools/json-schema-ref-parser";
import { deepFreeze } from "./json.js";
import { loadContract } from "./load.js";

export type JsonSchema = Readonly<Record<string, unknown>>;

/** A query parameter of an operation, its schema dereferenced. */
export interface QueryParameter {
  name: string;
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

type JsonContent = { content?: Record<string, { schema?: JsonSchema }> };

interface Operation {
  operationId?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema?: JsonSchema }>;
  requestBody?: JsonContent;
  responses?: Record<string, JsonContent>;
}

type Parameter = NonNullable<Operation["parameters"]>[number];

interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema>; parameters?: Record<string, Parameter> };
}

/** Keywords whose values are instance data, not schemas: nothing under them is rewritten. */
const DATA_KEYWORDS = new Set(["default", "example", "examples", "enum", "const"]);
/** Keywords whose values map names (any names, `default` too) to schemas. */
const NAMED_SCHEMAS = new Set(["properties", "patternProperties", "definitions", "$defs"]);

const mapValues = <T>(record: Record<string, T>, map: (value: T) => T): Record<string, T> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));

/**
 * A schema with OpenAPI 3.0's `nullable: true`, which JSON Schema validators and zod ignore,
 * spelled as a union with null (the node keeps its other keywords, annotations too, in the first branch).
 */
function spellNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(spellNullable);
  if (node === null || typeof node !== "object") return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const schema = mapEntries(rest);
  return nullable === true ? { anyOf: [schema, { type: "null" }] } : schema;
}

function mapEntries(schema: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => {
      if (DATA_KEYWORDS.has(key) || key.startsWith("x-")) return [key, value];
      if (NAMED_SCHEMAS.has(key) && value !== null && typeof value === "object")
        return [key, mapValues(value as Record<string, unknown>, spellNullable)];
      return [key, spellNullable(value)];
    }),
  );
}

/** A parameter with its schema spelled; a parameter that is a `$ref` is spelled where it points. */
function withSchemaSpelled(parameter: Parameter): Parameter {
  return parameter.schema ? { ...parameter, schema: spellNullable(parameter.schema) as JsonSchema } : parameter;
}

async function dereferenceContract(): Promise<Document> {
  // A fresh parse of the contract, so rewriting it in place (and the library's dereferencing,
  // which works in place) touches no other copy.
  const document = loadContract().document as unknown as Document;
  const { components } = document;
  components.schemas = mapValues(components.schemas, (schema) => spellNullable(schema) as JsonSchema);
  components.parameters = mapValues(components.parameters ?? {}, withSchemaSpelled);
  for (const item of Object.values(document.paths)) {
    for (const candidate of Object.values(item))
      if (candidate.parameters) candidate.parameters = candidate.parameters.map(withSchemaSpelled);
  }
  // circular: false makes a recursive model fail the start here: neither zod nor JSON.stringify
  // could take the cyclic object it would dereference to. The contract has none today.
  const resolved = await dereference(document, { resolve: { external: false }, dereference: { circular: false } });
  return deepFreeze(resolved as unknown as Document);
}

const contract = await dereferenceContract();

/** A component schema (`#/components/schemas/<name>`) with every reference inlined. */
export function componentSchema(name: string): JsonSchema {
  const schema = contract.components.schemas[name];
  if (!schema) throw new Error(`contract: no schema ${name}`);
  return schema;
}

function operation(operationId: string): Operation {
  for (const item of Object.values(contract.paths)) {
    for (const candidate of Object.values(item)) if (candidate.operationId === operationId) return candidate;
  }
  throw new Error(`contract: no operation ${operationId}`);
}

/** The query parameters of an operation, in the contract's order. */
export function queryParameters(operationId: string): QueryParameter[] {
  return (operation(operationId).parameters ?? [])
    .filter((parameter) => parameter.in === "query")
    .map(({ name, required, description, schema }) => ({
      name,
      required: required === true,
      ...(description === undefined ? {} : { description }),
      schema: schema ?? {},
    }));
}

/** The schema of an operation's JSON request body; undefined when it takes none. */
export function requestBodySchema(operationId: string): JsonSchema | undefined {
  return operation(operationId).requestBody?.content?.["application/json"]?.schema;
}

/** The schema of an operation's JSON answer with this status; undefined when it has none. */
export function responseBodySchema(operationId: string, status: string): JsonSchema | undefined {
  return operation(operationId).responses?.[status]?.content?.["application/json"]?.schema;
}
