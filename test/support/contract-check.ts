// Every answer a test server gives is checked against the contract (generated/openapi.json), whichever
// client sent the request: fetch, the MCP or x402 SDKs, raw sockets, a CLI subprocess. The check taps
// the node:http server itself (its 'request', 'checkExpectation', 'clientError' and 'connect' events,
// ahead of the service's own listeners), so it also sees the answers the response cache serves before
// Koa runs and the JSON refusals written straight to the socket; src/ carries no hook and production
// pays nothing. A drifting answer is recorded when it is sent (before its client can read it) and
// fails the test that was running, from the afterEach hook this module registers.
// If the service ever answers from another node:http event (say 'upgrade'), tap it here too.
import { createHash } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { OpenAPIBackend, Operation } from "openapi-backend";
import { afterAll, afterEach } from "vitest";
import { canonicalOf } from "../../generated/operations.js";

export interface ContractViolation {
  method: string;
  path: string;
  status: number;
  problems: string[];
}

export interface Answer {
  status: number;
  /** Lower-case names, as sent. */
  headers: Record<string, string>;
  body: Buffer;
}

interface DeclaredResponse {
  headers?: Record<string, { required?: boolean; schema?: unknown }>;
  content?: Record<string, unknown>;
}

/** Bounded memo of a per-answer cost, cleared when full. */
class Memo<V> {
  private readonly entries = new Map<string, V>();
  get(key: string, compute: () => V): V {
    const known = this.entries.get(key);
    if (known !== undefined || this.entries.has(key)) return known as V;
    if (this.entries.size >= 10_000) this.entries.clear();
    const value = compute();
    this.entries.set(key, value);
    return value;
  }
}

const violations: ContractViolation[] = [];

/** The violations recorded since the last call, which are then forgotten (for tests of the check itself). */
export function takeContractViolations(): ContractViolation[] {
  return violations.splice(0);
}

function describeViolation(violation: ContractViolation): string {
  return `${violation.method} ${violation.path} -> ${violation.status}:\n${violation.problems.map((problem) => `    - ${problem}`).join("\n")}`;
}

/** Throws, naming every answer that drifted from the contract since the last check. */
export function failOnContractViolations(): void {
  const found = takeContractViolations();
  if (found.length === 0) return;
  throw new Error(
    `${found.length} answer(s) of the test server drift from the contract (generated/openapi.json). ` +
      `Fix the answer, or the TypeSpec in spec/ if the answer is right:\n  ${found.map(describeViolation).join("\n  ")}`,
  );
}

afterEach(failOnContractViolations);
afterAll(failOnContractViolations);

const TEXT_MEDIA = /^(?:text\/|application\/(?:atom|rss)\+xml$)/;
const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/;

function mediaTypeOf(headers: Record<string, string>): string {
  return (headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

function ajvProblems(
  errors: Array<{ instancePath?: string; message?: string; params?: unknown }> | null | undefined,
): string[] {
  return (errors ?? []).map(
    (error) => `body${error.instancePath ?? ""} ${error.message ?? "is invalid"} ${JSON.stringify(error.params ?? {})}`,
  );
}

function parseJson(body: Buffer): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(body.toString("utf8")) as unknown };
  } catch {
    return { problem: `body is not JSON: ${JSON.stringify(body.subarray(0, 120).toString("utf8"))}` };
  }
}

function declaredKey(responses: Record<string, DeclaredResponse>, status: number): string | undefined {
  if (String(status) in responses) return String(status);
  const range = `${Math.floor(status / 100)}XX`;
  if (range in responses) return range;
  // `default` is the contract's "any other error" (ErrorBody): it never stands for a success.
  return status >= 400 && "default" in responses ? "default" : undefined;
}

/** Problems of an answer that no operation gave (404, 405, node:http's refusals): an ErrorBody. */
function errorBodyProblems(method: string, answer: Answer): string[] {
  // OPTIONS on a path of the contract is the router's, like HEAD: 200, the path's methods in Allow, no body.
  if (method === "OPTIONS" && answer.status === 200) {
    return answer.headers.allow && answer.body.length === 0 ? [] : ["OPTIONS 200 without Allow, or with a body"];
  }
  if (answer.status < 400)
    return [`no operation of the contract answers ${method} here, yet the status is ${answer.status}`];
  const media = mediaTypeOf(answer.headers);
  if (media !== "application/json")
    return [
      `content-type ${JSON.stringify(answer.headers["content-type"] ?? null)} is not application/json (ErrorBody)`,
    ];
  if (method === "HEAD") return [];
  const parsed = parseJson(answer.body);
  if ("problem" in parsed) return [parsed.problem];
  const value = parsed.value as Record<string, unknown> | null;
  const fits =
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    typeof value.error === "string" &&
    typeof value.message === "string";
  return fits ? [] : [`body is not an ErrorBody {error, message}: ${JSON.stringify(value).slice(0, 200)}`];
}

function operationProblems(
  api: OpenAPIBackend,
  operation: Operation,
  routedId: string,
  method: string,
  answer: Answer,
): string[] {
  const responses = (operation.responses ?? {}) as Record<string, DeclaredResponse>;
  const key = declaredKey(responses, answer.status);
  if (!key)
    return [`status ${answer.status} is not declared by ${routedId} (declared: ${Object.keys(responses).join(", ")})`];
  const declared = responses[key]!;
  const problems: string[] = [];
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    if (header.required && !(name.toLowerCase() in answer.headers)) problems.push(`required header ${name} is missing`);
  }
  // Every header on the wire is a string: only a declared schema that asks more needs openapi-backend's
  // header validators (each costs ~10 ms to compile; none of today's contract does).
  const typed = Object.values(declared.headers ?? {}).some(
    (header) => JSON.stringify(header.schema ?? {}) !== '{"type":"string"}',
  );
  if (typed) {
    const headerErrors = api.validateResponseHeaders(answer.headers, operation, {
      statusCode: answer.status,
      setMatchType: "any" as never,
    }).errors;
    problems.push(...(headerErrors ?? []).map((error) => `header${error.instancePath} ${error.message}`));
  }

  const media = Object.keys(declared.content ?? {});
  const bodyless = method === "HEAD" || answer.status === 304;
  if (media.length === 0) {
    if (answer.body.length > 0)
      problems.push(
        `${key} declares no body, got ${answer.body.length} bytes of ${answer.headers["content-type"] ?? "(no content-type)"}`,
      );
    return problems;
  }
  const sent = mediaTypeOf(answer.headers);
  if (!media.includes(sent)) {
    problems.push(
      `content-type ${JSON.stringify(answer.headers["content-type"] ?? null)} is not the declared ${media.join(" or ")}`,
    );
    return problems;
  }
  if (bodyless || TEXT_MEDIA.test(sent) || !JSON_MEDIA.test(sent)) return problems;
  return [...problems, ...bodyProblems(api, operation, answer)];
}

const bodies = new Memo<string[]>();

/** Schema problems of a JSON body; a large body already checked for this operation and status is not parsed again. */
function bodyProblems(api: OpenAPIBackend, operation: Operation, answer: Answer): string[] {
  const check = () => {
    const parsed = parseJson(answer.body);
    if ("problem" in parsed) return [parsed.problem];
    return ajvProblems(api.validateResponse(parsed.value, operation, answer.status).errors);
  };
  // Hashing costs more than checking a small body again; large documents (the contract, catalogs) repeat.
  if (answer.body.length < 16 * 1024) return check();
  return bodies.get(
    `${operation.operationId} ${answer.status} ${createHash("sha1").update(answer.body).digest("base64")}`,
    check,
  );
}

/** The problems of one answer to `method url`, against the operation the service routes it to. */
export function contractProblems(api: OpenAPIBackend, method: string, url: string, answer: Answer): string[] {
  // The CORS preflight is answered by @koa/cors before any route, with an empty 204.
  if (method === "OPTIONS" && answer.status === 204)
    return answer.body.length > 0 ? ["the CORS preflight 204 carries a body"] : [];
  const path = pathOf(url);
  const operation =
    path === undefined ? undefined : routeOf(api, method === "HEAD" ? "get" : method.toLowerCase(), path);
  return operation
    ? operationProblems(api, declaringOperation(api, operation), operation.operationId!, method, answer)
    : errorBodyProblems(method, answer);
}

interface RouteTable {
  byPath: Map<string, Map<string, Operation>>;
  /** The templated operations with their patterns, most specific first (fewest characters in templates), built once. */
  templates: Array<{ operation: Operation; pattern: RegExp }>;
}

const routeTables = new WeakMap<OpenAPIBackend, RouteTable>();

/**
 * The operation the service routes `method path` to, as openapi-backend's matchOperation finds it:
 * the exact path first, then the path templates, most specific first. Its matcher builds every
 * template's pattern again on each call (~100 µs for the contract's dozen templated paths, which the
 * fuzz's 30k mangled paths each pay); here they are built once, from its own tables and normalisation.
 */
function routeOf(api: OpenAPIBackend, method: string, path: string): Operation | undefined {
  let table = routeTables.get(api);
  if (!table) {
    table = { byPath: new Map(), templates: [] };
    for (const operation of api.router.getOperations()) {
      let methods = table.byPath.get(operation.path);
      if (!methods) table.byPath.set(operation.path, (methods = new Map()));
      methods.set(operation.method, operation);
      if (operation.path.includes("{")) table.templates.push({ operation, pattern: templatePattern(operation.path) });
    }
    // Stable, as lodash's orderBy there: equally specific templates keep the contract's order.
    const literalLength = (template: string) => template.replace(/\{.*?\}/g, "").length;
    table.templates.sort((a, b) => literalLength(b.operation.path) - literalLength(a.operation.path));
    routeTables.set(api, table);
  }
  const request = api.router.normalizeRequest({ method, path, headers: {} });
  // Under another apiRoot than the contract's "/", openapi-backend's own matcher decides.
  if (api.router.apiRoot !== "/") return api.router.matchOperation(request);
  const normalized = api.router.normalizePath(request.path);
  const exact = table.byPath.get(normalized)?.get(request.method);
  if (exact) return exact;
  return table.templates.find(
    ({ operation, pattern }) => operation.method === request.method && pattern.test(normalized),
  )?.operation;
}

/** openapi-backend's pattern of a path template: each `{name}` is one segment, the rest literal. */
function templatePattern(template: string): RegExp {
  const literals = template.replace(/\{[^}]+\}/g, "\0").split("\0");
  return new RegExp(`^${literals.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]+")}$`);
}

const declaring = new WeakMap<OpenAPIBackend, Map<string, Operation>>();

/**
 * The operation whose validators check this one's answers: its canonical operation when the alias
 * declares the very same responses (all do, being generated from it), so the 150 routes compile the
 * validators of 48 operations, not 150 (openapi-backend compiles them per operationId, ~20 ms each).
 * The fuzz's own checks (test/fuzz/checks.ts) validate through it too, reusing these validators.
 */
export function declaringOperation(api: OpenAPIBackend, operation: Operation): Operation {
  let known = declaring.get(api);
  if (!known) declaring.set(api, (known = new Map()));
  const id = operation.operationId!;
  let chosen = known.get(id);
  if (!chosen) {
    const canonical = api.router.getOperation((canonicalOf as Record<string, string>)[id] ?? id);
    chosen =
      canonical && JSON.stringify(canonical.responses) === JSON.stringify(operation.responses) ? canonical : operation;
    known.set(id, chosen);
  }
  return chosen;
}

/** The path Koa routes on: the request-target's path, also for an absolute-form target. */
function pathOf(url: string): string | undefined {
  if (url.startsWith("/")) return url.split("?")[0];
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

function record(method: string, path: string, status: number, problems: string[]): void {
  if (problems.length > 0) violations.push({ method, path, status, problems });
}

function headersOf(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(statusLine.split(" ")[1]), headers };
}

/** What the client reads once it undoes the Content-Encoding (src/http/compression.ts). */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  if (body.length === 0 || !encoding) return body;
  if (encoding === "gzip") return gunzipSync(body);
  if (encoding === "br") return brotliDecompressSync(body);
  throw new Error(`unexpected Content-Encoding ${encoding}`);
}

function asBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === "string")
    return Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
  return Buffer.from(chunk as Uint8Array);
}

/** Collects what a response writes and checks it once it ends. */
function tapResponse(api: OpenAPIBackend, req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  const write = res.write;
  const end = res.end;
  let checked = false;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (chunk !== undefined && chunk !== null) chunks.push(asBuffer(chunk, rest[0]));
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse["write"];
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (chunk !== undefined && chunk !== null && typeof chunk !== "function") chunks.push(asBuffer(chunk, rest[0]));
    // An answer to a connection already closing never reaches its client (Koa then ends it empty).
    const deliverable = !this.socket || this.socket.writable;
    const result = (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    const head = (this as unknown as { _header?: string | null })._header;
    if (!checked && head && deliverable) {
      checked = true;
      const method = req.method ?? "?";
      const url = req.url ?? "?";
      try {
        const { status, headers } = headersOf(head);
        record(
          method,
          url,
          status,
          contractProblems(api, method, url, {
            status,
            headers,
            body: decoded(Buffer.concat(chunks), headers["content-encoding"]),
          }),
        );
      } catch (error) {
        record(method, url, res.statusCode, [
          `the contract check itself failed: ${(error as Error).stack ?? String(error)}`,
        ]);
      }
    }
    return result;
  } as ServerResponse["end"];
}

/** Checks the next answer written straight to a socket (node:http's refusals: framing errors, CONNECT). */
function tapSocket(socket: Duplex, method: string, path: string): void {
  const end = socket.end;
  socket.end = function (this: Duplex, chunk?: unknown, ...rest: unknown[]) {
    socket.end = end;
    if (typeof chunk === "string" || Buffer.isBuffer(chunk)) {
      const text = asBuffer(chunk, rest[0]);
      const split = text.indexOf("\r\n\r\n");
      const { status, headers } = headersOf(text.subarray(0, split < 0 ? text.length : split).toString("latin1"));
      const answer = { status, headers, body: split < 0 ? Buffer.alloc(0) : text.subarray(split + 4) };
      record(method, path, status, errorBodyProblems(method, answer));
    }
    return (end as (...args: unknown[]) => Duplex).call(this, chunk, ...rest);
  } as Duplex["end"];
}

let firstApi: OpenAPIBackend | undefined;

/** Checks every answer `server` gives from now on against the operations of `api`. */
export function checkEveryAnswer(server: Server, serverApi: OpenAPIBackend): void {
  // Every server of a test file loads the same contract: the first one's validators serve them all.
  const api = (firstApi ??= serverApi);
  const tap = (req: IncomingMessage, res: ServerResponse) => tapResponse(api, req, res);
  server.prependListener("request", tap);
  server.prependListener("checkExpectation", tap);
  server.prependListener("clientError", (error: NodeJS.ErrnoException, socket: Duplex) =>
    tapSocket(socket, "(unparsed request)", error.code ?? "clientError"),
  );
  server.prependListener("connect", (req: IncomingMessage, socket: Duplex) =>
    tapSocket(socket, req.method ?? "CONNECT", req.url ?? "?"),
  );
}
