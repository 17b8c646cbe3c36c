// Two `npm start` processes on one PostgreSQL schema, started at the same moment (both migrate),
// each settling listing fees with its own key on one local chain: a listing paid through one is
// served by the other, with the same ETag, which learns of it by change notice (LISTEN/NOTIFY), also
// after its LISTEN connection is ended from the database. Skipped without TEST_POSTGRES_URL.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type ChainAccount, type LocalChain } from "../../src/chain/local-chain.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";
import { parseMetrics, sampleSum } from "../support/metrics.js";
import { startService, type ServiceProcess } from "../support/process.js";
import type { Seller } from "../support/sellers.js";
import { startLightTraffic, type TrafficReport } from "../support/traffic.js";
import { LISTING_FEE, bazaarResources, listWithStockBuyer, startChallengingSeller } from "./paid-listing.js";
import { RUN_MS, TEST_TIMEOUT_MS, expectCleanStop, expectSteadyRun, sleepUntil } from "./run-checks.js";

async function pollUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function inParallel(count: number, concurrency: number, task: () => Promise<unknown>): Promise<void> {
  let started = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started++ < count) await task();
    }),
  );
}

const postgres = testDatabaseKinds().find((kind) => kind.kind === "postgres");

describe.skipIf(!postgres)("two npm start processes on one PostgreSQL schema, settling on one local chain", () => {
  let chain: LocalChain | undefined;
  let database: TestDatabase | undefined;
  let seller: Seller | undefined;
  let services: ServiceProcess[] = [];
  let traffic: ReturnType<typeof startLightTraffic> | undefined;
  let trafficStarted = 0;

  beforeAll(async () => {
    chain = await startLocalChain({ buyers: 2 });
    database = await postgres!.create();
    // One settler key per instance: the second settles with a buyer account, funded with ETH by anvil.
    const settlers: ChainAccount[] = [chain.settler, chain.buyers[1]!];
    const env = (settler: ChainAccount) => ({
      DATABASE_URL: database!.url,
      // One public origin, as behind a load balancer: both render the same documents.
      PUBLIC_BASE_URL: "https://market.example.org",
      SETTLEMENT_RPC_URL: chain!.rpcUrl,
      SETTLER_PRIVATE_KEY: settler.privateKey,
      MARKETPLACE_PAY_TO: chain!.marketplacePayTo,
      ASSET_ADDRESS: chain!.asset,
      TOKEN_NAME: "USD Coin",
      TOKEN_VERSION: "2",
      ALLOW_LOOPBACK_SELLERS: "true",
    });
    const started = await Promise.allSettled(settlers.map((settler) => startService(env(settler))));
    services = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    for (const result of started) if (result.status === "rejected") throw result.reason;
    trafficStarted = Date.now();
    traffic = startLightTraffic(services.map((service) => service.url));
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await traffic?.stop();
    for (const service of services) service.kill();
    await seller?.close();
    await database?.drop();
    await chain?.stop();
  }, TEST_TIMEOUT_MS);

  it(
    "takes a listing paid through the first instance once, and the second serves it with the same ETag",
    async () => {
      const [a, b] = services as [ServiceProcess, ServiceProcess];
      seller = await startChallengingSeller(chain!.asset);
      const resource = `${seller.url}/api/shared`;
      const before = await chain!.balanceOf(chain!.marketplacePayTo);

      const listed = await listWithStockBuyer(a.url, {
        buyerKey: chain!.buyers[0]!.privateKey,
        asset: chain!.asset,
        resource,
      });

      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect(listed.receipt).toMatchObject({ success: true, payer: chain!.buyers[0]!.address });
      expect(await chain!.balanceOf(chain!.marketplacePayTo)).toBe(before + LISTING_FEE);
      // B hears of A's commit by change notice: at once, or within the 1 s staleness bound.
      await pollUntil(async () => (await bazaarResources(b.url)).includes(resource), "B lists the resource");
      for (const path of ["/bazaar.json", "/feed.atom", "/search?query=summarises"]) {
        const both = async () => {
          const [fromA, fromB] = await Promise.all([a.fetch(path), b.fetch(path)]);
          const [bodyA, bodyB] = await Promise.all([fromA.text(), fromB.text()]);
          return { fromA, fromB, bodyA, bodyB };
        };
        let seen = await both();
        // A background write (health, usage) between the two reads can still be on its way to the other instance.
        await pollUntil(
          async () => (seen = await both()).fromA.headers.get("etag") === seen.fromB.headers.get("etag"),
          `${path}: one ETag`,
        );
        const { fromA, fromB, bodyA, bodyB } = seen;
        expect([fromA.status, fromB.status], path).toEqual([200, 200]);
        expect(bodyB, path).toBe(bodyA);
        expect(fromA.headers.get("etag"), path).toMatch(/^(W\/)?"/);
        expect(fromB.headers.get("etag"), path).toBe(fromA.headers.get("etag"));
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "B learns of A's writes by change notice: cached reads on B read no catalog stamp each, and a LISTEN connection ended from the database is opened again",
    async () => {
      const [a, b] = services as [ServiceProcess, ServiceProcess];
      const metricsOf = async (service: ServiceProcess) => parseMetrics(await (await service.fetch("/metrics")).text());
      await pollUntil(
        async () => sampleSum(await metricsOf(b), "x402_catalog_notices_live") === 1,
        "B listens for catalog change notices",
      );

      // Cached reads: the stamp is trusted for a second at a time while notices arrive, not read per request.
      const reads = 400;
      const before = sampleSum(await metricsOf(b), "x402_catalog_stamp_reads_total");
      await inParallel(reads, 8, () => b.fetch("/bazaar.json").then((response) => response.arrayBuffer()));
      const stampReads = sampleSum(await metricsOf(b), "x402_catalog_stamp_reads_total") - before;
      expect(stampReads, `${stampReads} stamp reads for ${reads} cached reads`).toBeLessThan(reads / 4);

      const sameEtag = async () => {
        const [fromA, fromB] = await Promise.all([a.fetch("/bazaar.json"), b.fetch("/bazaar.json")]);
        await Promise.all([fromA.arrayBuffer(), fromB.arrayBuffer()]);
        return fromA.headers.get("etag") === fromB.headers.get("etag");
      };
      const listThroughA = async (path: string) => {
        const resource = `${seller!.url}${path}`;
        const listed = await listWithStockBuyer(a.url, {
          buyerKey: chain!.buyers[0]!.privateKey,
          asset: chain!.asset,
          resource,
        });
        expect(listed.status, JSON.stringify(listed.body)).toBe(200);
        await pollUntil(
          async () => (await bazaarResources(b.url)).includes(resource) && (await sameEtag()),
          `B serves ${path} with A's ETag`,
        );
      };
      await listThroughA("/api/noticed");

      // The database ends B's LISTEN session, as a restart or an idle-session killer would.
      const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
      await admin.connect();
      try {
        const { rowCount } = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
          [`x402-catalog-listener:${b.pid}`],
        );
        expect(rowCount).toBe(1);
      } finally {
        await admin.end();
      }
      await pollUntil(async () => {
        const samples = await metricsOf(b);
        return (
          sampleSum(samples, "x402_catalog_notice_reconnects_total") >= 1 &&
          sampleSum(samples, "x402_catalog_notices_live") === 1
        );
      }, "B listens again");
      await listThroughA("/api/noticed-again");
      expect(b.problems()).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `both stay up for ${RUN_MS / 1000} s of light traffic, answering every request correctly, with no error logged`,
    async () => {
      await sleepUntil(trafficStarted + RUN_MS);
      const report: TrafficReport = await traffic!.stop();
      expectSteadyRun(services, report, Date.now() - trafficStarted);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "both stop on SIGTERM: exit 0 within seconds, logging stopped",
    async () => {
      for (const service of services) await expectCleanStop(service);
    },
    TEST_TIMEOUT_MS,
  );
});
