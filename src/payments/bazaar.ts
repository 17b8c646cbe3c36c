// The x402 Bazaar discovery declaration of our own paid routes (extensions.bazaar of their 402s),
// built by the SDK's declareDiscoveryExtension from the contract's own schemas: the request body
// (or query parameters) as the input schema, the 200 answer as the output schema. Discovery
// validators and facilitators catalog a paid route from this; without it they mark it invalid.
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { queryParameters, requestBodySchema, responseBodySchema, type JsonSchema } from "../contract/schemas.js";

/** A route's declared extensions and the method it is called with (the SDK's enrichment adds it). */
export interface RouteDiscovery {
  method: "GET" | "POST";
  extensions: Record<string, unknown>;
}

function answerSchema(operationId: string): Record<string, unknown> {
  const schema = responseBodySchema(operationId, "200");
  if (!schema) throw new Error(`contract: ${operationId} has no JSON 200 answer`);
  return schema as Record<string, unknown>;
}

/** A POST route with a JSON body: `inputExample` and `outputExample` must fit the contract's schemas. */
export function bodyRouteDiscovery(
  operationId: string,
  examples: { input: Record<string, unknown>; output: unknown },
): RouteDiscovery {
  return {
    method: "POST",
    extensions: declareDiscoveryExtension({
      bodyType: "json",
      input: examples.input,
      inputSchema: (requestBodySchema(operationId) ?? {}) as Record<string, unknown>,
      output: { example: examples.output, schema: answerSchema(operationId) },
    }),
  };
}

/** A GET route: its query parameters, as the contract declares them, are the input. */
export function queryRouteDiscovery(operationId: string, examples: { output: unknown }): RouteDiscovery {
  const parameters = queryParameters(operationId);
  const inputSchema: { properties: Record<string, JsonSchema>; required?: string[] } = {
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
  };
  const required = parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  if (required.length > 0) inputSchema.required = required;
  return {
    method: "GET",
    extensions: declareDiscoveryExtension({
      input: {},
      inputSchema,
      output: { example: examples.output, schema: answerSchema(operationId) },
    }),
  };
}
