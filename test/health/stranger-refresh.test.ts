// A free refresh (POST /listings/{id}/refresh, anyone may send it) brings news sooner but cannot move
// a listing across a health state boundary faster than the rounds would: its probe is shown as a
// sample (lastProbes, uptime), and counts toward the N-failures / M-successes rule only when the
// listing is due and no round holds it. So a stranger's three refreshes during a seller's brief
// outage do not make it unhealthy, the rounds still do over their usual span, and one passing
// refresh does not make an unhealthy listing healthy either. Nor do refreshes move the published
// uptimes (issue 42, item 9): a refresh that does not stand in for the round is shown in lastProbes but
// enters no uptime, so six of them during a brief outage leave uptime24h/7d/30d (and sort=uptime) as
// they were, and six sent once the listing is due move them exactly as one failing round would.
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

type Uptimes = { uptime24h?: number; uptime7d?: number; uptime30d?: number };
type ListingDocument = {
  item: { metadata: { health: { status: string; failureCode?: string } & Uptimes } };
  healthHistory: Array<{ probes: number; successes: number }>;
  lastProbes: Array<{ ok: boolean; code?: string }>;
};

describe.each(databaseKinds)("refreshes from a stranger on $kind", { timeout: 180_000 }, (kind) => {
  let market: CatalogServer;
  let seller: HealthSeller;
  let id: string;

  beforeAll(async () => {
    market = await startCatalogServer(kind, ENV);
    seller = await startHealthSeller(paying(market.server.contexts.listings.market.asset));
    id = (
      await market.list({
        resource: `${seller.url}/api/tool`,
        method: "GET",
        priceUsdc: "0.03",
        sellerPayTo: SELLER_PAY_TO,
      })
    ).id;
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

describe.each(databaseKinds)(
  "refreshes from a stranger and the published uptimes on $kind",
  { timeout: 180_000 },
  (kind) => {
    let market: CatalogServer;
    let victim: HealthSeller;
    let rival: HealthSeller;
    let victimId: string;
    let rivalId: string;

    beforeAll(async () => {
      market = await startCatalogServer(kind, ENV);
      const up = paying(market.server.contexts.listings.market.asset);
      [victim, rival] = await Promise.all([startHealthSeller(up), startHealthSeller(up, "127.0.0.2")]);
      victimId = (
        await market.list({
          resource: `${victim.url}/api/tool`,
          method: "GET",
          priceUsdc: "0.03",
          sellerPayTo: SELLER_PAY_TO,
        })
      ).id;
      rivalId = (
        await market.list({
          resource: `${rival.url}/api/tool`,
          method: "GET",
          priceUsdc: "0.03",
          sellerPayTo: SELLER_PAY_TO,
        })
      ).id;
      expect((await market.server.contexts.listings.health.prober.runRound()).probed).toBe(2);
    });
    afterAll(async () => {
      await market?.close();
      await victim?.close();
      await rival?.close();
    });

    const documentOf = async (listingId: string) => (await market.json<ListingDocument>(`/listings/${listingId}`)).body;
    const uptimes = async (listingId: string): Promise<Uptimes> => {
      const { uptime24h, uptime7d, uptime30d } = (await documentOf(listingId)).item.metadata.health;
      return { uptime24h, uptime7d, uptime30d };
    };
    const sixRefreshes = async () => {
      for (let i = 0; i < 6; i++) {
        const response = await market.json<{ healthRecorded: boolean }>(`/listings/${victimId}/refresh`, {
          method: "POST",
        });
        expect(response.status).toBe(200);
        market.clock.advance(1000);
      }
    };
    const uptimeOrder = async () => {
      const page = await market.json<{ items: Array<{ metadata: { listingId: string } }> }>(
        "/bazaar.json?limit=100&sort=uptime",
      );
      return page.body.items.map((item) => item.metadata.listingId).filter((id) => id === victimId || id === rivalId);
    };

    it("six refreshes during a brief outage leave the uptimes and sort=uptime as they were", async () => {
      // The rival fails one scheduled round (1 pass, 1 failure); the victim passes it (2 passes).
      rival.answer = DOWN;
      market.clock.advance(ROUND_MS);
      expect((await market.server.contexts.listings.health.prober.runRound()).probed).toBe(2);
      rival.answer = paying(market.server.contexts.listings.market.asset);
      expect(await uptimes(rivalId)).toEqual({ uptime24h: 0.5, uptime7d: 0.5, uptime30d: 0.5 });
      expect(await uptimes(victimId)).toEqual({ uptime24h: 1, uptime7d: 1, uptime30d: 1 });
      expect(await uptimeOrder()).toEqual([victimId, rivalId]);

      victim.answer = DOWN;
      await sixRefreshes();
      const document = await documentOf(victimId);
      expect(document.lastProbes.slice(0, 6).map((probe) => probe.ok)).toEqual([
        false,
        false,
        false,
        false,
        false,
        false,
      ]);
      expect(
        document.lastProbes.every((probe) =>
          Object.keys(probe).every((key) => ["at", "ok", "code", "latencyMs"].includes(key)),
        ),
      ).toBe(true);
      expect(document.item.metadata.health.status).toBe("healthy");
      expect(await uptimes(victimId)).toEqual({ uptime24h: 1, uptime7d: 1, uptime30d: 1 });
      expect(document.healthHistory.reduce((sum, day) => sum + day.probes, 0)).toBe(2);
      expect(await uptimeOrder()).toEqual([victimId, rivalId]);
    });

    it("six refreshes once the listing is due count as the one failing round they stand in for", async () => {
      market.clock.advance(ROUND_MS);
      await sixRefreshes();
      // One scheduled failure after two passes, as the round would have recorded: 2 of 3.
      expect(await uptimes(victimId)).toEqual({ uptime24h: 0.6667, uptime7d: 0.6667, uptime30d: 0.6667 });
      const row = await market.server.database.prisma.listingHealth.findUniqueOrThrow({
        where: { listingId: victimId },
      });
      expect(row.consecutiveFailures).toBe(1);
      // The round that follows finds the victim already probed for this interval: it probes the rival
      // only, which fails it again (1 of 3) and so ranks below the victim's one scheduled failure.
      rival.answer = DOWN;
      expect((await market.server.contexts.listings.health.prober.runRound()).probed).toBe(1);
      expect(await uptimes(rivalId)).toMatchObject({ uptime7d: 0.3333 });
      expect(await uptimeOrder()).toEqual([victimId, rivalId]);
      victim.answer = paying(market.server.contexts.listings.market.asset);
    });
  },
);
