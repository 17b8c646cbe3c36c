// The per-client query limit (QUERY_RATE_PER_CLIENT) counts units of catalog work, not requests:
// each catalog page or feed the response cache has not answered, each search, each A2A message and
// each request of an MCP batch. One address's flood is refused with 429 before any of that work; an
// answer already cached is served free. Each case is another client address (127.0.0.x), on both
// databases.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAt } from "../support/addressed.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const listMarket = (id: number, query: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "list_market", arguments: { query } },
});

describe.each(databaseKinds)("query limit per client ($name)", (kind) => {
  let limited: CatalogServer;
  let batched: CatalogServer;
  let bursty: CatalogServer;

  beforeAll(async () => {
    // The first two set the burst to the whole minute, so that only the minute's budget counts.
    [limited, batched, bursty] = await Promise.all([
      startCatalogServer(kind, { QUERY_RATE_PER_CLIENT: "3", QUERY_BURST_PER_CLIENT: "3" }),
      startCatalogServer(kind, { QUERY_RATE_PER_CLIENT: "150", QUERY_BURST_PER_CLIENT: "150" }),
      // The defaults: 300 a minute, at most a third of it (100) in 10 s.
      startCatalogServer(kind, { QUERY_RATE_PER_CLIENT: "300" }),
    ]);
    for (const server of [limited, batched, bursty])
      await server.list({ description: "Hourly weather forecasts for any city" });
  });
  afterAll(async () => Promise.all([limited?.close(), batched?.close(), bursty?.close()]));

  it("refuses distinct searches past the limit with 429 and Retry-After, serves a cached one; the agent endpoints share the count", async () => {
    const client = clientAt(limited.server.url, "127.0.0.2");
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof client>> | undefined;
    for (const word of ["weather", "forecast", "city", "hourly"]) {
      last = await client(`/discovery/search?query=${word}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.json().error).toBe("rate_limited");
    expect(Number(last!.headers["retry-after"])).toBeGreaterThan(0);
    // The same question again is the response cache's, sent before the limit is looked at.
    expect((await client("/discovery/search?query=weather")).status).toBe(200);
    expect((await client("/?query=rain")).status).toBe(429);
    const mcp = await client("/mcp", {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(429);
    const a2a = await client("/a2a", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: { message: { kind: "message", messageId: "1", role: "user", parts: [] } },
      }),
    });
    expect(a2a.status).toBe(429);
    // Another address has its own budget.
    expect((await clientAt(limited.server.url, "127.0.0.3")("/discovery/search?query=rain")).status).toBe(200);
  });

  it("counts each uncached catalog page and feed (random filters, aliases, since) and serves the cached ones free", async () => {
    const client = clientAt(limited.server.url, "127.0.0.4");
    const pages = [
      "/discovery/resources?offset=7",
      "/bazaar.json?network=eip155:1",
      "/feed.json?since=2029-12-31T00:00:00.000Z",
    ];
    for (const page of pages) expect((await client(page)).status).toBe(200);
    const refused = await client("/discovery/resources?offset=8");
    expect(refused.status).toBe(429);
    expect(refused.json().error).toBe("rate_limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect((await client("/feed.json?since=2029-12-30T00:00:00.000Z")).status).toBe(429);
    // What was answered already is answered again from the cache, whatever the budget says.
    for (const page of pages) expect((await client(page)).status).toBe(200);
  });

  it("counts every request of an MCP batch: a batch of 100 takes 100, one past the budget left is refused whole", async () => {
    const client = clientAt(batched.server.url, "127.0.0.5");
    const batch = (offset: number) =>
      JSON.stringify(Array.from({ length: 100 }, (_, i) => listMarket(offset + i, `weather ${offset + i}`)));
    const first = await client("/mcp", { method: "POST", headers: MCP_HEADERS, body: batch(0) });
    expect(first.status).toBe(200);
    const answers = first.json<Array<{ id: number; result?: { isError?: boolean } }>>();
    expect(answers).toHaveLength(100);
    expect(answers.every((answer) => answer.result && !answer.result.isError)).toBe(true);
    // 150 a minute: about 50 are left, so the next 100 are refused as a whole, and none of them ran.
    const second = await client("/mcp", { method: "POST", headers: MCP_HEADERS, body: batch(100) });
    expect(second.status).toBe(429);
    expect(second.json().error).toBe("rate_limited");
    expect(Number(second.headers["retry-after"])).toBeGreaterThan(0);
    // The refused batch took only its POST's unit: a single search still fits.
    expect((await client("/discovery/search?query=forecast")).status).toBe(200);
  });

  it("spends the minute's budget at most a third at a time: a batch of 100 runs, then the burst is spent", async () => {
    const client = clientAt(bursty.server.url, "127.0.0.7");
    const batch = (offset: number, length: number) =>
      JSON.stringify(Array.from({ length }, (_, i) => listMarket(offset + i, `city ${offset + i}`)));
    const tooLarge = await client("/mcp", { method: "POST", headers: MCP_HEADERS, body: batch(0, 101) });
    expect(tooLarge.status).toBe(429);
    expect(tooLarge.json().message).toMatch(/101 requests.*at most 100 in 10 s.*smaller batches/);
    const first = await client("/mcp", { method: "POST", headers: MCP_HEADERS, body: batch(200, 99) });
    expect(first.status).toBe(200);
    expect(first.json<unknown[]>()).toHaveLength(99);
    // The burst is spent (the refused batch's POST took one unit too) while 200 of the minute are left:
    // distinct searches meet 429 long before those 200, told to wait seconds, not the minute. (The
    // burst refills at 10 a second meanwhile, so a few may pass first.)
    let answered = 0;
    let refused: Awaited<ReturnType<typeof client>> | undefined;
    while (!refused && answered < 100) {
      const answer = await client(`/discovery/search?query=hourly${answered}`);
      if (answer.status === 429) refused = answer;
      else answered++;
    }
    expect(refused?.json().error).toBe("rate_limited");
    expect(answered).toBeLessThan(50);
    expect(Number(refused!.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused!.headers["retry-after"])).toBeLessThanOrEqual(10);
  });

  it("refuses a batch larger than the whole budget, saying so", async () => {
    const client = clientAt(batched.server.url, "127.0.0.6");
    const body = JSON.stringify(Array.from({ length: 151 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })));
    const refused = await client("/mcp", { method: "POST", headers: MCP_HEADERS, body });
    expect(refused.status).toBe(429);
    expect(refused.json().message).toMatch(/151 requests.*smaller batches/);
    // Nothing of it was taken: the address can still search.
    expect((await client("/discovery/search?query=city")).status).toBe(200);
  });
});
