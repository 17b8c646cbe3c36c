// The contract says which operations are paid, and how, the way discovery crawlers read it: every
// operation has a summary (an alias says whose) and an explicit `security: []` (no route takes
// credentials), and the paid ones (those that answer 402) carry `x-payment-info` whose price,
// network and asset are what their live 402 asks. @agentcash/discovery, run against this server's
// /openapi.json, finds them as paid at those prices.
import { discoverOriginSchema, getWarningsForOpenAPI, getOpenAPI } from "@agentcash/discovery";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_USDC, NETWORK } from "../../src/constants.js";
import { normalizePrice } from "../../src/storage/listing/listing-store.js";
import { rawContract } from "../support/raw-contract.js";
import { startTestServer, type TestServer } from "../support/server.js";

interface Operation {
  operationId: string;
  summary?: string;
  security?: unknown[];
  responses: Record<string, unknown>;
  "x-payment-info"?: {
    price: { mode: string; currency: string; amount: string };
    protocols: Array<{ x402?: Record<string, string> }>;
  };
}

const operations = Object.entries(rawContract.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    path,
    method: method.toUpperCase(),
    operation: operation as unknown as Operation,
  })),
);
const paid = operations.filter(({ operation }) => "402" in operation.responses);
const byId = new Map(operations.map((entry) => [entry.operation.operationId, entry]));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOAD_SEED: "true" });
});
afterAll(async () => {
  await server?.close();
});

describe("what generated/openapi.json tells a crawler", () => {
  it("every operation has a summary and an explicit empty security requirement", () => {
    expect(
      operations.filter(({ operation }) => !operation.summary).map(({ method, path }) => `${method} ${path}`),
    ).toEqual([]);
    expect(
      operations
        .filter(({ operation }) => !Array.isArray(operation.security) || operation.security.length > 0)
        .map(({ method, path }) => `${method} ${path}`),
    ).toEqual([]);
  });

  it("an alias's summary is its canonical operation's, naming the canonical path (unless it is a paid demo of its own)", () => {
    const aliases = operations.filter(
      ({ operation }) => operation.operationId.includes("__") && !operation["x-payment-info"],
    );
    expect(aliases.length).toBeGreaterThan(50);
    for (const { operation } of aliases) {
      const canonical = byId.get(operation.operationId.split("__")[0]!)!;
      expect(operation.summary).toBe(`${canonical.operation.summary} (alias of ${canonical.path})`);
    }
  });

  it("the paid operations are POST /listings and the /kr-* demos, each with x-payment-info; no free one has it", () => {
    expect(paid.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      "GET /kr-fortune",
      "GET /kr-time",
      "POST /kr-echo",
      "POST /listings",
    ]);
    expect(
      operations.filter(({ operation }) => operation["x-payment-info"] && !("402" in operation.responses)),
    ).toEqual([]);
    for (const { operation } of paid) {
      expect(operation["x-payment-info"]).toEqual({
        price: { mode: "fixed", currency: "USD", amount: expect.stringMatching(/^\d+\.\d+$/) },
        protocols: [{ x402: { scheme: "exact", network: NETWORK, asset: BASE_USDC } }],
      });
    }
  });

  for (const { method, path, operation } of paid) {
    it(`${method} ${path}: x-payment-info is what its 402 asks`, async () => {
      const answer = await server.fetch(path, { method });
      expect(answer.status).toBe(402);
      const [accepted] = decodePaymentRequiredHeader(answer.headers.get("PAYMENT-REQUIRED")!).accepts;
      const info = operation["x-payment-info"]!;
      expect(accepted).toMatchObject({
        scheme: info.protocols[0]!.x402!.scheme,
        network: info.protocols[0]!.x402!.network,
        asset: info.protocols[0]!.x402!.asset,
        amount: normalizePrice(info.price.amount).priceAtomic,
      });
    });
  }

  it("@agentcash/discovery reads this origin's /openapi.json: paid routes paid at their prices, the rest unprotected, no error", async () => {
    const discovery = await discoverOriginSchema({ target: server.url });
    expect(discovery.found).toBe(true);
    if (!discovery.found) return;
    const endpoints = new Map(discovery.endpoints.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint]));
    for (const { method, path, operation } of paid) {
      expect(endpoints.get(`${method} ${path}`)).toMatchObject({
        authMode: "paid",
        price: `${operation["x-payment-info"]!.price.amount} USD`,
      });
    }
    const free = discovery.endpoints.filter(
      (endpoint) => !paid.some(({ method, path }) => endpoint.method === method && endpoint.path === path),
    );
    expect(free.filter((endpoint) => endpoint.authMode !== "unprotected")).toEqual([]);

    const openApi = await getOpenAPI(server.url);
    expect(openApi.isOk()).toBe(true);
    const warnings = getWarningsForOpenAPI(openApi.isOk() ? openApi.value : null);
    expect(warnings.filter((warning) => warning.severity === "error")).toEqual([]);
  });
});
