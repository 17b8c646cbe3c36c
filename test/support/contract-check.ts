// Every answer a test server gives is checked against the contract (generated/openapi.json), whichever
// client sent the request: fetch, the MCP or x402 SDKs, raw sockets, a CLI subprocess. The check taps
// the node:http server itself (its 'request', 'checkExpectation', 'clientError' and 'connect' events,
// ahead of the service's own listeners), so it also sees the answers the response cache serves before
// Koa runs and the JSON refusals written straight to the socket; src/ carries no hook and production
// pays nothing. A drifting answer is recorded when it is sent (before its client can read it) and
// fails the test that was running, from the afterEach hook this module registers.
// If the service ever answers from another node:http event (say 'upgrade'), tap it here too.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { OpenAPIBackend, Operation } from "openapi-backend";
import { afterAll, afterEach } from "vitest";

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
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, unknown>;
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

function ajvProblems(errors: Array<{ instancePath?: string; message?: string; params?: unknown }> | null | undefined): string[] {
  return (errors ?? []).map((error) => `body${error.instancePath ?? ""} ${error.message ?? "is invalid"} ${JSON.stringify(error.params ?? {})}`);
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
  if (answer.status < 400) return [`no operation of the contract answers ${method} here, yet the status is ${answer.status}`];
  const media = mediaTypeOf(answer.headers);
  if (media !== "application/json") return [`content-type ${JSON.stringify(answer.headers["content-type"] ?? null)} is not application/json (ErrorBody)`];
  if (method === "HEAD") return [];
  const parsed = parseJson(answer.body);
  if ("problem" in parsed) return [parsed.problem];
  const value = parsed.value as Record<string, unknown> | null;
  const fits = typeof value === "object" && value !== null && !Array.isArray(value) && typeof value.error === "string" && typeof value.message === "string";
  return fits ? [] : [`body is not an ErrorBody {error, message}: ${JSON.stringify(value).slice(0, 200)}`];
}

function operationProblems(api: OpenAPIBackend, operation: Operation, method: string, answer: Answer): string[] {
  const responses = (operation.responses ?? {}) as Record<string, DeclaredResponse>;
  const key = declaredKey(responses, answer.status);
  if (!key) return [`status ${answer.status} is not declared by ${operation.operationId} (declared: ${Object.keys(responses).join(", ")})`];
  const declared = responses[key]!;
  const problems: string[] = [];
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    if (header.required && !(name.toLowerCase() in answer.headers)) problems.push(`required header ${name} is missing`);
  }
  const headerErrors = api.validateResponseHeaders(answer.headers, operation, { statusCode: answer.status, setMatchType: "any" as never }).errors;
  problems.push(...(headerErrors ?? []).map((error) => `header${error.instancePath} ${error.message}`));

  const media = Object.keys(declared.content ?? {});
  const bodyless = method === "HEAD" || answer.status === 304;
  if (media.length === 0) {
    if (answer.body.length > 0) problems.push(`${key} declares no body, got ${answer.body.length} bytes of ${answer.headers["content-type"] ?? "(no content-type)"}`);
    return problems;
  }
  const sent = mediaTypeOf(answer.headers);
  if (!media.includes(sent)) {
    problems.push(`content-type ${JSON.stringify(answer.headers["content-type"] ?? null)} is not the declared ${media.join(" or ")}`);
    return problems;
  }
  if (bodyless || TEXT_MEDIA.test(sent) || !JSON_MEDIA.test(sent)) return problems;
  const parsed = parseJson(answer.body);
  if ("problem" in parsed) return [...problems, parsed.problem];
  return [...problems, ...ajvProblems(api.validateResponse(parsed.value, operation, answer.status).errors)];
}

/** The problems of one answer to `method url`, against the operation the service routes it to. */
export function contractProblems(api: OpenAPIBackend, method: string, url: string, answer: Answer): string[] {
  // The CORS preflight is answered by @koa/cors before any route, with an empty 204.
  if (method === "OPTIONS" && answer.status === 204) return answer.body.length > 0 ? ["the CORS preflight 204 carries a body"] : [];
  const path = pathOf(url);
  const operation = path === undefined ? undefined : api.router.matchOperation({ method: method === "HEAD" ? "get" : method.toLowerCase(), path, headers: {}, query: {} });
  return operation ? operationProblems(api, operation, method, answer) : errorBodyProblems(method, answer);
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

function asBuffer(chunk: unknown, encoding: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === "string") return Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
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
        record(method, url, status, contractProblems(api, method, url, { status, headers, body: Buffer.concat(chunks) }));
      } catch (error) {
        record(method, url, res.statusCode, [`the contract check itself failed: ${(error as Error).stack ?? String(error)}`]);
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

/** Checks every answer `server` gives from now on against the operations of `api`. */
export function checkEveryAnswer(server: Server, api: OpenAPIBackend): void {
  const tap = (req: IncomingMessage, res: ServerResponse) => tapResponse(api, req, res);
  server.prependListener("request", tap);
  server.prependListener("checkExpectation", tap);
  server.prependListener("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => tapSocket(socket, "(unparsed request)", error.code ?? "clientError"));
  server.prependListener("connect", (req: IncomingMessage, socket: Duplex) => tapSocket(socket, req.method ?? "CONNECT", req.url ?? "?"));
}
