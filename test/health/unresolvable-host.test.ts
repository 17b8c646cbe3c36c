// A host whose name does not resolve is looked up once, not once per listing: its other listings
// take the same answer (host_unresolvable, a failed probe) until the back-off runs out, and then it
// is looked up once more. Listings of other hosts are probed as ever. The re-prober runs against the
// real store and a real SellerProbe whose resolver stands in for DNS and counts the lookups.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthProber, UNRESOLVABLE_HOST_BACKOFF_MS } from "../../src/health/prober.js";
import { createLogger } from "../../src/logger.js";
import { SellerProbe } from "../../src/probe/seller-probe.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { paying, startHealthSeller, type HealthSeller } from "./support.js";

const ENV = { ALLOW_LOOPBACK_SELLERS: "true", HEALTH_HOST_GAP_MS: "0", PROBE_TIMEOUT_MS: "2000" };
const DEAD_HOST = "gone.seller.example";
const ROUND_MS = 20 * 60_000;

describe.each(databaseKinds)("listings of a host that does not resolve, on $kind", (kind) => {
  let market: CatalogServer;
  let seller: HealthSeller;
  let prober: HealthProber;
  const lookups: string[] = [];
  const deadIds: string[] = [];

  beforeAll(async () => {
    market = await startCatalogServer(kind, ENV);
    const { config } = market.server.contexts.ops;
    const asset = market.server.contexts.listings.market.asset;
    seller = await startHealthSeller(paying(asset));
    const probe = new SellerProbe(config.probe, { network: config.network, asset }, async (hostname) => {
      lookups.push(hostname);
      if (hostname === DEAD_HOST)
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      return [{ address: "127.0.0.1", family: 4 }];
    });
    prober = new HealthProber({
      store: market.server.contexts.listings.health.store,
      probe,
      config: config.health,
      logger: createLogger("silent"),
      now: market.clock.now,
    });
    for (let i = 0; i < 5; i++) {
      deadIds.push(
        (
          await market.list({
            resource: `https://${DEAD_HOST}/api/${i}`,
            method: "GET",
            priceUsdc: "0.03",
            sellerPayTo: SELLER_PAY_TO,
          })
        ).id,
      );
    }
    await market.list({
      resource: `${seller.url.replace("127.0.0.1", "localhost")}/live`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
  });

  const lookupsOf = (host: string) => lookups.filter((name) => name === host).length;

  it("looks the host up once for all its listings, records each as failed, and probes other hosts as ever", async () => {
    const report = await prober.runRound();
    expect(report).toMatchObject({ probed: 6, failed: 5 });
    expect(lookupsOf(DEAD_HOST)).toBe(1);
    expect(lookupsOf("localhost")).toBe(1);
    expect(seller.visits.map((visit) => visit.path)).toEqual(["/live"]);
    for (const id of deadIds) {
      const { body } = await market.json<{ lastProbes: Array<{ ok: boolean; code?: string }> }>(`/listings/${id}`);
      expect(body.lastProbes.map((probe) => [probe.ok, probe.code])).toEqual([[false, "host_unresolvable"]]);
    }
  });

  it("looks it up again once the back-off has run out, once for the next round", async () => {
    expect(ROUND_MS).toBeGreaterThan(UNRESOLVABLE_HOST_BACKOFF_MS);
    market.clock.advance(ROUND_MS);
    expect(await prober.runRound()).toMatchObject({ probed: 6, failed: 5 });
    expect(lookupsOf(DEAD_HOST)).toBe(2);
  });
});
