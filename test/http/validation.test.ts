import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleListing } from "../../src/documents/listing-request.js";
import { startTestServer, type TestServer } from "../support/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ MAX_BODY_BYTES: "4096" });
});
afterAll(async () => {
  await server?.close();
});

interface ErrorBody {
  error: string;
  message: string;
  fields?: Array<{ in: string; field: string; message: string }>;
}

async function errorOf(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: ErrorBody; headers: Headers }> {
  const response = await server.fetch(path, init);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return { status: response.status, body: (await response.json()) as ErrorBody, headers: response.headers };
}

const postJson = (body: string, contentType = "application/json"): RequestInit => ({
  method: "POST",
  headers: { "content-type": contentType },
  body,
});

describe("bad query parameters get 400 naming each parameter", () => {
  const cases: Array<[string, string, string]> = [
    ["/discovery/resources?limit=0", "limit", "must be >= 1"],
    ["/discovery/resources?limit=201", "limit", "must be <= 200"],
    ["/resources?limit=abc", "limit", "must be integer"],
    ["/discovery/resources?offset=-1", "offset", "must be >= 0"],
    ["/discovery/search?query=x&type=grpc", "type", "must be one of: http, mcp"],
    ["/discovery/search?query=x&payTo=0x12", "payTo", "must match pattern"],
    ["/discovery/search", "query", "is required"],
    ["/bazaar.json?includeSeed=maybe", "includeSeed", "must be boolean"],
    ["/search?leftoverSeed=yes", "leftoverSeed", "must be one of: true, false"],
    ["/feed.json?since=yesterday", "since", "must be a valid date-time"],
    ["/feed.json?limit=1.5", "limit", "must be integer"],
    ["/feed.json?since=2026-13-45T99:99:99Z", "since", "must be a valid date-time"],
    ["/resources?limit=5&limit=6", "limit", "must be integer"],
  ];
  for (const [path, field, message] of cases) {
    it(`${path} -> ${field}`, async () => {
      const { status, body } = await errorOf(path);
      expect(status).toBe(400);
      expect(body.error).toBe("invalid_request");
      expect(body.fields).toContainEqual({ in: "query", field, message: expect.stringContaining(message) });
      expect(body.message).toContain(field);
    });
  }

  it("reports every offending parameter at once", async () => {
    const { body } = await errorOf("/discovery/search?limit=0&offset=-3");
    expect(body.fields?.map((field) => field.field).sort()).toEqual(["limit", "offset", "query"]);
  });
});

describe("bad listing bodies get 400 naming each field", () => {
  const valid = exampleListing({ network: "eip155:8453" });
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ["unknown field", { ...valid, price: "1" }, "/price", "is not an allowed field"],
    ["missing resource", { ...valid, resource: undefined }, "/resource", "is required"],
    ["http resource", { ...valid, resource: "http://seller.example.com/x" }, "/resource", "must match pattern"],
    ["short description", { ...valid, description: "short" }, "/description", "fewer than 8"],
    ["long description", { ...valid, description: "x".repeat(401) }, "/description", "more than 400"],
    ["bad method", { ...valid, method: "PUT" }, "/method", "must be one of: GET, POST"],
    ["other network", { ...valid, network: "eip155:1" }, "/network", "must be one of: eip155:8453"],
    ["float price", { ...valid, priceUsdc: 0.03 }, "/priceUsdc", "must be string"],
    ["seven decimals", { ...valid, priceUsdc: "0.0000001" }, "/priceUsdc", "must match pattern"],
    ["short address", { ...valid, sellerPayTo: "0x1234" }, "/sellerPayTo", "must match pattern"],
    ["schema not an object", { ...valid, inputSchema: "yes" }, "/inputSchema", "must be object"],
  ];
  for (const [name, body, field, message] of cases) {
    it(`${name} -> ${field}`, async () => {
      const { status, body: error } = await errorOf("/listings/validate", postJson(JSON.stringify(body)));
      expect(status).toBe(400);
      expect(error.fields).toContainEqual({ in: "body", field, message: expect.stringContaining(message) });
    });
  }

  it("rejects the same bodies on the paid route before any payment is asked for", async () => {
    const { status, body } = await errorOf("/listings", postJson(JSON.stringify({ ...valid, extra: true })));
    expect(status).toBe(400);
    expect(body.fields).toContainEqual({ in: "body", field: "/extra", message: "is not an allowed field" });
  });

  it("asks for a body on the dry run", async () => {
    const { status, body } = await errorOf("/listings/validate", { method: "POST" });
    expect(status).toBe(400);
    expect(body.fields).toContainEqual({ in: "body", field: "", message: "a JSON body is required" });
  });

  it("answers 400 to JSON that does not parse", async () => {
    const { status, body } = await errorOf("/listings/validate", postJson('{"resource": '));
    expect(status).toBe(400);
    expect(body.error).toBe("invalid_json");
  });

  it("answers 400 to a JSON body that is not an object", async () => {
    const { status, body } = await errorOf("/listings/validate", postJson("[1,2]"));
    expect(status).toBe(400);
    expect(body.fields?.[0]).toMatchObject({ in: "body", message: "must be object" });
  });

  it("answers 413 to a body over the limit", async () => {
    const { status, body } = await errorOf(
      "/listings/validate",
      postJson(JSON.stringify({ ...valid, inputSchema: { pad: "x".repeat(5000) } })),
    );
    expect(status).toBe(413);
    expect(body.error).toBe("payload_too_large");
  });

  it("answers 415 to a body that is not JSON", async () => {
    const { status, body } = await errorOf(
      "/listings/validate",
      postJson("resource=https://x", "application/x-www-form-urlencoded"),
    );
    expect(status).toBe(415);
    expect(body.error).toBe("unsupported_media_type");
  });

  it("answers 415 to JSON declared in another charset than UTF-8, and takes UTF-8 however it is spelled", async () => {
    const latin1 = await errorOf(
      "/listings/validate",
      postJson(JSON.stringify(valid), "application/json; charset=latin1"),
    );
    expect(latin1.status).toBe(415);
    expect(latin1.body).toMatchObject({
      error: "unsupported_media_type",
      message: expect.stringContaining("charset=latin1"),
    });
    for (const type of [
      "application/json; charset=utf-8",
      'application/json; charset="UTF-8"',
      "application/json;charset=utf8",
    ]) {
      expect(
        (await errorOf("/listings/validate", postJson(JSON.stringify({ ...valid, description: "x" }), type))).status,
        type,
      ).toBe(400);
    }
  });
});

describe("unknown paths and methods", () => {
  it("answers 404 JSON to an unknown path", async () => {
    const { status, body } = await errorOf("/no/such/route");
    expect(status).toBe(404);
    expect(body).toMatchObject({ error: "not_found", message: expect.stringContaining("/no/such/route") });
  });

  it("answers 405 with Allow to a wrong method", async () => {
    const { status, body, headers } = await errorOf("/openapi.json", { method: "DELETE" });
    expect(status).toBe(405);
    expect(headers.get("allow")).toBe("GET, HEAD");
    expect(body.error).toBe("method_not_allowed");
    const listings = await errorOf("/listings", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(listings.status).toBe(405);
    expect(listings.headers.get("allow")).toBe("GET, POST, HEAD");
  });

  it("never answers 500 to hostile input", async () => {
    const paths = [
      "/search?q=%E0%A4%A",
      "/%",
      "/discovery/search?query=%00",
      "/feed.json?since=2026-13-45T99:99:99Z",
      "/search?limit[]=1",
      "/search?__proto__[x]=1",
    ];
    for (const path of paths) {
      const response = await server.fetch(path);
      expect(response.status, path).not.toBe(500);
      expect(response.headers.get("content-type"), path).toMatch(/^application\/json/);
    }
  });
});
