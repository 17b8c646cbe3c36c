// The instance's bound on uncached catalog work (UNCACHED_CONCURRENCY, UNCACHED_SHARE): requests the
// response cache cannot answer, from any number of addresses, take turns, with a rest after each so
// that they keep to a share of the request thread; past the wait they are refused with 503 busy and
// Retry-After, while cached pages are answered as ever. The catalog reads of an MCP batch take a turn
// each, as does that of an A2A message. A client still sending its body holds no turn. Every address
// here is under its own limit.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAt, fetchFrom } from "../support/addressed.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const a2aSearch = (text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: {
      message: { kind: "message", messageId: `search-${text}`, role: "user", parts: [{ kind: "text", text }] },
    },
  });

const listMarket = (id: number, query: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "list_market", arguments: { query } },
});

describe.each(databaseKinds)("bound on uncached catalog work ($name)", (kind) => {
  // A share of 0.01% rests about 10,000 times as long as a turn's CPU time (1 ms: 10 s): the next uncached request meets the rest.
  let strict: CatalogServer;
  let queued: CatalogServer;

  beforeAll(async () => {
    [strict, queued] = await Promise.all([
      startCatalogServer(kind, { UNCACHED_CONCURRENCY: "1", UNCACHED_MAX_WAITING: "0", UNCACHED_SHARE: "0.0001" }),
      startCatalogServer(kind, {
        UNCACHED_CONCURRENCY: "1",
        UNCACHED_MAX_WAITING: "100",
        UNCACHED_WAIT_MS: "20000",
        UNCACHED_SHARE: "0.2",
      }),
    ]);
    for (const server of [strict, queued])
      for (let i = 0; i < 3; i++) await server.list({ description: `Weather listing number ${i} for paging` });
  });
  afterAll(async () => Promise.all([strict?.close(), queued?.close()]));

  it("refuses uncached work past the bound with 503 busy and Retry-After, and still answers cached pages", async () => {
    const url = strict.server.url;
    expect((await fetchFrom("127.0.0.2", `${url}/discovery/resources?limit=2`)).status).toBe(200);
    // Another address, another uncached page: the gate is resting after the first.
    const refused = await fetchFrom("127.0.0.3", `${url}/feed.json?since=2029-01-01T00:00:00.000Z`);
    expect(refused.status).toBe(503);
    expect(refused.json().error).toBe("busy");
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.headers["content-type"]).toMatch(/^application\/json/);
    // The page already answered is the response cache's, with no turn.
    expect((await fetchFrom("127.0.0.4", `${url}/discovery/resources?limit=2`)).status).toBe(200);
  });

  it("queues uncached work within the wait instead of refusing it", async () => {
    const pages = Array.from({ length: 6 }, (_, i) =>
      fetchFrom(`127.0.0.${10 + i}`, `${queued.server.url}/discovery/resources?limit=${i + 1}&offset=1`),
    );
    expect((await Promise.all(pages)).map((answer) => answer.status)).toEqual(Array(6).fill(200));
  });

  it("gives each catalog read of an MCP batch its own turn: past the bound, those reads are tool errors", async () => {
    const body = JSON.stringify([listMarket(1, "weather"), listMarket(2, "listing"), listMarket(3, "paging")]);
    const strictAnswer = await clientAt(strict.server.url, "127.0.0.20")("/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body,
    });
    expect(strictAnswer.status).toBe(200);
    const results =
      strictAnswer.json<Array<{ id: number; result: { isError?: boolean; content: Array<{ text: string }> } }>>();
    const busy = results.filter((answer) => answer.result.isError);
    expect(busy.length).toBeGreaterThan(0);
    for (const answer of busy) expect(answer.result.content[0]!.text).toMatch(/too many uncached requests/);
    // With room to wait, every read of the batch is answered.
    const queuedAnswer = await clientAt(queued.server.url, "127.0.0.21")("/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body,
    });
    const answered = queuedAnswer.json<Array<{ result: { isError?: boolean } }>>();
    expect(answered).toHaveLength(3);
    expect(answered.every((answer) => !answer.result.isError)).toBe(true);
  });

  it("gives an A2A message's catalog read a turn: past the bound, the skill's answer is the tool error", async () => {
    const answers = [];
    for (const [index, words] of ["weather agents", "paging agents"].entries()) {
      const answer = await clientAt(strict.server.url, `127.0.0.${30 + index}`)("/a2a", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: a2aSearch(words),
      });
      expect(answer.status).toBe(200);
      answers.push(
        answer.json<{
          result: { metadata: { isError: boolean }; parts: Array<{ data?: { isError?: boolean; message?: string } }> };
        }>().result,
      );
    }
    const busy = answers.filter((answer) => answer.metadata.isError);
    expect(busy.length).toBeGreaterThan(0);
    for (const answer of busy)
      expect(answer.parts[0]!.data).toEqual({
        isError: true,
        message: expect.stringMatching(/too many uncached requests/),
      });
    // With room to wait, the same message is answered.
    const queuedAnswer = await clientAt(queued.server.url, "127.0.0.32")("/a2a", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: a2aSearch("weather agents"),
    });
    expect(queuedAnswer.json<{ result: { metadata: { isError: boolean } } }>().result.metadata.isError).toBe(false);
  });

  it("gives no turn to a request whose body is still arriving", async () => {
    // A POST /mcp that sends half its body and stalls: it has not reached the gate (one turn only).
    const url = new URL(`${queued.server.url}/mcp`);
    const stalled = request({
      host: url.hostname,
      port: url.port,
      path: "/mcp",
      method: "POST",
      localAddress: "127.0.0.30",
      headers: { ...MCP_HEADERS, "content-length": "1000" },
    });
    stalled.on("error", () => {});
    stalled.write('{"jsonrpc":"2.0",');
    await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      expect((await fetchFrom("127.0.0.31", `${queued.server.url}/discovery/resources?limit=4&offset=2`)).status).toBe(
        200,
      );
    } finally {
      stalled.destroy();
    }
  });
});
