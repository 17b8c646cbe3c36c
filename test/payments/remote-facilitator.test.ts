// A remote facilitator, configured by environment: down (a closed port), hanging, answering, or not
// supporting Base. No chain: payments are signed locally and never reach one.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { PaymentRequired } from "@x402/core/types";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { setupPayments } from "../../src/payments/setup.js";
import { handSignedHeader } from "../support/payments.js";
import { startTestServer, type TestServer } from "../support/server.js";

const PAY_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const logger = createLogger("silent");

async function closedPort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface FakeFacilitator {
  url: string;
  seen: Array<{ path: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/** A facilitator over HTTP: /supported lists `kinds`; /verify refuses every payment with `reason`; hang = never answer verify. */
async function fakeFacilitator(options: {
  kinds: unknown[];
  reason?: string;
  hang?: boolean;
}): Promise<FakeFacilitator> {
  const seen: FakeFacilitator["seen"] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ path: req.url ?? "", headers: req.headers });
    req.resume();
    if (req.url === "/supported") return res.end(JSON.stringify({ kinds: options.kinds, extensions: [], signers: {} }));
    if (options.hang) return;
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        isValid: false,
        invalidReason: options.reason ?? "invalid_exact_evm_signature",
        invalidMessage: "refused by the fake facilitator",
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const BASE_EXACT = [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }];

async function serverWith(env: Record<string, string>): Promise<TestServer> {
  const full = { MARKETPLACE_PAY_TO: PAY_TO, LOG_LEVEL: "silent", ...env };
  const payments = await setupPayments(loadConfig(full), logger);
  return startTestServer(full, { payments });
}

async function signedFee(server: TestServer): Promise<string> {
  const challenge = (await (await server.fetch("/listings/challenge")).json()) as PaymentRequired;
  return handSignedHeader(generatePrivateKey(), challenge.accepts[0]!);
}

const listing = {
  resource: "https://seller.example.com/x",
  priceUsdc: "0.01",
  description: "Never listed: the facilitator is down.",
  sellerPayTo: PAY_TO,
};
const post = (server: TestServer, header: string) =>
  server.fetch("/listings", {
    method: "POST",
    headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
    body: JSON.stringify(listing),
  });

describe("a remote facilitator that is down (a closed port)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await serverWith({ FACILITATOR_URL: `http://127.0.0.1:${await closedPort()}` });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("still presents the challenge to the unpaid probe", async () => {
    const response = await server.fetch("/listings", { method: "POST" });
    expect(response.status).toBe(402);
    expect(response.headers.get("PAYMENT-REQUIRED")).toBeTruthy();
    expect(await (await server.fetch("/facilitator.json")).json()).toMatchObject({
      mode: "remote",
      realMoney: true,
      payTo: PAY_TO,
    });
  });

  it("answers a payment with 502 JSON and saves nothing", async () => {
    const response = await post(server, await signedFee(server));
    expect(response.status).toBe(502);
    const body = await response.json();
    expect(body).toMatchObject({
      error: "facilitator_unreachable",
      message: expect.stringContaining("Nothing was charged or saved"),
    });
    expect((await server.contexts.listings.store.counts(new Date())).rawAll).toBe(0);
  });
});

describe("a remote facilitator that answers", () => {
  let facilitator: FakeFacilitator;
  let hanging: FakeFacilitator;
  beforeAll(async () => {
    facilitator = await fakeFacilitator({ kinds: BASE_EXACT, reason: "invalid_exact_evm_insufficient_balance" });
    hanging = await fakeFacilitator({ kinds: BASE_EXACT, hang: true });
  });
  afterAll(async () => {
    await facilitator?.close();
    await hanging?.close();
  });

  it("gets the auth headers on every call and its refusal reason is passed on (402)", async () => {
    const server = await serverWith({
      FACILITATOR_URL: facilitator.url,
      FACILITATOR_AUTH_HEADERS: '{"Authorization":"Bearer test-token"}',
    });
    try {
      const response = await post(server, await signedFee(server));
      expect(response.status).toBe(402);
      const body = (await response.json()) as { error: string; message: string };
      // The named reason is passed on; the facilitator's own text stays in the log.
      expect(body).toMatchObject({
        error: "invalid_exact_evm_insufficient_balance",
        message: "the facilitator refused the payment: invalid_exact_evm_insufficient_balance",
      });
      expect(facilitator.seen.map((call) => call.path)).toEqual(["/supported", "/verify"]);
      for (const call of facilitator.seen) expect(call.headers.authorization).toBe("Bearer test-token");
    } finally {
      await server.close();
    }
  });

  it("times out a facilitator that does not answer: 503 JSON, nothing saved", async () => {
    const server = await serverWith({ FACILITATOR_URL: hanging.url, FACILITATOR_TIMEOUT_MS: "1000" });
    try {
      const started = Date.now();
      const response = await post(server, await signedFee(server));
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error: "facilitator_timeout" });
      // The facilitator never answers: without the 1 s timeout this would wait for the test to time out.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect((await server.contexts.listings.store.counts(new Date())).rawAll).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("refuses to start against a facilitator without exact payments on eip155:8453", async () => {
    const other = await fakeFacilitator({ kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:84532" }] });
    try {
      const config = loadConfig({ MARKETPLACE_PAY_TO: PAY_TO, FACILITATOR_URL: other.url });
      await expect(setupPayments(config, logger)).rejects.toThrow(ConfigError);
      await expect(setupPayments(config, logger)).rejects.toThrow(
        /does not support exact payments on eip155:8453.*exact\/eip155:84532\/v2/,
      );
    } finally {
      await other.close();
    }
  });
});
