// How a round treats sellers: hostile ones (hanging, huge, redirecting, malformed, gone) end in a
// failure code within the probe deadline; every probe of a round keeps the per-host politeness
// (one in flight per host, a gap between two) while hosts are probed side by side.
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { paying, startHealthSeller, type HealthSeller } from "./support.js";

const PROBE_TIMEOUT_MS = 1000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("hostile sellers", () => {
  let market: CatalogServer;
  let seller: HealthSeller;

  beforeAll(async () => {
    market = await startCatalogServer(databaseKinds[0]!, {
      ALLOW_LOOPBACK_SELLERS: "true",
      HEALTH_HOST_GAP_MS: "0",
      PROBE_TIMEOUT_MS: String(PROBE_TIMEOUT_MS),
      PROBE_MAX_BYTES: "4096",
    });
    seller = await startHealthSeller((request) => {
      switch (request.url) {
        case "/hang":
          return { status: 402, body: "{}", delayMs: 30_000 };
        case "/huge":
          return {
            status: 402,
            headers: { "content-type": "application/json" },
            body: `{"x402Version":2,"pad":"${"x".repeat(8 * 1024 * 1024)}"}`,
          };
        case "/redirect":
          return { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } };
        case "/malformed":
          return { status: 402, headers: { "PAYMENT-REQUIRED": "%%% not base64 {" }, body: "{}" };
        case "/ok-but-200":
          return { status: 200, body: "free lunch" };
        default:
          return paying(market.server.contexts.listings.market.asset)();
      }
    });
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
  });

  it("end in a failure code within the probe deadline, and the good seller beside them stays healthy", async () => {
    const listed: Record<string, string> = {};
    const gone = `http://127.0.0.1:${await freePort()}/gone`;
    for (const path of ["/hang", "/huge", "/redirect", "/malformed", "/ok-but-200", "/fine"]) {
      listed[path] = (
        await market.list({
          resource: `${seller.url}${path}`,
          method: "GET",
          priceUsdc: "0.03",
          sellerPayTo: SELLER_PAY_TO,
        })
      ).id;
    }
    listed["/gone"] = (
      await market.list({ resource: gone, method: "GET", priceUsdc: "0.03", sellerPayTo: SELLER_PAY_TO })
    ).id;

    const started = performance.now();
    const report = await market.server.contexts.listings.health.prober.runRound();
    const elapsed = performance.now() - started;
    expect(report.probed).toBe(7);
    // All on one host: one at a time, so the hang alone may take the deadline; nothing waits for the
    // hanging seller beyond it (the bound is loose: a loaded machine is slow, a missed deadline hangs).
    expect(elapsed).toBeLessThan(PROBE_TIMEOUT_MS + 15_000);

    const codes: Record<string, string | undefined> = {};
    for (const [path, id] of Object.entries(listed)) {
      const { body } = await market.json<{ lastProbes: Array<{ ok: boolean; code?: string; latencyMs?: number }> }>(
        `/listings/${id}`,
      );
      codes[path] = body.lastProbes[0]?.code ?? (body.lastProbes[0]?.ok ? "ok" : undefined);
      expect(body.lastProbes[0]!.latencyMs).toBeLessThan(PROBE_TIMEOUT_MS + 10_000);
    }
    expect(codes).toEqual({
      "/hang": "timeout",
      "/huge": "no_challenge",
      "/redirect": "redirect",
      "/malformed": "malformed_challenge",
      "/ok-but-200": "not_402",
      "/gone": "unreachable",
      "/fine": "ok",
    });
  });
});

describe("per-host politeness", () => {
  let market: CatalogServer;
  const sellers: HealthSeller[] = [];
  const GAP_MS = 150;

  beforeAll(async () => {
    market = await startCatalogServer(databaseKinds[0]!, {
      ALLOW_LOOPBACK_SELLERS: "true",
      HEALTH_HOST_GAP_MS: String(GAP_MS),
      HEALTH_PROBE_CONCURRENCY: "8",
      PROBE_TIMEOUT_MS: "2000",
    });
    const asset = market.server.contexts.listings.market.asset;
    const slow = () => ({ ...paying(asset)(), delayMs: 40 });
    // Two sellers (two ports) on 127.0.0.1 are one host; 127.0.0.2 and 127.0.0.3 are two others.
    for (const host of ["127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.3"])
      sellers.push(await startHealthSeller(slow, host));
    for (const seller of sellers) {
      for (let i = 0; i < 3; i++)
        await market.list({
          resource: `${seller.url}/api/${i}`,
          method: "GET",
          priceUsdc: "0.03",
          sellerPayTo: SELLER_PAY_TO,
        });
    }
  });
  afterAll(async () => {
    await market?.close();
    for (const seller of sellers) await seller.close();
  });

  it("probes one listing per host at a time with the gap between them, and different hosts side by side", async () => {
    const report = await market.server.contexts.listings.health.prober.runRound();
    expect(report.probed).toBe(12);
    const byHost = new Map<string, Array<{ start: number; end: number; inFlightOnHost: number }>>();
    for (const seller of sellers) byHost.set(seller.host, [...(byHost.get(seller.host) ?? []), ...seller.visits]);
    expect([...byHost.values()].map((visits) => visits.length)).toEqual([6, 3, 3]);
    for (const visits of byHost.values()) {
      visits.sort((a, b) => a.start - b.start);
      expect(visits.every((visit) => visit.inFlightOnHost === 1)).toBe(true);
      for (let i = 1; i < visits.length; i++)
        expect(visits[i]!.start - visits[i - 1]!.end).toBeGreaterThanOrEqual(GAP_MS - 2);
    }
    // The hosts did not wait for each other: 127.0.0.2's first probe started before 127.0.0.1's second.
    const first = byHost.get("127.0.0.1")!;
    expect(byHost.get("127.0.0.2")![0]!.start).toBeLessThan(first[1]!.start);
  });
});
