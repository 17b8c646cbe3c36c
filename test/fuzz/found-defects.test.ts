// Defects the fuzz suite (operations-sqlite.test.ts, operations-postgres.test.ts) found, each pinned by the request that showed it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe.each(databaseKinds)("defects found by fuzzing ($kind)", (kind) => {
  let market: CatalogServer;
  let listedId: string;

  beforeAll(async () => {
    market = await startCatalogServer(kind);
    listedId = (await market.list()).id;
  });

  afterAll(() => market?.close());

  it("reads the whole feed for a `since` before year 1 (PostgreSQL answered 503: it has no year 0000)", async () => {
    for (const since of ["0000-01-01T00:00:00Z", "0000-12-31T23:59:59.999Z"]) {
      const { status, body } = await market.json<{ items: Array<{ metadata: { listingId: string } }>; since: string }>(
        `/feed.json?since=${since}`,
      );
      expect(status, since).toBe(200);
      expect(body.items.map((item) => item.metadata.listingId)).toEqual([listedId]);
      expect(body.since).toBe("0001-01-01T00:00:00.000Z");
    }
  });

  it("refuses a leap-second `since` with a 400 naming it (it was a 500: a Date cannot hold 23:59:60)", async () => {
    for (const path of ["/feed.json", "/feed", "/listings/feed"]) {
      const { status, body, headers } = await market.json<{ error: string; fields: unknown[] }>(
        `${path}?since=2030-06-30T23:59:60Z`,
      );
      expect(status, path).toBe(400);
      expect(headers.get("content-type")).toMatch(/^application\/json/);
      expect(body.error).toBe("invalid_request");
      expect(body.fields).toEqual([{ in: "query", field: "since", message: expect.stringContaining("leap second") }]);
    }
  });

  it("refuses a bad query string on POST /mcp with a JSON-RPC error, as the contract says (it was an ErrorBody)", async () => {
    const { status, body } = await market.json<{
      jsonrpc: string;
      id: unknown;
      error: { code: number; message: string };
    }>("/mcp?zzz=1", {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: expect.stringContaining("zzz") },
    });
  });
});
