// GET /metrics as Prometheus scrapes it, after real traffic: a listing paid on the local chain by the
// SDK's stock buyer, a payment the facilitator refuses, a probe of a seller that does not answer 402,
// and cached reads. Also: the token, the request id in replies and in the payment's log lines, and
// /livez and /readyz on the same running service.
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import type { Payments } from "../../src/payments/setup.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { checkEveryAnswer } from "../support/contract-check.js";
import { contractApi } from "../support/harness.js";
import { parseMetrics, sampleSum } from "../support/metrics.js";
import { chainPayments, handSignedHeader, payingFetch } from "../support/payments.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  SELLER_PAY_TO,
  startSeller,
  summariseListing,
  type Seller,
} from "../support/sellers.js";
import type { PaymentRequired } from "@x402/core/types";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const TOKEN = "metrics-token-for-tests-0123456789";

let chain: LocalChain;
let payments: Payments;
let seller: Seller;
let server: RunningServer;
const logs: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 2 });
  payments = await chainPayments(chain);
  seller = await startSeller(() =>
    challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "30000", asset: chain.asset })])),
  );
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean))
        logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({
    PORT: "0",
    LOAD_SEED: "false",
    DATABASE_URL: `file:${join(mkdtempSync(join(tmpdir(), "ops-metrics-")), "m.db")}`,
    ALLOW_LOOPBACK_SELLERS: "true",
    RECONCILE_INTERVAL_SECONDS: "0",
    PAYMENT_RATE_PER_CLIENT: "100000",
    PROBE_RATE_PER_CLIENT: "1000",
    PROBE_RATE_PER_HOST: "1000",
    METRICS_TOKEN: TOKEN,
  });
  server = await startServer(config, createLogger("info", sink), { payments, shutdownGraceMs: 500 });
  checkEveryAnswer(server.server, await contractApi());
});

afterAll(async () => {
  await server?.close();
  await seller?.close();
  await chain?.stop();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

async function scrape(): Promise<Map<string, number>> {
  const response = await get("/metrics", { authorization: `Bearer ${TOKEN}` });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return parseMetrics(await response.text());
}

/** How much each sample grew while `act` ran. */
async function growth(act: () => Promise<void>): Promise<(name: string, labels?: Record<string, string>) => number> {
  const before = await scrape();
  await act();
  const after = await scrape();
  return (name, labels = {}) => sampleSum(after, name, labels) - sampleSum(before, name, labels);
}

describe("GET /metrics", () => {
  it("refuses a scrape without the bearer token, or with a wrong one, with 401", async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer wrong-token-wrong-token-wrong" },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const response = await get("/metrics", headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await response.json()).toMatchObject({ error: "unauthorized" });
    }
  });

  it("counts a listing paid on the chain: payment verified and settled, probe ok, createListing 200, facilitator and database timed", async () => {
    let requestId = "";
    const grew = await growth(async () => {
      const response = await payingFetch(chain, chain.buyers[0]!.privateKey)(`${server.url}/listings`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": "paid-listing-1" },
        body: JSON.stringify(summariseListing(seller, { method: "POST" })),
      });
      expect(response.status).toBe(200);
      requestId = response.headers.get("x-request-id")!;
    });
    expect(grew("x402_payments_total", { outcome: "verified", stage: "verify" })).toBe(1);
    expect(grew("x402_payments_total", { outcome: "settled", stage: "settle" })).toBe(1);
    expect(grew("x402_payments_total", { outcome: "failed" })).toBe(0);
    expect(grew("x402_seller_probes_total", { outcome: "ok" })).toBe(1);
    expect(grew("x402_http_requests_total", { operation: "createListing", status: "200", cached: "false" })).toBe(1);
    // The stock buyer first gets the 402 challenge, then pays.
    expect(grew("x402_http_requests_total", { operation: "createListing", status: "402" })).toBe(1);
    expect(grew("x402_facilitator_request_duration_seconds_count", { call: "verify", outcome: "ok" })).toBe(1);
    expect(grew("x402_facilitator_request_duration_seconds_count", { call: "settle", outcome: "ok" })).toBe(1);
    expect(grew("x402_database_query_duration_seconds_count", { database: "sqlite" })).toBeGreaterThan(0);

    // The paid request's id (the one the client sent) is on its payment's log line and its access line.
    expect(requestId).toBe("paid-listing-1");
    expect(logs.find((line) => line.msg === "listing paid")).toMatchObject({ requestId });
    // The stock buyer sends the same headers twice: unpaid (402), then paid (200).
    const accessLines = logs.filter((line) => line.msg === "request" && line.requestId === requestId);
    expect(accessLines.map((line) => [line.operation, line.status, line.cached])).toEqual([
      ["createListing", 402, false],
      ["createListing", 200, false],
    ]);
  });

  it("counts a payment the facilitator refuses as failed at verify", async () => {
    const feeChallenge = (await (await get("/listings/challenge")).json()) as PaymentRequired;
    const header = await handSignedHeader(chain.buyers[1]!.privateKey, feeChallenge.accepts[0]!, { value: "50000" });
    const grew = await growth(async () => {
      const response = await post(
        "/listings",
        summariseListing(seller, { method: "POST", resource: `${seller.url}/api/refused` }),
        {
          "payment-signature": header,
        },
      );
      expect(response.status).toBe(402);
    });
    expect(grew("x402_payments_total", { outcome: "failed", stage: "verify" })).toBe(1);
    expect(grew("x402_payments_total", { outcome: "settled" })).toBe(0);
    expect(grew("x402_http_requests_total", { operation: "createListing", status: "402" })).toBe(1);
  });

  it("counts a failed seller probe by its code", async () => {
    const honest = seller.answer;
    seller.answer = () => ({ status: 200, body: "{}" });
    try {
      const grew = await growth(async () => {
        const response = await post(
          "/listings/validate",
          summariseListing(seller, { method: "POST", resource: `${seller.url}/api/free` }),
        );
        expect(response.status).toBe(422);
      });
      expect(grew("x402_seller_probes_total", { outcome: "not_402" })).toBe(1);
      expect(grew("x402_seller_probes_total", { outcome: "ok" })).toBe(0);
      expect(grew("x402_seller_probe_duration_seconds_count", { outcome: "not_402" })).toBe(1);
    } finally {
      seller.answer = honest;
    }
  });

  it("counts an answer of the response cache as cached, under its operation", async () => {
    await (await get("/bazaar.json?limit=7")).text();
    const grew = await growth(async () => {
      const again = await get("/bazaar.json?limit=7");
      expect(again.status).toBe(200);
      await again.text();
    });
    expect(grew("x402_http_requests_total", { operation: "getCatalog", status: "200", cached: "true" })).toBe(1);
    expect(grew("x402_http_request_duration_seconds_count", { operation: "getCatalog", cached: "true" })).toBe(1);
  });

  it("carries the process defaults and the reconciler gauges", async () => {
    const samples = await scrape();
    expect(sampleSum(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sampleSum(samples, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(samples.has("x402_reconciler_backlog")).toBe(true);
    expect(samples.has("x402_reconciler_oldest_pending_age_seconds")).toBe(true);
  });

  it("is listed in no catalog document", async () => {
    for (const path of ["/crawl.json", "/llms.txt", "/discovery", "/linkset.json"]) {
      const text = await (await get(path)).text();
      for (const route of ["/metrics", "/livez", "/readyz"])
        expect(text, path).not.toContain(`${server.contexts.listings.config.publicBaseUrl}${route}`);
    }
  });
});

describe("request ids", () => {
  it("echoes a sane X-Request-Id, replaces one that is not, and gives every reply one", async () => {
    expect((await get("/livez", { "x-request-id": "lb-7f3a:42" })).headers.get("x-request-id")).toBe("lb-7f3a:42");
    const replaced = (await get("/livez", { "x-request-id": "no spaces or\ttabs" })).headers.get("x-request-id");
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    const cached = await get("/bazaar.json?limit=7");
    expect(cached.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const line = logs.findLast(
      (entry) => entry.msg === "request" && entry.requestId === cached.headers.get("x-request-id"),
    );
    expect(line).toMatchObject({ cached: true, operation: "getCatalog", path: "/bazaar.json" });
  });
});

describe("/livez and /readyz", () => {
  it("answers /livez and, with every dependency up, /readyz 200; neither is cached", async () => {
    const live = await get("/livez");
    expect(live.status).toBe(200);
    expect(live.headers.get("cache-control")).toBe("no-store");
    expect(await live.json()).toMatchObject({ status: "ok", uptimeSeconds: expect.any(Number) });
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
    expect(ready.headers.get("cache-control")).toBe("no-store");
    expect(await ready.json()).toMatchObject({
      status: "ready",
      checks: { database: { ok: true }, migrations: { ok: true }, payments: { ok: true } },
    });
  });

  it("turns /readyz 503 when a migration is missing, and 200 again once it is back", async () => {
    const prisma = server.database.prisma;
    const [row] = await prisma.$queryRawUnsafe<Array<{ id: string; migration_name: string }>>(
      'SELECT "id", "migration_name" FROM "_prisma_migrations" ORDER BY "migration_name" DESC LIMIT 1',
    );
    await prisma.$executeRawUnsafe(
      'UPDATE "_prisma_migrations" SET "rolled_back_at" = CURRENT_TIMESTAMP WHERE "id" = ?',
      row!.id,
    );
    try {
      const down = await get("/readyz");
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({
        status: "not_ready",
        checks: {
          database: { ok: true },
          migrations: { ok: false, detail: expect.stringContaining(row!.migration_name) },
        },
      });
    } finally {
      await prisma.$executeRawUnsafe('UPDATE "_prisma_migrations" SET "rolled_back_at" = NULL WHERE "id" = ?', row!.id);
    }
    expect((await get("/readyz")).status).toBe(200);
  });

  it("turns /readyz 503 when the chain node stops answering, naming no URL", async () => {
    await chain.stop();
    const down = await get("/readyz");
    expect(down.status).toBe(503);
    const body = (await down.json()) as { checks: { payments: { ok: boolean; detail: string } } };
    expect(body.checks.payments).toMatchObject({ ok: false });
    expect(body.checks.payments.detail).not.toMatch(/https?:|127\.0\.0\.1/);
    expect((await get("/livez")).status).toBe(200);
  });
});
