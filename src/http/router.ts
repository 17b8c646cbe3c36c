import type { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { OpenAPIBackend, type Document, type Operation, type ParsedRequest } from "openapi-backend";
import { canonicalOf, type CanonicalOperationId, type RoutedOperationId } from "../../generated/operations.js";
import type { Contract } from "../contract/load.js";
import { HttpError, fieldErrorsFromAjv, summarise } from "../contract/errors.js";
import type { ContractHandler, ContractHandlerMap, Input } from "../contract/typed-handlers.js";

export interface RoutedRequest {
  method: string;
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  headers: Record<string, string | string[]>;
  body: unknown;
  /** The body as received, for operations marked `x-raw-body` (their `body` is undefined). */
  rawBody?: string;
  /** The client's address, handed to handlers as `clientIp`. */
  clientIp?: string;
}

/** A handler's reply once it left the typed world: the adapter only needs its shape. */
export interface AnyReply {
  operationId: string;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Set for bodies that are not JSON. */
  contentType?: string;
  /** The catalog freshness the body was rendered at: the reply may be served again while it holds. */
  cacheToken?: string;
  /** With cacheToken: the clock's time (ms) from which it may not be served again even while the token holds. */
  cacheUntil?: number;
}

/**
 * openapi-backend rebuilds its operation list (lodash chains over every path) on each
 * request; the contract never changes at run time, so compute it once.
 */
function memoiseOperations(api: OpenAPIBackend): void {
  const router = api.router;
  const operations = router.getOperations();
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  router.getOperations = () => operations;
  router.getOperation = (operationId: string) => byId.get(operationId);
}

const JSON_RPC_INVALID_REQUEST = -32600;

/** Whether the contract answers this operation's 400 with a JSON-RPC error object. */
function answersJsonRpc400(operation: unknown): boolean {
  const content = (
    operation as { responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> }
  ).responses?.["400"]?.content;
  return Object.values(content ?? {}).some(
    (media) => media.schema?.$ref === "#/components/schemas/JsonRpcErrorResponse",
  );
}

export interface Router {
  /** Validates a request routed to `operationId` against the contract and answers it with its handler. */
  dispatch(operationId: RoutedOperationId, request: RoutedRequest): Promise<AnyReply>;
  /** Whether the contract marks this operation `x-raw-body`: its body is handed over unparsed (POST /mcp). */
  takesRawBody(operationId: RoutedOperationId): boolean;
}

/** openapi-backend over the contract, initialised: the router's validator (and the tests' response checks, test/support/harness.ts). */
export async function createContractBackend(contract: Contract): Promise<OpenAPIBackend> {
  const sharedAjv = new Map<string, Ajv>();
  const api = new OpenAPIBackend({
    definition: contract.document as unknown as Document,
    strict: true,
    // Quick mode compiles each operation's validators on first use instead of all ~180 at start.
    // It skips the definition check, which the contract test runs instead.
    quick: true,
    validate: true,
    coerceTypes: true,
    ajvOpts: { allErrors: true, useDefaults: true },
    // openapi-backend makes a new Ajv for every operation's every validator, and each compiles the
    // JSON Schema meta-schema again: one Ajv per set of options instead (every operation compiled:
    // 2.4 s of CPU -> 0.7 s; ~13 -> 4 ms on an operation's first request).
    customizeAjv: (ajv, ajvOpts) => {
      const key = JSON.stringify(ajvOpts);
      let shared = sharedAjv.get(key);
      if (!shared) {
        addFormats.default(ajv, { mode: "full" });
        sharedAjv.set(key, (shared = ajv));
      }
      return shared;
    },
  });
  await api.init();
  memoiseOperations(api);
  return api;
}

/**
 * openapi-backend validates each request against its operation (query, headers, body, with type
 * coercion and defaults); the operation's handler answers it. The path is matched once, by
 * @koa/router (src/http/routes.ts), which names the operation.
 */
export async function createRouter<S>(
  contract: Contract,
  handlers: ContractHandlerMap<S>,
  services: S,
): Promise<Router> {
  const api = await createContractBackend(contract);

  const rawBodyOperations = new Set<string>();
  const jsonRpcRefusals = new Set<string>();
  for (const item of Object.values(contract.document.paths)) {
    for (const operation of Object.values(item) as Array<{ operationId: string; "x-raw-body"?: boolean }>) {
      if (operation["x-raw-body"] === true) rawBodyOperations.add(operation.operationId);
      if (answersJsonRpc400(operation)) jsonRpcRefusals.add(operation.operationId);
    }
  }

  const validationFail = (operationId: string, errors: Parameters<typeof fieldErrorsFromAjv>[0]): AnyReply => {
    const fields = fieldErrorsFromAjv(errors);
    if (jsonRpcRefusals.has(operationId)) {
      // POST /mcp: every refusal before a method runs is a JSON-RPC error, a bad query string too.
      const error = {
        code: JSON_RPC_INVALID_REQUEST,
        message: `Invalid Request: ${summarise(fields)}.`,
        data: { fields },
      };
      return { operationId, status: 400, body: { jsonrpc: "2.0", id: null, error } };
    }
    throw new HttpError(400, "invalid_request", `Invalid request: ${summarise(fields)}.`, fields);
  };

  /** The handler of each routed operationId, given the validated, coerced request. */
  const answer = new Map<string, (parsed: ParsedRequest, request: RoutedRequest) => Promise<AnyReply>>();
  for (const [operationId, canonical] of Object.entries(canonicalOf) as [RoutedOperationId, CanonicalOperationId][]) {
    const handler = handlers[canonical] as ContractHandler<typeof canonical, S>;
    const run = async (parsed: ParsedRequest, request: RoutedRequest): Promise<AnyReply> => {
      const input = {
        operationId,
        path: parsed.path,
        params: parsed.params,
        query: parsed.query,
        headers: parsed.headers,
        body: parsed.requestBody,
        rawBody: request.rawBody,
        clientIp: request.clientIp ?? "unknown",
      } as unknown as Input<typeof canonical>;
      const reply = await handler(input, services);
      return { ...reply, operationId } as AnyReply;
    };
    answer.set(operationId, run);
  }

  return {
    dispatch: async (operationId, request) => {
      const operation = api.router.getOperation(operationId);
      const run = answer.get(operationId);
      if (!operation || !run) throw new Error(`no operation ${operationId} in the contract`);
      // As openapi-backend's handleRequest does once it has matched the operation.
      const validation = api.validator.validateRequest(request, operation);
      if (validation.errors) return validationFail(operationId, validation.errors);
      return run(api.router.parseRequest(validation.coerced ?? request, operation), request);
    },
    takesRawBody: (operationId) => rawBodyOperations.has(operationId),
  };
}

export type { Operation };
