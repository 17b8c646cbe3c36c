// The operations of generated/openapi.json, read at test time: every path and method, its
// parameters (references resolved), its request body schema and its declared responses; and
// well-formed sample values, so that one malformed value at a time reaches the code behind it.
import { readFileSync } from "node:fs";
import type { JsonSchema } from "./values.js";

const CONTRACT = new URL("../../generated/openapi.json", import.meta.url);
const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema>; parameters?: Record<string, unknown> };
}

export interface Parameter {
  name: string;
  in: "query" | "header" | "path" | "cookie";
  required: boolean;
  schema: JsonSchema;
}

export interface DeclaredResponse {
  /** Media types of the body; empty when the response has none. */
  mediaTypes: string[];
  /** The name of the JSON schema component, when the body is one ($ref). */
  schemaName?: string;
}

export interface Operation {
  method: string;
  /** The path as the contract writes it, templates included. */
  path: string;
  operationId: string;
  parameters: Parameter[];
  /** The JSON request body schema, when the operation takes one. */
  bodySchema?: JsonSchema;
  /** Handed over unparsed (`x-raw-body`): the handler reads every header itself. */
  rawBody: boolean;
  /** The operation answers refusals as JSON-RPC error objects (its responses use JsonRpcErrorResponse). */
  jsonRpc: boolean;
  responses: Record<string, DeclaredResponse>;
}

export function loadDocument(): OpenApiDocument {
  return JSON.parse(readFileSync(CONTRACT, "utf8")) as OpenApiDocument;
}

/** Follows a local `$ref` ("#/components/..."), repeatedly. */
export function deref<T>(document: OpenApiDocument, value: T): T {
  let current = value as unknown;
  for (let hops = 0; hops < 20; hops++) {
    const ref = (current as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== "string") return current as T;
    current = ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
  }
  throw new Error("reference cycle");
}

/** A schema with its references and `allOf` merged into one object (shallowly). */
export function flatten(document: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema {
  const resolved = deref(document, schema ?? {});
  if (!resolved.allOf) return resolved;
  const { allOf, ...rest } = resolved;
  return Object.assign({}, ...allOf.map((part) => flatten(document, part)), rest) as JsonSchema;
}

const schemaNameOf = (schema: unknown): string | undefined => {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === "string" ? ref.split("/").pop() : undefined;
};

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const definition = item[method] as Record<string, unknown> | undefined;
      if (!definition) continue;
      const declared = [...((item.parameters as unknown[]) ?? []), ...((definition.parameters as unknown[]) ?? [])];
      const parameters = declared.map((parameter) => {
        const resolved = deref(document, parameter) as Parameter;
        return { ...resolved, required: resolved.required === true, schema: flatten(document, resolved.schema) };
      });
      const content = (definition.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)
        ?.content;
      const jsonBody = content && Object.entries(content).find(([type]) => /json/i.test(type))?.[1];
      const responses: Record<string, DeclaredResponse> = {};
      for (const [status, response] of Object.entries((definition.responses as Record<string, unknown>) ?? {})) {
        const body = (deref(document, response) as { content?: Record<string, { schema?: unknown }> }).content ?? {};
        const mediaTypes = Object.keys(body);
        const schemaName = mediaTypes.map((type) => schemaNameOf(body[type]?.schema)).find(Boolean);
        responses[status] = { mediaTypes, ...(schemaName ? { schemaName } : {}) };
      }
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: String(definition.operationId ?? `${method} ${path}`),
        parameters,
        ...(jsonBody ? { bodySchema: flatten(document, jsonBody.schema) } : {}),
        rawBody: definition["x-raw-body"] === true,
        jsonRpc: Object.values(responses).some((response) => response.schemaName === "JsonRpcErrorResponse"),
        responses,
      });
    }
  }
  return operations;
}

/** Operations declared alike (an alias of another path) have the same signature. */
export function signatureOf(operation: Operation): string {
  const { method, parameters, bodySchema, rawBody, responses } = operation;
  return JSON.stringify({ method, parameters, bodySchema, rawBody, responses });
}

/** Strings tried, in order, for a string schema with a pattern: the first that fits is the sample. */
const STRING_CANDIDATES = [
  "https://127.0.0.1:9/fuzz-sample",
  "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
  "0.01",
  "eip155:8453",
  "2030-01-01T00:00:00.000Z",
  "fuzz sample text",
  "fuzz",
  "1",
];

function fits(schema: JsonSchema, text: string): boolean {
  if (schema.pattern && !new RegExp(schema.pattern, "u").test(text)) return false;
  if (typeof schema.minLength === "number" && [...text].length < schema.minLength) return false;
  if (typeof schema.maxLength === "number" && [...text].length > schema.maxLength) return false;
  return true;
}

/** A well-formed value for a schema (required properties only), or undefined when none is found. */
export function sampleOf(document: OpenApiDocument, schemaIn: JsonSchema | undefined): unknown {
  const schema = flatten(document, schemaIn);
  if (schema.default !== undefined) return schema.default;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string": {
      if (schema.format === "date-time") return "2030-01-01T00:00:00.000Z";
      if (!schema.pattern && fits(schema, "fuzz sample text")) return "fuzz sample text";
      const found = STRING_CANDIDATES.find((candidate) => fits(schema, candidate));
      if (found !== undefined) return found;
      return "f".repeat(Math.max(1, schema.minLength ?? 1));
    }
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
    case undefined: {
      if (!schema.properties) return type === "object" ? {} : { fuzz: "sample" };
      const sample: Record<string, unknown> = {};
      for (const name of schema.required ?? []) sample[name] = sampleOf(document, schema.properties[name]);
      return sample;
    }
    default:
      return undefined;
  }
}
