// The probe budget (HEALTH_PROBES_PER_MINUTE): an instance starts probes at most that often, whatever
// their hosts, and when the catalog is larger than the budget covers in one interval each listing's
// next probe is as far off as the budget takes to go round the catalog once (issue 26: an idle
// instance's CPU stays bounded whatever the catalog's size). A round is run here by a prober with a
// re-probe interval (the test server's own prober runs rounds only when asked, unpaced).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthProber } from "../../src/health/prober.js";
import { createLogger } from "../../src/logger.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { DOWN, paying, startHealthSeller, type HealthSeller } from "./support.js";

const INTERVAL_MS = 1000;
const PROBES_PER_MINUTE = 120;
const GAP_MS = 60_000 / PROBES_PER_MINUTE;

describe.each(databaseKinds)("the probe budget on $kind", (kind) => {
  let market: CatalogServer;
  const sellers: HealthSeller[] = [];

  beforeAll(async () => {
    market = await startCatalogServer(kind, {
      ALLOW_LOOPBACK_SELLERS: "true",
      HEALTH_HOST_GAP_MS: "0",
      PROBE_TIMEOUT_MS: "2000",
    });
    // Four hosts: politeness alone would probe them side by side.
    for (const host of ["127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4"])
      sellers.push(await startHealthSeller(paying(market.server.contexts.listings.market.asset), host));
  });
  afterAll(async () => {
    await market?.close();
    for (const seller of sellers) await seller.close();
  });

  it("spaces probe starts by the budget, re-probes a catalog larger than it covers in one interval less often, and rechecks a failing listing at the interval", async () => {
    const { health, probe } = market.server.contexts.listings;
    const ids: string[] = [];
    for (const seller of sellers)
      ids.push(
        (
          await market.list({
            resource: `${seller.url}/api`,
            method: "GET",
            priceUsdc: "0.03",
            sellerPayTo: SELLER_PAY_TO,
          })
        ).id,
      );
    const starts: number[] = [];
    const prober = new HealthProber({
      store: health.store,
      probe: {
        check: (target) => {
          starts.push(performance.now());
          return probe.check(target);
        },
      },
      config: {
        intervalMs: INTERVAL_MS,
        failuresToUnhealthy: 3,
        successesToHealthy: 2,
        concurrency: 32,
        batchSize: 200,
        hostGapMs: 0,
        leaseMs: 60_000,
        probesPerMinute: PROBES_PER_MINUTE,
      },
      logger: createLogger("silent"),
      now: market.clock.now,
      holder: "budgeted",
    });

    const roundStart = performance.now();
    expect((await prober.runRound()).probed).toBe(4);
    expect(sellers.map((seller) => seller.visits.length)).toEqual([1, 1, 1, 1]);
    // The budget lets one probe start per gap, the first at once: the fourth cannot start before three
    // gaps have passed. (A lower bound on the whole round only: a loaded machine may delay any one
    // start after its turn, so two recorded starts can be closer than a gap; a timer may fire a
    // millisecond early.)
    expect(starts).toHaveLength(4);
    expect(starts[3]! - roundStart).toBeGreaterThanOrEqual(3 * GAP_MS - 2);

    // Four listings at two a second take 2 s to go round, longer than the 1 s interval: none is due after 1.5 s.
    expect(prober.schedule.intervalMs).toBe(4 * GAP_MS);
    market.clock.advance(1.5 * INTERVAL_MS);
    expect((await prober.runRound()).probed).toBe(0);
    // Each is due within 2 s plus the schedule's 10% jitter.
    market.clock.advance(1.1 * 4 * GAP_MS - 1.5 * INTERVAL_MS + 1);
    expect((await prober.runRound()).probed).toBe(4);
    for (const id of ids) {
      const { body } = await market.json<{ lastProbes: Array<{ ok: boolean }> }>(`/listings/${id}`);
      expect(body.lastProbes.map((sample) => sample.ok)).toEqual([true, true]);
    }

    // A seller goes down: its failed probe is rechecked at the configured interval, not the budget's,
    // so an outage is confirmed within a few intervals; the healthy ones still wait for the budget.
    sellers[0]!.answer = DOWN;
    market.clock.advance(1.1 * 4 * GAP_MS + 1);
    expect((await prober.runRound()).probed).toBe(4);
    market.clock.advance(1.1 * INTERVAL_MS + 1);
    expect((await prober.runRound()).probed).toBe(1);
    // One more interval: the budget's 2 s have passed for the others too.
    market.clock.advance(1.1 * INTERVAL_MS + 1);
    expect((await prober.runRound()).probed).toBe(4);
    const { body: down } = await market.json<{
      item: { metadata: { health: { status: string } } };
      lastProbes: Array<{ ok: boolean }>;
    }>(`/listings/${ids[0]}`);
    expect(down.lastProbes.slice(0, 3).map((sample) => sample.ok)).toEqual([false, false, false]);
    expect(down.item.metadata.health.status).toBe("unhealthy");
  });
});
