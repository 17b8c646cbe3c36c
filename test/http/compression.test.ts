// gzip and brotli as a client meets them on the wire (node:http, which, unlike fetch, hands over the
// encoded bytes): large answers arrive encoded and decode to the identity bytes, from the app and from
// the response cache alike; small ones are not encoded; ETag and 304 hold across encodings.
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { parseMetrics, sampleSum } from "../support/metrics.js";
import { startTestServer, type TestServer } from "../support/server.js";

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function rawGet(base: string, path: string, headers: Record<string, string>, method = "GET"): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const decode = { gzip: gunzipSync, br: brotliDecompressSync } as const;

describe("compressed answers", () => {
  let server: TestServer;
  let identity: RawAnswer;
  beforeAll(async () => {
    server = await startTestServer();
    identity = await rawGet(server.url, "/openapi.json", {});
  });
  afterAll(async () => {
    await server?.close();
  });

  it("sends openapi.json unencoded to a client that asks for no encoding", () => {
    expect(identity.status).toBe(200);
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.headers.vary).toMatch(/Accept-Encoding/);
    expect(identity.body.length).toBeGreaterThan(100_000);
    expect(JSON.parse(identity.body.toString("utf8"))).toHaveProperty("openapi");
  });

  it("sends the 402 of an unpaid POST /listings encoded as each request asks, decoding to the same bytes every time", async () => {
    const plain = await rawGet(server.url, "/listings", {}, "POST");
    expect(plain.status).toBe(402);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(plain.body.toString("utf8"))).toMatchObject({
      x402Version: 2,
      error: "payment_required",
      message: expect.any(String),
    });
    // Alternating encodings: each answer is its own encoding's bytes, whatever was sent before.
    for (const encoding of ["br", "gzip", "br", "gzip"] as const) {
      const answer = await rawGet(server.url, "/listings", { "Accept-Encoding": encoding }, "POST");
      expect(answer.status).toBe(402);
      expect(answer.headers["content-encoding"]).toBe(encoding);
      expect(answer.headers["payment-required"]).toBe(plain.headers["payment-required"]);
      expect(decode[encoding](answer.body).equals(plain.body)).toBe(true);
    }
  });

  for (const encoding of ["gzip", "br"] as const) {
    it(`sends openapi.json ${encoding}-encoded, decoding to the same bytes`, async () => {
      for (let round = 0; round < 2; round++) {
        const answer = await rawGet(server.url, "/openapi.json", { "Accept-Encoding": encoding });
        expect(answer.status).toBe(200);
        expect(answer.headers["content-encoding"]).toBe(encoding);
        expect(answer.headers.vary).toMatch(/Accept-Encoding/);
        expect(answer.headers.etag).toBe(identity.headers.etag);
        expect(answer.body.length).toBeLessThan(identity.body.length / 4);
        expect(decode[encoding](answer.body).equals(identity.body)).toBe(true);
      }
    });
  }

  it("prefers brotli when a client takes both, and honours q=0", async () => {
    const both = await rawGet(server.url, "/openapi.json", { "Accept-Encoding": "gzip, deflate, br" });
    expect(both.headers["content-encoding"]).toBe("br");
    const noBrotli = await rawGet(server.url, "/openapi.json", { "Accept-Encoding": "br;q=0, gzip" });
    expect(noBrotli.headers["content-encoding"]).toBe("gzip");
    const none = await rawGet(server.url, "/openapi.json", { "Accept-Encoding": "identity" });
    expect(none.headers["content-encoding"]).toBeUndefined();
    expect(none.body.equals(identity.body)).toBe(true);
  });

  it("answers 304 to If-None-Match whatever the encoding asked, with Vary", async () => {
    const etag = String(identity.headers.etag);
    for (const acceptEncoding of ["gzip", "br", "identity"]) {
      const answer = await rawGet(server.url, "/openapi.json", {
        "Accept-Encoding": acceptEncoding,
        "If-None-Match": etag,
      });
      expect(answer.status).toBe(304);
      expect(answer.body.length).toBe(0);
      expect(answer.headers.etag).toBe(etag);
      expect(answer.headers.vary).toMatch(/Accept-Encoding/);
    }
  });

  it("leaves small answers unencoded", async () => {
    const small = await rawGet(server.url, "/livez", { "Accept-Encoding": "gzip, br" });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers["content-encoding"]).toBeUndefined();
    const notFound = await rawGet(server.url, "/no-such-page", { "Accept-Encoding": "gzip, br" });
    expect(notFound.status).toBe(404);
    expect(notFound.headers["content-encoding"]).toBeUndefined();
  });

  it("answers HEAD with the encoding's headers and no body", async () => {
    const get = await rawGet(server.url, "/openapi.json", { "Accept-Encoding": "gzip" });
    const head = await rawGet(server.url, "/openapi.json", { "Accept-Encoding": "gzip" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-encoding"]).toBe("gzip");
    expect(head.headers["content-length"]).toBe(get.headers["content-length"]);
  });
});

describe.each(databaseKinds)("compressed answers of the response cache on $kind", (kind) => {
  let market: CatalogServer;
  beforeAll(async () => {
    market = await startCatalogServer(kind);
    for (let n = 0; n < 5; n++)
      await market.list({
        description: `A paid endpoint number ${n} for the compression tests, described at some length`,
      });
  });
  afterAll(async () => {
    await market?.close();
  });

  const cachedReads = async () =>
    sampleSum(parseMetrics(await (await market.server.fetch("/metrics")).text()), "x402_http_requests_total", {
      cached: "true",
    });

  it("serves a repeated feed read from the cache encoded as the app did, the same bytes decoded, and 304 after", async () => {
    const plain = await rawGet(market.server.url, "/feed.json", {});
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const encoding of ["gzip", "br"] as const) {
      const before = await cachedReads();
      const fromCache = await rawGet(market.server.url, "/feed.json", { "Accept-Encoding": encoding });
      expect(await cachedReads()).toBe(before + 1);
      expect(fromCache.headers["content-encoding"]).toBe(encoding);
      expect(fromCache.headers.vary).toBe("Accept-Encoding, Origin");
      expect(Number(fromCache.headers["content-length"])).toBe(fromCache.body.length);
      expect(fromCache.headers.etag).toBe(plain.headers.etag);
      expect(decode[encoding](fromCache.body).equals(plain.body)).toBe(true);
    }
    const revalidated = await rawGet(market.server.url, "/feed.json", {
      "Accept-Encoding": "br",
      "If-None-Match": String(plain.headers.etag),
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.vary).toBe("Accept-Encoding, Origin");
    const again = await rawGet(market.server.url, "/feed.json", {});
    expect(again.headers["content-encoding"]).toBeUndefined();
    expect(again.body.equals(plain.body)).toBe(true);
  });

  it("sends the first (uncached) read compressed by the app with the same headers the cache sends", async () => {
    const path = "/feed.rss";
    const fromApp = await rawGet(market.server.url, path, { "Accept-Encoding": "gzip" });
    const fromCache = await rawGet(market.server.url, path, { "Accept-Encoding": "gzip" });
    expect(fromApp.headers["content-encoding"]).toBe("gzip");
    expect(fromCache.headers["content-encoding"]).toBe("gzip");
    expect(fromApp.headers.vary).toBe(fromCache.headers.vary);
    expect(gunzipSync(fromApp.body).equals(gunzipSync(fromCache.body))).toBe(true);
  });
});
