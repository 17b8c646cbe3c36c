// What every answer to a malformed request must be: below 500 (a well-formed but unverifiable
// payment may meet the facilitator's 502/503), a JSON error in the contract's shape, and free of
// internals (stack text, checkout paths, upstream URLs, exception text).
import type { OpenAPIBackend } from "openapi-backend";
import { declaringOperation } from "../support/contract-check.js";
import type { FuzzCase } from "./cases.js";
import type { DeclaredResponse } from "./operations.js";
import type { Exchange, RawRequest, RawResponse } from "./raw-http.js";

export interface Finding {
  /** Where and what, for grouping: "METHOD /path | reason". */
  key: string;
  /** The request that shows it and the answer it got. */
  example: string;
}

export interface CheckContext {
  api: OpenAPIBackend;
  /** Text that must appear in no answer: [what it is, the text]. */
  forbidden: Array<[string, string]>;
  /** Text that must appear in no error answer (documents may name it on purpose, e.g. the facilitator URL). */
  forbiddenInErrors: Array<[string, string]>;
}

/** Where findings of node:http itself are grouped: no route ever saw those requests. */
export const NODE_HTTP = "node:http (before any route)";

/**
 * node:http's own answer (a request it could not parse, a missing Host, an Expect it does not
 * know): an empty error without a content type, and without the CORS headers every answer of the
 * app and of its response cache carries.
 */
function isNodeHttpAnswer(response: RawResponse): boolean {
  return (
    response.status >= 400 &&
    response.body.length === 0 &&
    !response.headers["content-type"] &&
    !response.headers["access-control-allow-origin"]
  );
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const ERROR_BODY: DeclaredResponse = { mediaTypes: ["application/json"], schemaName: "ErrorBody" };

export function describeRequest(request: RawRequest): string {
  const target =
    request.target.length > 160 ? `${request.target.slice(0, 160)}…(${request.target.length} chars)` : request.target;
  const headers = (request.headers ?? [])
    .map(([name, value]) => {
      const text = typeof value === "string" ? value : `bytes(${value.toString("hex")})`;
      return `${name}: ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…(${text.length})` : text)}`;
    })
    .join("; ");
  const body = request.body
    ? ` body(${request.body.length} B${request.chunked ? ", chunked" : ""}): ${JSON.stringify(request.body.subarray(0, 120).toString("utf8"))}`
    : "";
  return `${JSON.stringify(target)}${headers ? ` [${headers}]` : ""}${body}`;
}

function describeResponse(response: RawResponse): string {
  const text = response.body.toString("utf8");
  return `${response.status} ${response.headers["content-type"] ?? "(no content-type)"} ${JSON.stringify(text.length > 300 ? `${text.slice(0, 300)}…` : text)}`;
}

function parseJson(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function isJsonRpcError(value: unknown): boolean {
  if (!isRecord(value) || value.jsonrpc !== "2.0" || !isRecord(value.error)) return false;
  return Number.isInteger(value.error.code) && typeof value.error.message === "string";
}

function isErrorBody(value: unknown): boolean {
  return isRecord(value) && typeof value.error === "string" && typeof value.message === "string";
}

/**
 * Problems of an error answer. A mangled path of a templated route (a trailing slash, a NUL in the
 * parameter) may still match the template: the operation's own declared answer (the listing page's
 * HTML 404) is right then, as is the JSON error of a path nothing routes.
 */
function errorProblems(testCase: FuzzCase, response: RawResponse, ctx: CheckContext): string[] {
  const problems = errorProblemsOf(
    testCase.request.method === "HEAD" || testCase.offRoute ? null : testCase.operation,
    testCase,
    response,
    ctx,
  );
  if (
    problems.length === 0 ||
    !testCase.offRoute ||
    testCase.request.method === "HEAD" ||
    !testCase.operation?.path.includes("{")
  )
    return problems;
  return errorProblemsOf(testCase.operation, testCase, response, ctx).length === 0 ? [] : problems;
}

/** Problems of an error answer: JSON of the declared shape unless the contract declares another media type. */
function errorProblemsOf(
  operation: FuzzCase["operation"] | null,
  testCase: FuzzCase,
  response: RawResponse,
  ctx: CheckContext,
): string[] {
  const declared = operation
    ? (operation.responses[String(response.status)] ?? operation.responses.default ?? ERROR_BODY)
    : ERROR_BODY;
  const contentType = response.headers["content-type"] ?? "";
  if (isNodeHttpAnswer(response)) return [`${response.status} with no body`];
  if (declared.mediaTypes.length > 0 && !declared.mediaTypes.some((type) => /json/i.test(type))) {
    return declared.mediaTypes.some((type) => contentType.toLowerCase().startsWith(type.toLowerCase()))
      ? []
      : [`${response.status} is not ${declared.mediaTypes.join(" or ")}`];
  }
  if (!JSON_MEDIA.test(contentType)) return [`${response.status} without a JSON content-type`];
  if (testCase.request.method === "HEAD") return [];
  const parsed = parseJson(response.body.toString("utf8"));
  if (!parsed) return [`${response.status} body is not JSON`];
  const body = parsed.value;
  // Off its own path a request may reach the JSON-RPC route, which answers JSON-RPC errors.
  const jsonRpcAllowed = declared.schemaName === "JsonRpcErrorResponse" || (!operation && isJsonRpcError(body));
  if (declared.schemaName === "JsonRpcErrorResponse" && !isJsonRpcError(body))
    return [`${response.status} is not a JSON-RPC error object`];
  // A status the contract gives its own schema (the 422 validation report) is held to that schema below.
  const ownSchema =
    operation &&
    declared.schemaName &&
    declared.schemaName !== "ErrorBody" &&
    declared.schemaName !== "JsonRpcErrorResponse";
  if (!jsonRpcAllowed && !ownSchema && !isErrorBody(body))
    return [`${response.status} JSON has no string error and message`];
  if (operation) {
    const routed = ctx.api.getOperation(operation.operationId);
    const errors = routed
      ? (ctx.api.validateResponse(body, declaringOperation(ctx.api, routed), response.status).errors ?? [])
      : [];
    if (errors.length > 0)
      return [
        `${response.status} does not fit the contract: ${errors.map((error) => `${error.instancePath} ${error.message}`).join("; ")}`,
      ];
  }
  return [];
}

/** A 200 JSON-RPC answer that is an internal failure in disguise. */
function jsonRpcProblems(response: RawResponse): string[] {
  const parsed = parseJson(response.body.toString("utf8"));
  if (!parsed) return [];
  const messages = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  const problems: string[] = [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (isRecord(message.error) && message.error.code === -32603) problems.push("JSON-RPC internal error (-32603)");
    const result = message.result;
    if (
      isRecord(result) &&
      result.isError === true &&
      /failed on the server/i.test(JSON.stringify(result.content ?? ""))
    ) {
      problems.push("tool call failed on the server (an internal error answered as a tool error)");
    }
  }
  return problems;
}

export function checkExchange(testCase: FuzzCase, exchange: Exchange, ctx: CheckContext): Finding[] {
  const route = testCase.operation ? `${testCase.operation.method} ${testCase.operation.path}` : "HTTP framing";
  const example = (answer: string) =>
    `${testCase.what}: ${testCase.request.method} ${describeRequest(testCase.request)} -> ${answer}`;
  if ("failure" in exchange)
    return [
      { key: `${testCase.operation ? route : NODE_HTTP} | ${exchange.failure}`, example: example(exchange.failure) },
    ];
  const { response } = exchange;
  const where = isNodeHttpAnswer(response) ? NODE_HTTP : route;
  const problems: string[] = [];
  const upstream = testCase.upstreamAllowed && (response.status === 502 || response.status === 503);
  if (response.status >= 500 && !upstream) problems.push(`status ${response.status}`);
  if (response.status >= 400) problems.push(...errorProblems(testCase, response, ctx));
  if (testCase.operation?.jsonRpc && !testCase.offRoute && response.status === 200)
    problems.push(...jsonRpcProblems(response));
  const text = `${response.head}\n${response.body.toString("utf8")}`;
  const forbidden = response.status >= 400 ? [...ctx.forbidden, ...ctx.forbiddenInErrors] : ctx.forbidden;
  for (const [what, needle] of forbidden) {
    if (needle && text.includes(needle)) problems.push(`answer contains ${what} (${JSON.stringify(needle)})`);
  }
  return problems.map((problem) => ({ key: `${where} | ${problem}`, example: example(describeResponse(response)) }));
}

export interface FindingGroup {
  key: string;
  count: number;
  examples: string[];
}

export function groupFindings(findings: Finding[], examplesPerGroup = 3): FindingGroup[] {
  const groups = new Map<string, FindingGroup>();
  for (const { key, example } of findings) {
    const group = groups.get(key) ?? { key, count: 0, examples: [] };
    group.count += 1;
    if (group.examples.length < examplesPerGroup) group.examples.push(example);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => a.key.localeCompare(b.key));
}
