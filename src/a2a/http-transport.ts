// POST /a2a: the Koa adapter hands over the unparsed body; this parses it once, picks the SDK's
// JSON-RPC transport handler for the requested A2A version (0.3 without an A2A-Version header, as
// the SDK's own server does) and turns its JSON-RPC envelope into a reply.
import { A2A_ERROR_CODE, ContentTypeNotSupportedError } from "@a2a-js/sdk/errors";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from "@a2a-js/sdk/server";
import type { Input, Reply } from "../contract/typed-handlers.js";
import { A2A_TRANSPORT } from "../documents/agent-manifests.js";
import type { MarketToolServices } from "../market-tools/context.js";
import { coreCardOf, marketRequestHandler } from "./agent.js";

interface Envelope {
  jsonrpc: "2.0";
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

type ErrorMapper = (error: unknown) => { code: number; message: string; data?: unknown };

/** Errors of the message itself, before any method ran: the HTTP request was bad (400). */
const MALFORMED = new Set<number>([A2A_ERROR_CODE.PARSE_ERROR, A2A_ERROR_CODE.INVALID_REQUEST]);

/** A version as clients send it (`0.3`, `0.3.0`, `1.0`) in the `major.minor` form of the card's interfaces. */
function majorMinor(version: string): string {
  const match = /^(\d+)\.(\d+)/.exec(version.trim());
  return match ? `${Number(match[1])}.${Number(match[2])}` : version.trim();
}

function requestedVersionOf(input: Input<"postA2a">): string {
  const header = input.headers["a2a-version"];
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() ? majorMinor(value) : "0.3";
}

function idOf(message: unknown): unknown {
  return typeof message === "object" && message !== null && "id" in message
    ? ((message as { id?: unknown }).id ?? null)
    : null;
}

function replyOf(envelope: Envelope): Reply<"postA2a"> {
  const body = { preRendered: Buffer.from(JSON.stringify(envelope)) };
  if (envelope.error && MALFORMED.has(envelope.error.code)) return { status: 400, body };
  return { status: 200, body };
}

const isStream = (value: unknown): value is AsyncGenerator<Envelope> =>
  typeof value === "object" && value !== null && typeof (value as AsyncGenerator)[Symbol.asyncIterator] === "function";

/**
 * The card offers no streaming, so the SDK refuses streaming methods when the stream is first read:
 * that refusal is the answer. A stream that did start is closed and answered as not offered.
 */
async function firstOf(stream: AsyncGenerator<Envelope>, id: unknown, mapError: ErrorMapper): Promise<Envelope> {
  try {
    await stream.next();
    await stream.return(undefined);
    return {
      jsonrpc: "2.0",
      id,
      error: { code: A2A_ERROR_CODE.UNSUPPORTED_OPERATION, message: "Streaming is not supported." },
    };
  } catch (error) {
    return { jsonrpc: "2.0", id, error: mapError(error) };
  }
}

function contentTypeRefusal(input: Input<"postA2a">): string | undefined {
  const type = input.headers["content-type"];
  if (type === undefined) return undefined;
  const mediaType = String(type).split(";", 1)[0]!.trim().toLowerCase();
  return mediaType === "application/json"
    ? undefined
    : `Unsupported Content-Type "${String(type)}"; expected application/json.`;
}

/** Answers one POST /a2a with a fresh request handler (stateless). */
export async function answerA2aPost(input: Input<"postA2a">, services: MarketToolServices): Promise<Reply<"postA2a">> {
  const refused = contentTypeRefusal(input);
  if (refused) {
    const error = JsonRpcTransportHandler.mapToJSONRPCError(new ContentTypeNotSupportedError(refused));
    return { status: 415, body: { jsonrpc: "2.0", id: null, error } };
  }
  let message: unknown;
  try {
    message = JSON.parse(input.rawBody ?? "");
  } catch {
    return replyOf({
      jsonrpc: "2.0",
      id: null,
      error: { code: A2A_ERROR_CODE.PARSE_ERROR, message: "Parse error: the body is not JSON." },
    });
  }
  const version = requestedVersionOf(input);
  const legacy = version.startsWith("0.");
  const mapError: ErrorMapper = legacy
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError;
  const card = coreCardOf(services.market);
  const handler = marketRequestHandler(card, { services, clientIp: input.clientIp });
  try {
    validateVersion(version, card, A2A_TRANSPORT);
  } catch (error) {
    return replyOf({ jsonrpc: "2.0", id: idOf(message), error: mapError(error) });
  }
  const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
  const answer = (await transport.handle(
    message as Record<string, unknown>,
    new ServerCallContext({ requestedVersion: version }),
  )) as Envelope | AsyncGenerator<Envelope>;
  return replyOf(isStream(answer) ? await firstOf(answer, idOf(message), mapError) : answer);
}
