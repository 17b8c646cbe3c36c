// The probe that passes when a listing is paid for is its first health sample: a paid listing is
// healthy at once, with that probe in its history. A drifted listing renewed with the seller's new
// terms is healthy again at once (the renewal re-lists it, and the listing-time probe matched).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";
import { TestClock } from "../support/catalog.js";
import { chainPayments, payingFetch } from "../support/payments.js";
import { SELLER_PAY_TO, summariseListing } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { paying, startHealthSeller, type HealthSeller } from "./support.js";

type ListingDocument = {
  item: {
    metadata: {
      listingId: string;
      priceUsdc: string;
      health: { status: string; failureCode?: string; uptime24h?: number; lastHealthyAt?: string };
    };
  };
  healthHistory: Array<{ probes: number; successes: number }>;
  lastProbes: Array<{ ok: boolean; code?: string; latencyMs?: number }>;
};

let chain: LocalChain;
let payments: Payments;
let seller: HealthSeller;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 2 });
  payments = await chainPayments(chain);
  seller = await startHealthSeller(paying(chain.asset), "127.0.0.1", { https: true });
});
afterAll(async () => {
  await seller?.close();
  await chain?.stop();
});

describe.each(testDatabaseKinds())("the listing-time probe on $kind", (kind) => {
  let database: TestDatabase;
  let server: TestServer;
  const clock = new TestClock(Date.now());

  beforeAll(async () => {
    database = await kind.create();
    server = await startTestServer(
      {
        ALLOW_LOOPBACK_SELLERS: "true",
        PAYMENT_RATE_PER_CLIENT: "100000",
        PROBE_RATE_PER_CLIENT: "1000",
        PROBE_RATE_PER_HOST: "1000",
        HEALTH_HOST_GAP_MS: "0",
        DATABASE_URL: database.url,
      },
      { payments, now: clock.now },
    );
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  const list = async (body: Record<string, unknown>) => {
    const response = await payingFetch(chain, chain.buyers[0]!.privateKey)(`${server.url}/listings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as { id: string; renewed: boolean };
  };
  const documentOf = async (id: string) => (await (await server.fetch(`/listings/${id}`)).json()) as ListingDocument;

  it("makes a paid listing healthy at once, with that probe as its first sample", async () => {
    const body = summariseListing(seller, { method: "GET", resource: `${seller.url}/api/${kind.kind}` }, SELLER_PAY_TO);
    const { id } = await list(body);
    const document = await documentOf(id);
    expect(document.item.metadata.health).toMatchObject({
      status: "healthy",
      uptime24h: 1,
      lastHealthyAt: clock.now().toISOString(),
    });
    expect(document.lastProbes).toEqual([expect.objectContaining({ ok: true, latencyMs: expect.any(Number) })]);
    expect(document.healthHistory).toEqual([expect.objectContaining({ probes: 1, successes: 1 })]);
    const row = await server.database.prisma.listingHealth.findUniqueOrThrow({ where: { listingId: id } });
    expect(row).toMatchObject({ consecutiveSuccesses: 1, consecutiveFailures: 0 });
    expect(row.nextProbeAt.getTime()).toBeGreaterThan(clock.now().getTime());

    // Not due yet: a round now probes nothing.
    expect((await server.contexts.listings.health.prober.runRound()).probed).toBe(0);
  });

  it("a drifted listing renewed with the seller's new price is healthy again at once", async () => {
    const resource = `${seller.url}/api/renewed-${kind.kind}`;
    const { id } = await list(summariseListing(seller, { method: "GET", resource }, SELLER_PAY_TO));
    seller.answer = (request) =>
      request.url === `/api/renewed-${kind.kind}` ? paying(chain.asset, "50000")() : paying(chain.asset)();
    try {
      clock.advance(20 * 60_000);
      await server.contexts.listings.health.prober.runRound();
      expect((await documentOf(id)).item.metadata.health).toMatchObject({
        status: "drifted",
        failureCode: "price_mismatch",
      });

      const renewal = await list(
        summariseListing(seller, { method: "GET", resource, priceUsdc: "0.05" }, SELLER_PAY_TO),
      );
      expect(renewal).toMatchObject({ id, renewed: true });
      const document = await documentOf(id);
      expect(document.item.metadata.priceUsdc).toBe("0.05");
      expect(document.item.metadata.health.status).toBe("healthy");
      expect(document.item.metadata.health.failureCode).toBeUndefined();
      expect(document.lastProbes.map((probe) => probe.code ?? "ok")).toEqual(["ok", "price_mismatch", "ok"]);
    } finally {
      seller.answer = paying(chain.asset);
    }
  });
});
