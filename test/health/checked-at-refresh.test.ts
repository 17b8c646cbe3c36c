// A round's probe that moves nothing a reader ranks or filters by (only lastCheckedAt, and the
// lastHealthyAt of a listing that stays healthy) writes no catalog version: caches and ETags hold,
// the listing's published lastCheckedAt waits until it is an hour behind (HEALTH_CHECKED_AT_REFRESH_MS),
// and the listing document's lastProbes shows every probe at once. A probe outside the rounds (a
// refresh anyone may ask for) publishes at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEALTH_CHECKED_AT_REFRESH_MS } from "../../src/constants.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

const ROUND_MS = 20 * 60_000;
const HOLDER = "test-round";

type Health = {
  status: string;
  lastCheckedAt?: string;
  lastHealthyAt?: string;
  uptime7d?: number;
  failureCode?: string;
};
type ListingBody = { item: { metadata: { health: Health } }; lastProbes: Array<{ at: string; ok: boolean }> };

describe.each(databaseKinds)("a round's probe that moves only lastCheckedAt, on $kind", (kind) => {
  let market: CatalogServer;

  beforeAll(async () => {
    market = await startCatalogServer(kind);
  });
  afterAll(async () => {
    await market?.close();
  });

  const health = () => market.server.contexts.listings.health;
  const version = async () => (await market.server.contexts.listings.freshness.current()).token;
  const listingDocument = async (id: string) => {
    const { status, body } = await market.json<ListingBody>(`/listings/${id}`);
    expect(status).toBe(200);
    return body;
  };
  const catalogEtag = async () => (await market.json("/discovery/resources?limit=50")).headers.get("etag");

  /**
   * A round later, a round's probe of the listings then due: each passes at a steady 40 ms, but
   * `failing` fails with a timeout. Returns the probes' time.
   */
  async function roundProbe(failing?: string): Promise<string> {
    market.clock.advance(ROUND_MS);
    const now = market.clock.now();
    const claimed = await health().store.claim(HOLDER, now, 60_000, 10);
    expect(claimed.length).toBeGreaterThan(0);
    const outcome = (id: string) =>
      id === failing ? { ok: false as const, code: "timeout", latencyMs: 40 } : { ok: true as const, latencyMs: 40 };
    await health().store.record(
      HOLDER,
      claimed.map((listing) => ({ claimed: listing, outcome: outcome(listing.listingId), at: now })),
      now,
      health().prober.schedule,
    );
    return now.toISOString();
  }

  it("keeps the catalog version until the published check is an hour old, and shows every probe in lastProbes", async () => {
    const { id } = await market.list({});
    await health().store.schedule(market.clock.now());
    const firstCheck = await roundProbe();
    const first = await listingDocument(id);
    expect(first.item.metadata.health).toMatchObject({
      status: "healthy",
      lastCheckedAt: firstCheck,
      lastHealthyAt: firstCheck,
      uptime7d: 1,
    });
    const [token, etag] = [await version(), await catalogEtag()];

    const checks: string[] = [];
    // The document just read stays in the response cache, but not past the listing's next due time.
    while (checks.length * ROUND_MS + ROUND_MS < HEALTH_CHECKED_AT_REFRESH_MS) checks.push(await roundProbe());
    expect(checks.length).toBeGreaterThan(0);
    expect(await version()).toBe(token);
    expect(await catalogEtag()).toBe(etag);
    const quiet = await listingDocument(id);
    expect(quiet.item.metadata.health).toEqual(first.item.metadata.health);
    expect(quiet.lastProbes.map((probe) => probe.at)).toEqual([...checks.reverse(), firstCheck]);

    // An hour after the published check, the next round's probe publishes it.
    const hourLater = await roundProbe();
    expect(Date.parse(hourLater) - Date.parse(firstCheck)).toBeGreaterThanOrEqual(HEALTH_CHECKED_AT_REFRESH_MS);
    expect(await version()).not.toBe(token);
    expect(await catalogEtag()).not.toBe(etag);
    expect((await listingDocument(id)).item.metadata.health).toMatchObject({
      status: "healthy",
      lastCheckedAt: hourLater,
      lastHealthyAt: hourLater,
    });
  });

  it("publishes a refresh outside the rounds at once, and a round's probe that moves a failure code", async () => {
    const { id } = await market.list({});
    await health().store.schedule(market.clock.now());
    await roundProbe();
    let token = await version();
    market.clock.advance(60_000);
    const refreshedAt = market.clock.now();
    await health().recordRefresh(id, { ok: true, latencyMs: 40 }, refreshedAt);
    expect(await version()).not.toBe(token);
    expect((await listingDocument(id)).item.metadata.health).toMatchObject({
      status: "healthy",
      lastCheckedAt: refreshedAt.toISOString(),
    });

    token = await version();
    const failed = await roundProbe(id);
    expect(await version()).not.toBe(token);
    expect((await listingDocument(id)).item.metadata.health).toMatchObject({
      status: "healthy",
      failureCode: "timeout",
      lastCheckedAt: failed,
    });
  });
});
