// A round's upkeep (giving listings without a schedule one, pruning the rows of listings gone) scans
// every listing, so it runs at most once per UPKEEP_EVERY_MS, not on every tick of the prober: a
// listing that got no schedule when it was listed (a seed, an indexed row) waits at most that long.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { UPKEEP_EVERY_MS } from "../../src/health/prober.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { paying, startHealthSeller, type HealthSeller } from "./support.js";

const ENV = { ALLOW_LOOPBACK_SELLERS: "true", HEALTH_HOST_GAP_MS: "0", PROBE_TIMEOUT_MS: "2000" };

describe.each(databaseKinds)("the prober's upkeep on $kind", (kind) => {
  let market: CatalogServer;
  let seller: HealthSeller;

  beforeAll(async () => {
    market = await startCatalogServer(kind, ENV);
    seller = await startHealthSeller(paying(market.server.contexts.listings.market.asset));
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
  });

  it("scans for unscheduled listings once per upkeep period; a listing without a schedule is probed within it", async () => {
    const { prober, store } = market.server.contexts.listings.health;
    const schedule = vi.spyOn(store, "schedule");
    const prune = vi.spyOn(store, "prune");
    try {
      await prober.runRound();
      expect([schedule.mock.calls.length, prune.mock.calls.length]).toEqual([1, 1]);

      await market.list({
        resource: `${seller.url}/new`,
        method: "GET",
        priceUsdc: "0.03",
        sellerPayTo: SELLER_PAY_TO,
      });
      market.clock.advance(60_000);
      expect((await prober.runRound()).probed).toBe(0);
      expect([schedule.mock.calls.length, prune.mock.calls.length]).toEqual([1, 1]);

      market.clock.advance(UPKEEP_EVERY_MS);
      expect((await prober.runRound()).probed).toBe(1);
      expect([schedule.mock.calls.length, prune.mock.calls.length]).toEqual([2, 2]);
      expect(seller.visits.map((visit) => visit.path)).toEqual(["/new"]);
    } finally {
      schedule.mockRestore();
      prune.mockRestore();
    }
  });
});
