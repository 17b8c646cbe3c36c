// POST /mcp: the Koa adapter hands over the unparsed body; this builds a web-standard Request for
// the SDK's stateless Streamable HTTP transport (JSON answers) and turns its Response into a reply.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ZodType } from "zod";
import { QUERY_BURST_WINDOW_SECONDS } from "../config.js";
import { HttpError } from "../contract/errors.js";
import type { components } from "../../generated/openapi.js";
import type { Input, Reply } from "../contract/typed-handlers.js";
import type { McpServices } from "./context.js";
import { rebindingRefusal, rebindingRules, type RebindingRules } from "./dns-rebinding.js";
import { createMarketMcpServer } from "./server.js";
import { linkTo } from "../market/links.js";

type JsonRpcErrorResponse = components["schemas"]["JsonRpcErrorResponse"];

/** The SDK's code for a refusal by the transport itself (Host, Origin, Accept, media type). */
const TRANSPORT_REFUSAL = -32000;

const NOT_FORWARDED = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "expect",
]);

function refusal(code: number, message: string): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id: null, error: { code, message } };
}

function parsedJson(text: string | undefined): { value: unknown } | null {
  if (text === undefined) return null;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

/**
 * JSON that is not a JSON-RPC 2.0 message is an invalid request (-32600); the SDK would call it a
 * parse error (-32700), which JSON-RPC reserves for text that is not JSON.
 */
function isMessageOrBatch(value: unknown): boolean {
  const messages = Array.isArray(value) ? value : [value];
  return messages.length > 0 && messages.every((message) => JSONRPCMessageSchema.safeParse(message).success);
}

const REQUEST_SCHEMAS = new Map<string, ZodType>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
  ["resources/list", ListResourcesRequestSchema],
  ["resources/templates/list", ListResourceTemplatesRequestSchema],
  ["resources/read", ReadResourceRequestSchema],
  ["prompts/list", ListPromptsRequestSchema],
  ["prompts/get", GetPromptRequestSchema],
  ["completion/complete", CompleteRequestSchema],
  ["logging/setLevel", SetLevelRequestSchema],
]);

/**
 * SDK 1.x answers a known method with schema-invalid params -32603 (internal error); JSON-RPC
 * says -32602 (modelcontextprotocol/typescript-sdk#2284, fixed only on the v2 line). Such requests
 * are answered here, before the server sees them, with the same message the SDK's schema gives.
 */
function answerInvalidParams(transport: WebStandardStreamableHTTPServerTransport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const check = isJSONRPCRequest(message) ? REQUEST_SCHEMAS.get(message.method)?.safeParse(message) : undefined;
    if (!check || check.success || !isJSONRPCRequest(message)) return deliver?.(message, extra);
    const problems = check.error.issues
      .map((issue) => `${issue.path.join(".") || "params"}: ${issue.message}`)
      .join("; ");
    transport
      .send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${message.method}: ${problems}` },
      })
      .catch((error: unknown) => transport.onerror?.(error as Error));
  };
}

function requestOf(input: Input<"postMcp">, services: McpServices): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(input.headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers.set(name, String(value));
  }
  return new Request(linkTo(services.market, "mcp"), { method: "POST", headers, body: input.rawBody ?? "" });
}

async function replyOf(response: Response): Promise<Reply<"postMcp">> {
  if (response.status === 202) return { status: 202 };
  const body = { preRendered: Buffer.from(await response.arrayBuffer()) };
  switch (response.status) {
    case 200:
      return { status: 200, body };
    case 400:
    case 403:
    case 406:
    case 415:
      return { status: response.status, body };
    default:
      throw new Error(
        `the MCP transport answered ${response.status}: ${body.preRendered.toString("utf8").slice(0, 200)}`,
      );
  }
}

const rulesMemo = new WeakMap<McpServices, RebindingRules>();

/** The Host and Origin rules of this service (from PUBLIC_BASE_URL; local hosts too in development). */
export function rebindingRulesOf(services: McpServices): RebindingRules {
  const rules = rulesMemo.get(services) ?? rebindingRules(services.config);
  rulesMemo.set(services, rules);
  return rules;
}

/** A batch member that asks for an answer (a method and an id), checked without the schema: what the budget counts. */
const isRequestShaped = (message: unknown): boolean =>
  typeof message === "object" && message !== null && "method" in message && "id" in message;

/**
 * Every request of a batch is one unit of the client's query budget, taken before any runs: the
 * route's limit took one for the POST (before its body was read), this takes the rest. A batch larger
 * than the budget left is refused whole with 429 and nothing of it runs (its units are not taken).
 * Notifications and responses in a batch cost no catalog work and are not counted.
 */
async function takeBatch(body: unknown, clientIp: string, services: McpServices): Promise<void> {
  const requests = Array.isArray(body) ? body.filter(isRequestShaped).length : 1;
  if (requests <= 1) return;
  const { queryPerClientPerMinute: budget, queryBurstPerClient: burst } = services.config.work;
  if (requests > Math.min(budget, burst)) {
    throw new HttpError(
      429,
      "rate_limited",
      `This batch holds ${requests} requests; each is one unit of the query budget of ${budget} a minute per client, at most ${burst} in ${QUERY_BURST_WINDOW_SECONDS} s. Send smaller batches. Nothing of it ran.`,
    );
  }
  const seconds = await services.queryLimit.take(clientIp, requests - 1);
  if (seconds > 0) {
    throw new HttpError(
      429,
      "rate_limited",
      `This batch holds ${requests} requests, more than the query budget ${clientIp} has left (each request is one unit, ${budget} a minute, at most ${burst} in ${QUERY_BURST_WINDOW_SECONDS} s); retry in ${seconds} s or send fewer. Nothing of it ran.`,
      undefined,
      { "Retry-After": String(seconds) },
    );
  }
}

/** Answers one POST /mcp with a fresh server and transport (stateless). */
export async function answerMcpPost(input: Input<"postMcp">, services: McpServices): Promise<Reply<"postMcp">> {
  const refused = rebindingRefusal(input.headers, rebindingRulesOf(services));
  if (refused) return { status: 403, body: refusal(TRANSPORT_REFUSAL, refused) };
  const parsed = parsedJson(input.rawBody);
  // Counted before the messages are checked (a schema check of each, the costlier step): a batch over
  // the budget costs its JSON parse only.
  if (parsed) await takeBatch(parsed.value, input.clientIp, services);
  if (parsed && !isMessageOrBatch(parsed.value)) {
    return {
      status: 400,
      body: refusal(
        ErrorCode.InvalidRequest,
        "Invalid Request: the body is JSON but not a JSON-RPC 2.0 message (or a non-empty batch of them)",
      ),
    };
  }
  const server = createMarketMcpServer({ services, clientIp: input.clientIp });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  answerInvalidParams(transport);
  try {
    // Text that is not JSON goes to the SDK unparsed: it answers the parse error (-32700) itself.
    const response = await transport.handleRequest(
      requestOf(input, services),
      parsed ? { parsedBody: parsed.value } : undefined,
    );
    return await replyOf(response);
  } finally {
    await server.close();
  }
}
