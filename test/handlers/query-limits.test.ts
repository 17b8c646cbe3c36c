// The per-client query limit (QUERY_RATE_PER_CLIENT): searches the response cache has not seen, the
// web catalog's search, POST /mcp and POST /a2a cost milliseconds of CPU each, so one address's
// flood is refused with 429 before any of that work; an answer already cached is served free.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

const [sqlite] = databaseKinds;

describe("query limit per client", () => {
  let limited: CatalogServer;

  beforeAll(async () => {
    limited = await startCatalogServer(sqlite!, { QUERY_RATE_PER_CLIENT: "3" });
    await limited.list({ description: "Hourly weather forecasts for any city" });
  });
  afterAll(async () => limited?.close());

  it("refuses distinct searches past the limit with 429 and Retry-After, serves a cached one, and leaves other reads alone", async () => {
    const statuses: number[] = [];
    let last: { status: number; body: { error?: string; message?: string }; headers: Headers } | undefined;
    for (const word of ["weather", "forecast", "city", "hourly"]) {
      last = await limited.json(`/discovery/search?query=${word}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last?.body.error).toBe("rate_limited");
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    // The same question again is the response cache's, sent before the limit is looked at.
    expect((await limited.json("/discovery/search?query=weather")).status).toBe(200);
    // The web catalog's search and the agent endpoints share the count; its plain pages do not.
    expect((await limited.server.fetch("/?query=rain")).status).toBe(429);
    expect((await limited.server.fetch("/")).status).toBe(200);
    const mcp = await limited.server.fetch("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(429);
    const a2a = await limited.server.fetch("/a2a", {
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
    expect((await limited.json("/discovery/resources?limit=1")).status).toBe(200);
  });
});
