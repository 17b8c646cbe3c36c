// The demo area: the /kr-* endpoints ask for their seed inventory price, paid to the marketplace
// wallet, and the seed inventory is exactly the demo routes of the contract. Buying one on a chain
// is test/payments/demo-endpoints.test.ts.
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED_INVENTORY } from "../../src/catalog/seed-inventory.js";
import { normalizePrice } from "../../src/storage/listing/listing-store.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { callRoute, describeAreaRoutes, jsonOf, routesOf, type RouteAnswer } from "./area-routes.js";

const ORIGIN = "https://market.example.test";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ PUBLIC_BASE_URL: ORIGIN, LOAD_SEED: "true" });
});
afterAll(async () => {
  await server?.close();
});

/** An unpaid call: 402 asking for the route's seed price, to the marketplace wallet, for this resource. */
function asksForItsPrice(answer: RouteAnswer): void {
  const seed = SEED_INVENTORY.find((resource) => resource.path === answer.route.path)!;
  const challenge = decodePaymentRequiredHeader(answer.headers.get("PAYMENT-REQUIRED")!);
  expect(challenge.accepts).toEqual([
    expect.objectContaining({
      scheme: "exact",
      network: "eip155:8453",
      amount: normalizePrice(seed.priceUsdc).priceAtomic,
      payTo: server.contexts.listings.market.payTo,
    }),
  ]);
  expect(challenge.resource).toMatchObject({ url: `${ORIGIN}${seed.path}`, description: seed.description });
  // The body repeats the challenge, with what to do.
  const body = jsonOf<{ accepts: unknown[]; message: string }>(answer);
  expect(body.accepts).toEqual(challenge.accepts);
  expect(body.message).toContain(seed.priceUsdc);
  expect(body.message).toContain(seed.path);
}

describeAreaRoutes(
  "demo",
  () => server,
  {
    getDemoResource: { status: 402, check: asksForItsPrice },
    postDemoResource: { status: 402, request: { body: { hello: "x402" } }, check: asksForItsPrice },
  },
  // /kr-time and /kr-fortune share an operation but are different resources at different prices.
  { aliasesDiffer: true },
);

describe("the seed inventory", () => {
  it("is exactly the demo routes of the contract, each with its method (both ways)", () => {
    const routes = routesOf("demo").map((route) => `${route.method} ${route.path}`);
    const inventory = SEED_INVENTORY.map((seed) => `${seed.method} ${seed.path}`);
    expect(new Set(inventory).size).toBe(inventory.length);
    expect([...inventory].sort()).toEqual([...routes].sort());
  });

  it("is what the catalog lists as leftover seed rows, at this origin, with the same method and price", async () => {
    const { items } = (await (await server.fetch("/bazaar.json?includeSeed=true")).json()) as {
      items: Array<{ resource: string; method: string; metadata: { priceUsdc: string; leftoverSeed: boolean } }>;
    };
    const rows = items
      .filter((item) => item.metadata.leftoverSeed)
      .map((item) => `${item.method} ${item.resource} ${item.metadata.priceUsdc}`);
    expect(rows.sort()).toEqual(
      SEED_INVENTORY.map((seed) => `${seed.method} ${ORIGIN}${seed.path} ${seed.priceUsdc}`).sort(),
    );
  });
});

describe("a demo route called wrongly", () => {
  it("refuses a payment that is not an x402 payment with 402 and a fresh challenge, charging nothing", async () => {
    const [route] = routesOf("demo");
    const answer = await callRoute(server, route!, { headers: { "PAYMENT-SIGNATURE": "not a payment" } });
    expect(answer.status).toBe(402);
    expect(decodePaymentRequiredHeader(answer.headers.get("PAYMENT-REQUIRED")!).accepts).toHaveLength(1);
    expect(answer.headers.get("PAYMENT-RESPONSE")).toBeNull();
  });

  it("answers another method with 405 naming the route's own", async () => {
    for (const route of routesOf("demo")) {
      const other = route.method === "GET" ? "POST" : "GET";
      const response = await server.fetch(route.path, {
        method: other,
        ...(other === "POST" && { headers: { "content-type": "application/json" }, body: "{}" }),
      });
      expect(response.status, `${other} ${route.path}`).toBe(405);
      expect(response.headers.get("allow")).toContain(route.method);
      await response.arrayBuffer();
    }
  });
});
