// A free refresh (POST /listings/{id}/refresh, anyone may send it) brings news sooner but cannot move
// a listing across a health state boundary faster than the rounds would: its probe is shown as a
// sample (lastProbes, uptime), and counts toward the N-failures / M-successes rule only when the
// listing is due and no round holds it. So a stranger's three refreshes during a seller's brief
// outage do not make it unhealthy, the rounds still do over their usual span, and one passing
// refresh does not make an unhealthy listing healthy either.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { DOWN, paying, startHealthSeller, type HealthSeller } from "./support.js";

const ENV = {
  ALLOW_LOOPBACK_SELLERS: "true",
  HEALTH_HOST_GAP_MS: "0",
  PAYMENT_RATE_PER_CLIENT: "100000",
  PROBE_RATE_PER_CLIENT: "1000",
  PROBE_RATE_PER_HOST: "1000",
  HEALTH_FAILURES_TO_UNHEALTHY: "3",
  HEALTH_SUCCESSES_TO_HEALTHY: "2",
};
const ROUND_MS = 20 * 60_000;

type ListingDocument = {
  item: { metadata: { health: { status: string; failureCode?: string } } };
  lastProbes: Array<{ ok: boolean; code?: string }>;
};

describe.each(databaseKinds)("refreshes from a stranger on $kind", { timeout: 180_000 }, (kind) => {
  let market: CatalogServer;
  let seller: HealthSeller;
  let id: string;

  beforeAll(async () => {
    market = await startCatalogServer(kind, ENV);
    seller = await startHealthSeller(paying(market.server.contexts.listings.market.asset));
    id = (await market.list({ resource: `${seller.url}/api/tool`, method: "GET", priceUsdc: "0.03", sellerPayTo: SELLER_PAY_TO })).id;
    await market.server.contexts.listings.health.prober.runRound();
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
  });

  const documentOf = async (listingId: string) => (await market.json<ListingDocument>(`/listings/${listingId}`)).body;
  const refresh = async () => {
    const response = await market.json<{ healthRecorded: boolean }>(`/listings/${id}/refresh`, { method: "POST" });
    expect(response.status).toBe(200);
    expect(response.body.healthRecorded).toBe(true);
  };
  const round = async () => {
    market.clock.advance(ROUND_MS);
    return market.server.contexts.listings.health.prober.runRound();
  };

  it("three refreshes during an outage leave the listing healthy; the rounds still make it unhealthy after three failures", async () => {
    expect((await documentOf(id)).item.metadata.health.status).toBe("healthy");
    seller.answer = DOWN;
    for (let i = 0; i < 3; i++) {
      await refresh();
      market.clock.advance(1000);
    }
    const afterRefreshes = await documentOf(id);
    expect(afterRefreshes.item.metadata.health.status).toBe("healthy");
    expect(afterRefreshes.lastProbes.slice(0, 3).map((probe) => probe.ok)).toEqual([false, false, false]);
    const status = await market.json<{ listingsByHealth: Record<string, number> }>("/status.json");
    expect(status.body.listingsByHealth).toMatchObject({ healthy: 1, unhealthy: 0 });

    // The scheduled rule over its normal span: two failing rounds are not enough, the third is.
    for (let i = 1; i <= 2; i++) {
      expect((await round()).probed).toBe(1);
      expect((await documentOf(id)).item.metadata.health.status).toBe("healthy");
    }
    expect((await round()).probed).toBe(1);
    expect((await documentOf(id)).item.metadata.health).toMatchObject({ status: "unhealthy", failureCode: "not_402" });
  });

  it("one passing refresh does not make an unhealthy listing healthy; the rounds' successes in a row do", async () => {
    seller.answer = paying(market.server.contexts.listings.market.asset);
    await refresh();
    const document = await documentOf(id);
    expect(document.lastProbes[0]?.ok).toBe(true);
    expect(document.item.metadata.health.status).toBe("unhealthy");
    await refresh();
    expect((await documentOf(id)).item.metadata.health.status).toBe("unhealthy");

    expect((await round()).probed).toBe(1);
    expect((await documentOf(id)).item.metadata.health.status).toBe("unhealthy");
    expect((await round()).probed).toBe(1);
    expect((await documentOf(id)).item.metadata.health.status).toBe("healthy");
  });

  it("a refresh when the listing is due stands in for the round: it counts, and the round then finds nothing due", async () => {
    seller.answer = DOWN;
    market.clock.advance(ROUND_MS);
    await refresh();
    const row = await market.server.database.prisma.listingHealth.findUniqueOrThrow({ where: { listingId: id } });
    expect(row.consecutiveFailures).toBe(1);
    expect(row.nextProbeAt.getTime()).toBeGreaterThan(market.clock.now().getTime());
    expect((await market.server.contexts.listings.health.prober.runRound()).probed).toBe(0);
    seller.answer = paying(market.server.contexts.listings.market.asset);
  });
});
