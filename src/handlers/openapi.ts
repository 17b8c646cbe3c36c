import type { Handler } from "../services.js";
import { weakEtag } from "../contract/etag.js";
import { linkTo } from "../market/links.js";

let cached: { bytes: Buffer; etag: string } | undefined;

/** The compiled contract, byte for byte, at /openapi.json and /swagger.json. */
export const getOpenApi: Handler<"getOpenApi"> = (_input, { contract }) => {
  if (cached?.bytes !== contract.bytes) cached = { bytes: contract.bytes, etag: weakEtag(contract.bytes) };
  return { status: 200, headers: { ETag: cached.etag }, body: { preRendered: cached.bytes } };
};

export const redirectOpenApiYaml: Handler<"redirectOpenApiYaml"> = (_input, { market }) => ({
  status: 307,
  headers: { Location: linkTo(market, "openapi") },
});
