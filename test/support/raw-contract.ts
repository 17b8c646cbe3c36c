import { readFileSync } from "node:fs";

export type SchemaNode = Record<string, unknown>;

export interface RawParameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: SchemaNode;
}

/** generated/openapi.json as committed, read raw: no library between the test and the contract. */
export const rawContract = JSON.parse(
  readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"),
) as {
  paths: Record<string, Record<string, { operationId?: string; parameters?: RawParameter[] }>>;
  components: { schemas: Record<string, SchemaNode>; parameters: Record<string, RawParameter> };
};
