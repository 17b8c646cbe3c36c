// Two service instances on one PostgreSQL schema re-probe together: each listing is probed by one
// of them per round (the sellers count the requests), both publish to the one catalog, and the
// listings a dead instance had leased are probed by the other once the leases run out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { paying, startHealthSeller, type HealthSeller } from "./support.js";

const postgres = databaseKinds.find((kind) => kind.kind === "postgres");
const ENV = {
  ALLOW_LOOPBACK_SELLERS: "true",
  HEALTH_HOST_GAP_MS: "0",
  HEALTH_PROBE_BATCH: "3",
  HEALTH_PROBE_CONCURRENCY: "2",
  PROBE_TIMEOUT_MS: "2000",
};
const ROUND_MS = 20 * 60_000;

describe.skipIf(!postgres)("two instances on PostgreSQL", () => {
  let first: CatalogServer;
  let second: TestServer;
  const sellers: HealthSeller[] = [];
  const ids: string[] = [];

  beforeAll(async () => {
    first = await startCatalogServer(postgres!, ENV);
    second = await startTestServer({ ...ENV, DATABASE_URL: first.db.url }, { now: first.clock.now });
    const asset = first.server.contexts.listings.market.asset;
    for (let s = 0; s < 4; s++) sellers.push(await startHealthSeller(() => ({ ...paying(asset)(), delayMs: 10 })));
    for (const seller of sellers) {
      for (let i = 0; i < 6; i++)
        ids.push(
          (
            await first.list({
              resource: `${seller.url}/api/${i}`,
              method: "GET",
              priceUsdc: "0.03",
              sellerPayTo: SELLER_PAY_TO,
            })
          ).id,
        );
    }
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    for (const seller of sellers) await seller.close();
  });

  const requestsPerListing = () => {
    const counts = new Map<string, number>();
    for (const seller of sellers)
      for (const visit of seller.visits)
        counts.set(`${seller.url}${visit.path}`, (counts.get(`${seller.url}${visit.path}`) ?? 0) + 1);
    return counts;
  };

  it("probe each listing exactly once per round between them", async () => {
    for (let round = 1; round <= 2; round++) {
      const [a, b] = await Promise.all([
        first.server.contexts.listings.health.prober.runRound(),
        second.contexts.listings.health.prober.runRound(),
      ]);
      expect(a.probed + b.probed).toBe(24);
      expect(a.probed).toBeGreaterThan(0);
      expect(b.probed).toBeGreaterThan(0);
      const counts = requestsPerListing();
      expect(counts.size).toBe(24);
      expect([...counts.values()].every((count) => count === round)).toBe(true);
      first.clock.advance(ROUND_MS);
    }
    const status = await first.json<{ listingsByHealth: Record<string, number> }>("/status.json");
    expect(status.body.listingsByHealth).toMatchObject({ healthy: 24, unknown: 0 });
    // The second instance hears of the first's last commits by change notice, within the 1 s staleness bound.
    const fromSecond = async () =>
      ((await (await second.fetch("/status.json")).json()) as { listingsByHealth: Record<string, number> })
        .listingsByHealth;
    await expect.poll(fromSecond, { timeout: 15_000 }).toEqual(status.body.listingsByHealth);
  });

  it("the other instance probes the listings a dead instance had leased, once the leases run out", async () => {
    const { prisma } = first.server.database;
    const orphaned = ids.slice(0, 5);
    const leaseUntil = new Date(first.clock.now().getTime() + 5 * 60_000);
    await prisma.listingHealth.updateMany({
      where: { listingId: { in: orphaned } },
      data: { leasedBy: "killed-instance", leaseUntil },
    });
    const before = requestsPerListing();
    const whileLeased = await second.contexts.listings.health.prober.runRound();
    expect(whileLeased.probed).toBe(19);
    first.clock.advance(6 * 60_000);
    const afterExpiry = await second.contexts.listings.health.prober.runRound();
    expect(afterExpiry.probed).toBe(5);
    const after = requestsPerListing();
    for (const [listing, count] of after) expect(count - (before.get(listing) ?? 0)).toBe(1);
    expect(await prisma.listingHealth.count({ where: { leasedBy: { not: null } } })).toBe(0);
  });
});
