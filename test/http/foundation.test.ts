import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleListing } from "../../src/documents/listing-request.js";
import { startTestServer, type TestServer } from "../support/server.js";

const contract = JSON.parse(readFileSync("generated/openapi.json", "utf8")) as {
  paths: Record<string, Record<string, { operationId: string }>>;
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const NO_LISTING = "00000000-0000-4000-8000-000000000000";

/** A request that passes validation for a route, so what answers is the handler itself. */
function validRequest(method: string, path: string): [string, RequestInit] {
  const bodies: Record<string, string> = {
    "/mcp": '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    "/a2a": JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: {
        message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "how to buy" }] },
      },
    }),
    "/listings/validate": JSON.stringify(exampleListing({ network: "eip155:8453" })),
    "/listings": "",
    "/webhooks": JSON.stringify({ url: "https://hooks.example.com/x402", search: { q: "weather" } }),
  };
  // An owner's signed operation, well formed (its signature recovers nobody in particular).
  const signed = { nonce: `0x${"1".repeat(64)}`, deadline: 1, signature: `0x${"2".repeat(130)}` };
  const ownerBodies: Record<string, string> = {
    "post /listings/{id}/claim": JSON.stringify(signed),
    "delete /listings/{id}": JSON.stringify(signed),
    "patch /listings/{id}": JSON.stringify({ ...signed, description: "A new description" }),
  };
  // A path parameter names no listing here: its route answers 404 for it (the handler's own, not an unrouted one).
  const target = path
    .replace(/\{id\}/g, NO_LISTING)
    .replace(/\{payTo\}/g, "0x2546BcD3c84621e976D8185a91A922aE77ECEc30");
  const body = ownerBodies[`${method} ${path}`] ?? bodies[path];
  if (method !== "get" && method !== "head") {
    // The MCP transport requires a client to accept both JSON and SSE answers.
    const accept: Record<string, string> = path === "/mcp" ? { accept: "application/json, text/event-stream" } : {};
    return [target, { method: method.toUpperCase(), headers: { "content-type": "application/json", ...accept }, body }];
  }
  const queries: Record<string, string> = {
    "/listings/{id}/sign": "?action=claim",
    "/webhooks/sign": `?payTo=0x2546BcD3c84621e976D8185a91A922aE77ECEc30&url=${encodeURIComponent("https://hooks.example.com/x402")}`,
  };
  const query = target.startsWith("/discovery/search") ? "?query=weather" : (queries[path] ?? "");
  return [`${target}${query}`, { method: method.toUpperCase(), redirect: "manual" }];
}

describe("every route of the contract", () => {
  const routes = Object.entries(contract.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => ({ method, path })),
  );

  it("is routed and built: nothing answers 404 or 501, and every answer fits its contract", async () => {
    expect(routes.length).toBeGreaterThanOrEqual(147);
    for (const { method, path } of routes) {
      const [target, init] = validRequest(method, path);
      const response = await server.fetch(target, init);
      // A subscription is created (201); a subscription's own routes want its secret (401 without it).
      const answers = path.startsWith("/webhooks/{id}")
        ? [401]
        : path.includes("{")
          ? [200, 307, 402, 404, 422]
          : [200, 201, 307, 402, 422];
      expect(answers, `${method} ${target}`).toContain(response.status);
      // Status, headers, media type and body are checked against the contract by the test server itself.
      await response.arrayBuffer();
    }
  });

  it("answers HEAD wherever it answers GET, with the same status and headers and no body", async () => {
    for (const path of ["/openapi.json", "/listings/schema", "/status"]) {
      const get = await server.fetch(path);
      const head = await server.fetch(path, { method: "HEAD" });
      expect(head.status).toBe(get.status);
      expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
      expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
      expect(await head.text()).toBe("");
    }
  });
});

describe("the contract document", () => {
  it("is served byte for byte at /openapi.json and /swagger.json", async () => {
    const committed = readFileSync("generated/openapi.json");
    for (const path of ["/openapi.json", "/swagger.json"]) {
      const response = await server.fetch(path);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(Buffer.from(await response.arrayBuffer()).equals(committed)).toBe(true);
    }
  });

  it("answers 304 to a matching If-None-Match, 200 to a stale one", async () => {
    const first = await server.fetch("/openapi.json");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\/".+"$/);
    const revalidated = await server.fetch("/swagger.json", { headers: { "If-None-Match": etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(etag);
    expect(await revalidated.text()).toBe("");
    const stale = await server.fetch("/openapi.json", { headers: { "If-None-Match": 'W/"stale", "other"' } });
    expect(stale.status).toBe(200);
  });

  it("redirects /openapi.yaml to /openapi.json with 307", async () => {
    const response = await server.fetch("/openapi.yaml", { redirect: "manual" });
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe(`${server.contexts.listings.config.publicBaseUrl}/openapi.json`);
  });
});

describe("the listing schema and example", () => {
  it("serves the same bare schema at every alias, closed to unknown fields", async () => {
    const bodies = await Promise.all(
      ["/listings/schema", "/listings/schema.json", "/listing-schema.json", "/schema.json", "/schema/listing.json"].map(
        async (path) => (await server.fetch(path)).text(),
      ),
    );
    expect(new Set(bodies).size).toBe(1);
    const schema = JSON.parse(bodies[0]!);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["resource", "priceUsdc", "description", "sellerPayTo"]);
    expect(schema.properties.description).toMatchObject({ minLength: 8, maxLength: 400 });
    expect(schema.properties.method).toMatchObject({ enum: ["GET", "POST"], default: "POST" });
    expect(schema.properties.network.enum).toEqual(["eip155:8453"]);
    expect(JSON.stringify(schema)).not.toContain("$ref");
  });

  it("serves an example that the dry-run validation accepts as a body", async () => {
    const example = await (await server.fetch("/listings/example")).json();
    const response = await server.fetch("/listings/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(example),
    });
    expect(response.status).not.toBe(400);
  });
});
