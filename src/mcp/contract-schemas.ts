import * as z from "zod";

type SchemaNode = Record<string, unknown>;

/**
 * A named schema of the compiled contract as plain JSON Schema: references inlined, and OpenAPI
 * 3.0's `nullable: true` spelled as a union with null (zod does not read `nullable`).
 */
function standalone(node: unknown, schemas: Record<string, SchemaNode>): unknown {
  if (Array.isArray(node)) return node.map((item) => standalone(item, schemas));
  if (node === null || typeof node !== "object") return node;
  const { $ref, nullable, ...rest } = node as SchemaNode;
  if (typeof $ref === "string") {
    const target = schemas[$ref.replace("#/components/schemas/", "")];
    if (!target) throw new Error(`contract: unresolved reference ${$ref}`);
    return standalone(target, schemas);
  }
  const schema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, standalone(value, schemas)]));
  return nullable === true ? { anyOf: [schema, { type: "null" }] } : schema;
}

const memo = new WeakMap<object, Map<string, z.ZodType>>();

/**
 * A zod schema of a contract model, for the MCP SDK (which takes zod): tools validate and
 * advertise the very schemas the HTTP routes do, with no second copy.
 */
export function contractSchema(contract: Record<string, unknown>, name: string): z.ZodType {
  const known = memo.get(contract) ?? new Map<string, z.ZodType>();
  memo.set(contract, known);
  const cached = known.get(name);
  if (cached) return cached;
  const schemas = (contract.components as { schemas: Record<string, SchemaNode> }).schemas;
  if (!schemas[name]) throw new Error(`contract: no schema ${name}`);
  const schema = z.fromJSONSchema(standalone(schemas[name], schemas) as Parameters<typeof z.fromJSONSchema>[0]);
  known.set(name, schema);
  return schema;
}
