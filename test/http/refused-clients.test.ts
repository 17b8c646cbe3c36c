// A client the query budget refused is answered 429 at the entry until its Retry-After is over
// (src/http/refused-clients.ts): the same JSON, Retry-After and CORS headers as the route's limit,
// for catalog-work routes only, by the address Koa would see. A real HTTP server; the clock is the
// test's, so the expiry needs no waiting.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOG_WORK } from "../../src/handlers/route-middleware.js";
import { RefusedClients } from "../../src/http/refused-clients.js";
import { fetchFrom } from "../support/addressed.js";

let now = 1_000_000;
const direct = new RefusedClients(CATALOG_WORK, false, () => now);
const proxied = new RefusedClients(CATALOG_WORK, true, () => now);
const servers: Server[] = [];

async function serve(refused: RefusedClients): Promise<string> {
  const server = createServer((req, res) => {
    if (!refused.tryRefuse(req, res)) res.end("the app answered");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let url: string;
let proxyUrl: string;
beforeAll(async () => {
  [url, proxyUrl] = await Promise.all([serve(direct), serve(proxied)]);
});
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

describe("clients refused by the query budget", () => {
  it("are answered 429 on catalog-work routes until their Retry-After, then reach the app again", async () => {
    direct.refuse("127.0.0.40", 3);
    const refused = await fetchFrom("127.0.0.40", `${url}/discovery/search?query=anything`, {
      headers: { origin: "https://buyer.example" },
    });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("3");
    expect(refused.headers["content-type"]).toMatch(/^application\/json/);
    expect(refused.headers["access-control-allow-origin"]).toBe("*");
    expect(refused.json()).toEqual({
      error: "rate_limited",
      message: expect.stringMatching(/from 127\.0\.0\.40; retry in 3 s/),
    });
    // A route that is not catalog work, and another address, are the app's.
    expect((await fetchFrom("127.0.0.40", `${url}/openapi.json`)).text).toBe("the app answered");
    expect((await fetchFrom("127.0.0.41", `${url}/discovery/search?query=x`)).text).toBe("the app answered");
    // POST /mcp and a trailing slash are the same routes.
    expect((await fetchFrom("127.0.0.40", `${url}/mcp`, { method: "POST", body: "[]" })).status).toBe(429);
    expect((await fetchFrom("127.0.0.40", `${url}/discovery/resources/`)).status).toBe(429);
    now += 1_500;
    expect((await fetchFrom("127.0.0.40", `${url}/discovery/resources`)).headers["retry-after"]).toBe("2");
    now += 1_500;
    expect((await fetchFrom("127.0.0.40", `${url}/discovery/resources`)).text).toBe("the app answered");
  });

  it("behind a proxy, go by the first X-Forwarded-For address, as Koa's ctx.ip does", async () => {
    proxied.refuse("203.0.113.7", 5);
    const forwarded = (address: string) => ({ headers: { "x-forwarded-for": `${address}, 10.0.0.1` } });
    expect((await fetchFrom("127.0.0.42", `${proxyUrl}/feed.json`, forwarded("203.0.113.7"))).status).toBe(429);
    expect((await fetchFrom("127.0.0.42", `${proxyUrl}/feed.json`, forwarded("203.0.113.8"))).text).toBe(
      "the app answered",
    );
  });
});
