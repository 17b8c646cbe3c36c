// What a seller sees happen to its listing, as it happens: a real loopback seller goes down, comes
// back and changes its price, and the term runs out; each change is one event in the listing's
// history (GET /listings/{id}/status) and the seller's feed, in order, with its reasons and evidence.
import { parseFeed } from "@rowanmanning/feed-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { DOWN, paying, startHealthSeller, type HealthSeller } from "../health/support.js";

const ROUND_MS = 20 * 60_000;
const ENV = { ALLOW_LOOPBACK_SELLERS: "true", HEALTH_HOST_GAP_MS: "0", PROBE_TIMEOUT_MS: "1000" };

interface Event {
  id: string;
  listingId: string;
  seq: number;
  type: string;
  at: string;
  status: { state: string; reasons: Array<{ code: string; evidence?: Record<string, unknown> }> };
  data?: Record<string, unknown>;
}
interface StatusAnswer {
  status: Event["status"];
  history: Event[];
}

describe.each(databaseKinds)("a listing's events on $kind", (kind) => {
  let market: CatalogServer;
  let seller: HealthSeller;
  let asset: string;

  beforeAll(async () => {
    market = await startCatalogServer(kind, ENV);
    asset = market.server.contexts.listings.market.asset;
    seller = await startHealthSeller(paying(asset));
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
  });

  async function round() {
    await market.server.contexts.listings.health.prober.runRound();
    market.clock.advance(ROUND_MS);
  }
  const statusOf = async (id: string) => {
    const { status, body } = await market.json<StatusAnswer>(`/listings/${id}/status`);
    expect(status).toBe(200);
    return body;
  };
  /** Oldest first, only the types asked for. */
  const eventsOf = async (id: string) => [...(await statusOf(id)).history].reverse();

  it("records created, health changes and drift once each, in order, with their evidence", async () => {
    const { id } = await market.list({
      resource: `${seller.url}/weather`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    await round(); // unknown -> healthy
    seller.answer = DOWN;
    for (let i = 0; i < 3; i++) await round(); // healthy -> unhealthy after 3 failures
    const down = await statusOf(id);
    expect(down.status.state).toBe("unhealthy");
    expect(down.status.reasons[0]).toMatchObject({ code: "probe_failing", evidence: { failureCode: "not_402" } });
    seller.answer = paying(asset);
    for (let i = 0; i < 3; i++) await round(); // unhealthy -> healthy after 2 successes; the third changes nothing
    seller.answer = paying(asset, "50000"); // the seller raised its price without updating the listing
    await round();
    await round(); // still drifted: no second event

    const events = await eventsOf(id);
    expect(events.map((event) => [event.type, event.data?.from, event.data?.to])).toEqual([
      ["listing.created", undefined, undefined],
      ["listing.health_changed", "unknown", "healthy"],
      ["listing.health_changed", "healthy", "unhealthy"],
      ["listing.health_changed", "unhealthy", "healthy"],
      ["listing.drifted", "healthy", "drifted"],
    ]);
    expect(events.map((event) => event.seq)).toEqual([...events.map((event) => event.seq)].sort((a, b) => a - b));
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(events[2]!.data).toMatchObject({ failureCode: "not_402" });
    expect(events[4]!.status).toMatchObject({
      state: "drifted",
      reasons: [expect.objectContaining({ code: "terms_drifted" })],
    });
    expect(events[4]!.data).toMatchObject({ failureCode: "price_mismatch" });

    // The seller's feed carries the same events, newest first, in JSON Feed and Atom.
    const feed = await market.json<{ items: Array<{ id: string; event: Event }> }>(
      `/sellers/${SELLER_PAY_TO}/feed.json`,
    );
    expect(feed.body.items.filter((item) => item.event.listingId === id).map((item) => item.id)).toEqual(
      events.map((event) => event.id).reverse(),
    );
    const atom = await market.server.fetch(`/sellers/${SELLER_PAY_TO.toLowerCase()}/feed.atom`);
    const parsed = parseFeed(await atom.text());
    expect(parsed.items.map((item) => item.id)).toContain(`urn:x402-market:${events[4]!.id}`);
    const etag = atom.headers.get("etag")!;
    expect(
      (await market.server.fetch(`/sellers/${SELLER_PAY_TO}/feed.atom`, { headers: { "if-none-match": etag } })).status,
    ).toBe(304);
  });

  it("warns 7 days and 1 day before the term ends and records its end, once each however often the job runs", async () => {
    const { id } = await market.list({
      resource: `${seller.url}/term`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    const terms = async () =>
      expect(await market.server.jobs.runNow("listing-terms")).toMatchObject({ ran: true, ok: true });
    const termEvents = async () =>
      (await eventsOf(id)).filter((event) => event.type === "listing.expiring" || event.type === "listing.expired");
    await terms();
    expect(await termEvents()).toEqual([]);

    market.clock.advance(24 * DAY_MS);
    await terms();
    await terms();
    const etagBefore = (await market.json(`/sellers/${SELLER_PAY_TO}/feed.json`)).headers.get("etag");
    expect((await termEvents()).map((event) => event.data?.milestone)).toEqual(["7d"]);
    expect((await statusOf(id)).status).toMatchObject({
      state: "expiring",
      reasons: [expect.anything(), expect.objectContaining({ code: "expiring_soon" })],
    });

    market.clock.advance(5.5 * DAY_MS);
    await Promise.all([terms(), terms()]);
    expect((await termEvents()).map((event) => event.data?.milestone)).toEqual(["7d", "1d"]);
    // An event with no catalog change still moves the seller feed's ETag.
    expect((await market.json(`/sellers/${SELLER_PAY_TO}/feed.json`)).headers.get("etag")).not.toBe(etagBefore);

    market.clock.advance(DAY_MS);
    await terms();
    await terms();
    const ended = await termEvents();
    expect(ended.map((event) => [event.type, event.data?.milestone])).toEqual([
      ["listing.expiring", "7d"],
      ["listing.expiring", "1d"],
      ["listing.expired", "ended"],
    ]);
    expect(ended[2]!.status).toMatchObject({
      state: "expired",
      reasons: [expect.objectContaining({ code: "term_ended" })],
    });
    // Gone from the catalog, still explained.
    expect((await market.json(`/listings/${id}`)).status).toBe(404);
    expect((await statusOf(id)).status.state).toBe("expired");
  });
});
