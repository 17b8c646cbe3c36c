// A batch that outlives its lease loses no probe result. Two instances on one PostgreSQL schema, a
// short lease and a slow seller: while the first instance is still probing its batch, its leases run
// out and the second instance claims and probes the same listings. Both instances' probes reached
// the seller, so both are recorded: each once, whichever instance holds the lease when it writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { paying, startHealthSeller, type HealthSeller } from "./support.js";

const postgres = databaseKinds.find((kind) => kind.kind === "postgres");
const LEASE_MS = 60_000;
const ENV = {
  ALLOW_LOOPBACK_SELLERS: "true",
  HEALTH_HOST_GAP_MS: "0",
  HEALTH_PROBE_BATCH: "3",
  HEALTH_PROBE_CONCURRENCY: "3",
  HEALTH_LEASE_MS: String(LEASE_MS),
  PROBE_TIMEOUT_MS: "20000",
};
const ROUND_MS = 20 * 60_000;
const SLOW_MS = 3_000;

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!postgres)("a batch that outlives its lease, two instances on PostgreSQL", { timeout: 180_000 }, () => {
  let first: CatalogServer;
  let second: TestServer;
  let seller: HealthSeller;
  const ids: string[] = [];

  beforeAll(async () => {
    first = await startCatalogServer(postgres!, ENV);
    second = await startTestServer({ ...ENV, DATABASE_URL: first.db.url }, { now: first.clock.now });
    seller = await startHealthSeller(paying(first.server.contexts.listings.market.asset));
    for (let i = 0; i < 3; i++)
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
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await seller?.close();
  });

  const recordedSamples = async () => {
    const days = await first.server.database.prisma.healthDay.findMany({ where: { listingId: { in: ids } } });
    return days.reduce((sum, day) => sum + day.probes, 0);
  };

  it("records every probe the seller received exactly once", async () => {
    const asset = first.server.contexts.listings.market.asset;
    seller.answer = () => ({ ...paying(asset)(), delayMs: SLOW_MS });
    first.clock.advance(ROUND_MS);
    const firstRound = first.server.contexts.listings.health.prober.runRound();
    // The first instance has claimed all three and its probes are at the seller; then its leases run out.
    await until(() => seller.visits.length >= 1, "the first instance's probes");
    first.clock.advance(LEASE_MS + 1000);
    const secondRound = second.contexts.listings.health.prober.runRound();
    const [a, b] = await Promise.all([firstRound, secondRound]);
    expect(a.probed).toBe(3);
    expect(b.probed).toBe(3);
    expect(seller.visits.length).toBe(6);
    expect(await recordedSamples()).toBe(seller.visits.length);
    for (const id of ids) {
      const document = (
        await first.json<{ lastProbes: unknown[]; item: { metadata: { health: { status: string } } } }>(
          `/listings/${id}`,
        )
      ).body;
      expect(document.lastProbes).toHaveLength(2);
      expect(document.item.metadata.health.status).toBe("healthy");
    }
    expect(
      await first.server.database.prisma.listingHealth.count({
        where: { listingId: { in: ids }, leasedBy: { not: null } },
      }),
    ).toBe(0);
  });
});
