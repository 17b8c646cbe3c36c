// Listing health on real loopback sellers: the re-prober's rounds move a listing between healthy,
// unhealthy and drifted as its seller goes down, comes back and changes its terms; what buyers see
// (metadata.health, GET /listings/{id}, the health filter, the status counts) follows.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { DOWN, paying, startHealthSeller, type HealthSeller } from "./support.js";

const ROUND_MS = 20 * 60_000;
const HEALTH_ENV = { ALLOW_LOOPBACK_SELLERS: "true", HEALTH_HOST_GAP_MS: "0", PROBE_TIMEOUT_MS: "1000" };

type Health = {
  status: string;
  failureCode?: string;
  uptime24h?: number;
  uptime7d?: number;
  uptime30d?: number;
  p50LatencyMs?: number;
  lastCheckedAt?: string;
  lastHealthyAt?: string;
};

describe.each(databaseKinds)("listing health on $kind", (kind) => {
  let market: CatalogServer;
  let seller: HealthSeller;
  let asset: string;

  beforeAll(async () => {
    market = await startCatalogServer(kind, HEALTH_ENV);
    asset = market.server.contexts.listings.market.asset;
    seller = await startHealthSeller(paying(asset));
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
  });
  afterEach(() => {
    seller.answer = paying(asset);
  });

  /** One round at the clock's time, then the clock moves past every listing's next probe. */
  async function round() {
    const report = await market.server.contexts.listings.health.prober.runRound();
    market.clock.advance(ROUND_MS);
    return report;
  }
  const listSeller = (path: string) =>
    market.list({ resource: `${seller.url}${path}`, method: "GET", priceUsdc: "0.03", sellerPayTo: SELLER_PAY_TO });
  const healthOf = async (id: string): Promise<Health> => {
    const { status, body } = await market.json<{ item: { metadata: { health: Health } } }>(`/listings/${id}`);
    expect(status).toBe(200);
    return body.item.metadata.health;
  };

  it("starts unknown, is healthy after its first probe, and shows uptime, latency and its history", async () => {
    const { id } = await listSeller("/first");
    expect((await healthOf(id)).status).toBe("unknown");
    const before = seller.visits.length;
    await round();
    expect(seller.visits.length - before).toBe(1);
    const health = await healthOf(id);
    expect(health).toMatchObject({ status: "healthy", uptime24h: 1, uptime7d: 1, uptime30d: 1 });
    expect(health.failureCode).toBeUndefined();
    expect(health.p50LatencyMs).toBeGreaterThanOrEqual(0);
    expect(health.lastHealthyAt).toBe(health.lastCheckedAt);
    const { body } = await market.json<{
      healthHistory: Array<{ day: string; probes: number; uptime: number }>;
      lastProbes: Array<{ ok: boolean }>;
    }>(`/listings/${id}`);
    expect(body.healthHistory).toEqual([
      expect.objectContaining({ day: "2030-01-01", probes: 1, successes: 1, uptime: 1 }),
    ]);
    expect(body.lastProbes).toEqual([expect.objectContaining({ ok: true })]);
  });

  it("is unhealthy after 3 failed rounds, and healthy again after 2 good ones", async () => {
    const { id } = await listSeller("/flaky");
    await round();
    expect((await healthOf(id)).status).toBe("healthy");
    const version = async () => (await market.server.contexts.listings.freshness.current()).token;

    seller.answer = DOWN;
    await round();
    await round();
    let health = await healthOf(id);
    expect(health).toMatchObject({ status: "healthy", failureCode: "not_402" });
    const tokenBefore = await version();
    await round();
    health = await healthOf(id);
    expect(health).toMatchObject({ status: "unhealthy", failureCode: "not_402", uptime24h: 0.25 });
    expect(await version()).not.toBe(tokenBefore);
    const { body } = await market.json<{ lastProbes: Array<{ ok: boolean; code?: string }> }>(`/listings/${id}`);
    expect(body.lastProbes.map((probe) => probe.code ?? "ok")).toEqual(["not_402", "not_402", "not_402", "ok"]);
    const counts = await market.json<{ listingsByHealth: Record<string, number> }>("/status.json");
    expect(counts.body.listingsByHealth.unhealthy).toBeGreaterThanOrEqual(1);

    seller.answer = paying(asset);
    await round();
    expect(await healthOf(id)).toMatchObject({ status: "unhealthy" });
    await round();
    health = await healthOf(id);
    expect(health.status).toBe("healthy");
    expect(health.failureCode).toBeUndefined();
  });

  it("is drifted at once when the seller's challenge changes its price, and healthy when it matches again", async () => {
    const { id } = await listSeller("/pricey");
    await round();
    seller.answer = (request) => (request.url === "/pricey" ? paying(asset, "50000")() : paying(asset)());
    await round();
    expect(await healthOf(id)).toMatchObject({ status: "drifted", failureCode: "price_mismatch" });
    seller.answer = (request) =>
      request.url === "/pricey"
        ? paying(asset, "30000", "0x000000000000000000000000000000000000dEaD")()
        : paying(asset)();
    await round();
    expect(await healthOf(id)).toMatchObject({ status: "drifted", failureCode: "pay_to_mismatch" });
    seller.answer = paying(asset);
    await round();
    expect(await healthOf(id)).toMatchObject({ status: "healthy" });
  });

  it("drops unhealthy listings from health=healthy reads and keeps them, marked, in the default view", async () => {
    const { id } = await listSeller("/gone");
    seller.answer = (request) => (request.url === "/gone" ? DOWN() : paying(asset)());
    for (let i = 0; i < 3; i++) await round();
    expect((await healthOf(id)).status).toBe("unhealthy");
    const ids = async (query: string) =>
      (
        await market.json<{ items: Array<{ metadata: { listingId: string } }> }>(
          `/discovery/resources?limit=100${query}`,
        )
      ).body.items.map((item) => item.metadata.listingId);
    expect(await ids("")).toContain(id);
    expect(await ids("&health=unhealthy")).toContain(id);
    expect(await ids("&health=healthy")).not.toContain(id);
  });

  it("probes each listing once per round, and not again before it is due", async () => {
    const { id } = await listSeller("/once");
    const visits = () => seller.visits.filter((visit) => visit.path === "/once").length;
    await market.server.contexts.listings.health.prober.runRound();
    await market.server.contexts.listings.health.prober.runRound();
    expect(visits()).toBe(1);
    market.clock.advance(ROUND_MS);
    await market.server.contexts.listings.health.prober.runRound();
    expect(visits()).toBe(2);
    expect((await healthOf(id)).status).toBe("healthy");
  });

  it("takes over the listings leased by an instance that died, once their leases run out", async () => {
    const { id } = await listSeller("/orphan");
    const { prisma } = market.server.database;
    await market.server.contexts.listings.health.store.schedule(market.clock.now());
    const leaseUntil = new Date(market.clock.now().getTime() + 5 * 60_000);
    await prisma.listingHealth.update({ where: { listingId: id }, data: { leasedBy: "dead-instance", leaseUntil } });
    const visits = () => seller.visits.filter((visit) => visit.path === "/orphan").length;
    await market.server.contexts.listings.health.prober.runRound();
    expect(visits()).toBe(0);
    market.clock.advance(6 * 60_000);
    await market.server.contexts.listings.health.prober.runRound();
    expect(visits()).toBe(1);
    const row = await prisma.listingHealth.findUniqueOrThrow({ where: { listingId: id } });
    expect(row.leasedBy).toBeNull();
    expect((await healthOf(id)).status).toBe("healthy");
  });
});

describe("the seed rows", () => {
  it("are re-probed too (the /kr-* demo endpoints on the marketplace itself)", async () => {
    const market = await startCatalogServer(databaseKinds[0]!, { ...HEALTH_ENV, LOAD_SEED: "true" });
    try {
      const seeded = async () =>
        (
          await market.json<{
            items: Array<{ resource: string; metadata: { leftoverSeed: boolean; health: Health } }>;
          }>("/discovery/resources?includeSeed=true&limit=100")
        ).body.items.filter((item) => item.metadata.leftoverSeed);
      const before = await seeded();
      expect(before.length).toBeGreaterThan(0);
      expect(before.every((item) => item.metadata.health.status === "unknown")).toBe(true);
      const report = await market.server.contexts.listings.health.prober.runRound();
      expect(report.probed).toBeGreaterThanOrEqual(before.length);
      const after = await seeded();
      expect(after.every((item) => item.metadata.health.lastCheckedAt !== undefined)).toBe(true);
    } finally {
      await market.close();
    }
  });
});
