// zod schemas of the market tools (the MCP SDK takes zod), converted from the contract's dereferenced JSON
// Schemas: the tools validate and advertise the very schemas the HTTP routes do, with no second copy.
import * as z from "zod";
import { componentSchema, queryParameters, type JsonSchema, type QueryParameter } from "../contract/schemas.js";

type FromJsonSchema = Parameters<typeof z.fromJSONSchema>[0];

const fromContract = (schema: JsonSchema): z.ZodType => z.fromJSONSchema(schema as FromJsonSchema);

const models = new Map<string, z.ZodType>();

/** A zod schema of a contract model (`#/components/schemas/<name>`). */
export function contractSchema(name: string): z.ZodType {
  let schema = models.get(name);
  if (!schema) {
    schema = fromContract(componentSchema(name));
    models.set(name, schema);
  }
  return schema;
}

/** What a refusal by one of the contract's patterns means, for a reader rather than a regex engine. */
const PATTERN_MEANINGS: Record<string, string> = {
  "^[^\\u0000-\\u001F\\u007F]*$": "must not contain control characters (U+0000 to U+001F, U+007F)",
};

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** zod ignores `format`; the HTTP route's validator enforces `int32` as a range. */
function withFormatRange(schema: JsonSchema): JsonSchema {
  if (schema.type !== "integer" || schema.format !== "int32") return schema;
  const { minimum = INT32_MIN, maximum = INT32_MAX } = schema as { minimum?: number; maximum?: number };
  return { ...schema, minimum: Math.max(minimum, INT32_MIN), maximum: Math.min(maximum, INT32_MAX) };
}

/**
 * One argument from one query parameter: its schema with the parameter's description, optional
 * unless required. A string pattern is matched as ajv matches it on the HTTP route (unicode
 * flag), and a refusal says what the pattern means.
 */
function argument({ name, required, description, schema: declared }: QueryParameter): z.ZodType {
  const schema = withFormatRange(declared);
  const { pattern, default: fallback, description: own, ...rest } = schema;
  let converted = fromContract(typeof pattern === "string" ? rest : schema);
  if (typeof pattern === "string") {
    if (!(converted instanceof z.ZodString))
      throw new Error(`contract: query parameter ${name} has a pattern but is not a string`);
    converted = converted.regex(
      new RegExp(pattern, "u"),
      `${name} ${PATTERN_MEANINGS[pattern] ?? `must match ${pattern}`}`,
    );
    if (fallback !== undefined) converted = converted.default(fallback);
  }
  const text = description ?? own;
  if (typeof text === "string") converted = converted.describe(text);
  return required ? converted : converted.optional();
}

const queries = new Map<string, z.ZodType>();

/**
 * The arguments of a tool that mirrors an operation: one per query parameter of the operation in
 * the contract, with its type, constraints, enum, default and description. Unknown arguments are
 * refused, as the HTTP route refuses unknown query parameters.
 */
export function queryArguments(operationId: string): z.ZodType {
  let schema = queries.get(operationId);
  if (!schema) {
    schema = z.strictObject(
      Object.fromEntries(queryParameters(operationId).map((parameter) => [parameter.name, argument(parameter)])),
    );
    queries.set(operationId, schema);
  }
  return schema;
}
