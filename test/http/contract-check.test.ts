// The automatic contract check of the test server (test/support/contract-check.ts) must catch an
// answer that drifts from the contract, whichever path it took: a handler's answer, its repeat from
// the response cache, node:http's own refusals written to the socket.
import { createServer } from "node:http";
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { taggedJson } from "../../src/contract/rendered.js";
import { handlers } from "../../src/handlers/index.js";
import type { Reply } from "../../src/contract/typed-handlers.js";
import {
  checkEveryAnswer,
  failOnContractViolations,
  takeContractViolations,
  type ContractViolation,
} from "../support/contract-check.js";
import { contractApi } from "../support/harness.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** Sends raw bytes and resolves with everything the server answered before it closed. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
  });
}

describe("the contract check of every test-server answer", () => {
  let server: TestServer;
  /** What the replaced getStatus answers; `cache`: may the response cache serve it again. */
  const wrong = { status: 0, body: {} as unknown, etag: true, cache: false };

  beforeAll(async () => {
    // The router takes each handler when the server starts: replace getStatus before that.
    vi.spyOn(handlers, "getStatus").mockImplementation(async (_input, contexts) => {
      const { token } = await contexts.catalog.freshness.current();
      const reply = taggedJson(wrong.body, token);
      if (!wrong.etag) delete (reply.headers as Partial<typeof reply.headers>).ETag;
      return {
        ...reply,
        status: wrong.status,
        cacheToken: wrong.cache ? token : undefined,
      } as unknown as Reply<"getStatus">;
    });
    server = await startTestServer();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await server.close();
  });
  afterEach(() => {
    wrong.status = 0;
    wrong.etag = true;
    wrong.cache = false;
  });

  function drifts(): ContractViolation[] {
    return takeContractViolations();
  }

  it("fails on a body that does not fit the declared schema, and again on its repeat from the response cache", async () => {
    Object.assign(wrong, { status: 200, body: { unexpected: true }, cache: true });
    const first = await server.fetch("/status");
    expect(first.status).toBe(200);
    wrong.body = { different: "the cache answers, not the handler" };
    const again = await server.fetch("/status");
    expect(await again.json()).toEqual({ unexpected: true });
    expect(again.status).toBe(200);
    const found = drifts();
    expect(found).toHaveLength(2);
    for (const violation of found) {
      expect(violation).toMatchObject({ method: "GET", path: "/status", status: 200 });
      expect(violation.problems.join("\n")).toMatch(/must have required property|must NOT have additional properties/);
    }
    // The repeat came from the cache: its 304 is checked too (and fits: a 304 has no body).
    const notModified = await server.fetch("/status", { headers: { "If-None-Match": first.headers.get("etag")! } });
    expect(notModified.status).toBe(304);
    expect(drifts()).toEqual([]);
  });

  it("fails on a status the operation does not declare", async () => {
    Object.assign(wrong, { status: 201, body: { unexpected: true } });
    expect((await server.fetch("/status.json")).status).toBe(201);
    const [violation] = drifts();
    expect(violation?.problems).toEqual([
      expect.stringMatching(/^status 201 is not declared by getStatus \(declared: 200, 304, default\)/),
    ]);
  });

  it("fails on a missing required header, HEAD included", async () => {
    Object.assign(wrong, { status: 200, body: { unexpected: true }, etag: false });
    expect((await server.fetch("/status.json", { method: "HEAD" })).status).toBe(200);
    const [violation] = drifts();
    expect(violation).toMatchObject({ method: "HEAD", status: 200 });
    expect(violation?.problems).toEqual(["required header ETag is missing"]);
  });

  it("accepts the ErrorBody of answers no operation gives (404, 405) and of node:http's refusals", async () => {
    expect((await server.fetch("/no-such-route")).status).toBe(404);
    expect((await server.fetch("/status.json", { method: "DELETE" })).status).toBe(405);
    const port = Number(new URL(server.url).port);
    expect(
      await rawExchange(port, "GET /status.json HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
    ).toMatch(/^HTTP\/1\.1 400 /);
    expect(drifts()).toEqual([]);
  });

  it("fails on a refusal written straight to the socket that is not an ErrorBody", async () => {
    const bare = createServer();
    bare.on("clientError", (_error, socket) => socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"));
    checkEveryAnswer(bare, await contractApi());
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    const port = (bare.address() as { port: number }).port;
    expect(await rawExchange(port, "NOT HTTP\r\n\r\n")).toMatch(/^HTTP\/1\.1 400 /);
    await new Promise((resolve) => bare.close(resolve));
    const [violation] = drifts();
    expect(violation).toMatchObject({ status: 400 });
    expect(violation?.problems).toEqual([expect.stringMatching(/content-type null is not application\/json/)]);
  });

  it("names the method, path, status and errors when it fails the test", async () => {
    Object.assign(wrong, { status: 200, body: [] });
    await (await server.fetch("/status.json")).arrayBuffer();
    expect(() => failOnContractViolations()).toThrow(
      /1 answer\(s\) of the test server drift from the contract[\s\S]*GET \/status\.json -> 200:\n {4}- body must be object/,
    );
    expect(drifts()).toEqual([]);
  });
});
