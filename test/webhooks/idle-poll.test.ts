// The webhook deliverer polls every couple of seconds on every instance that holds its lease; most
// polls find nothing. Such a poll is one read of the database (issue 26's idle CPU), and the next
// poll still sees what arrived meanwhile: a new endpoint, a new event, a retry coming due.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { paying, startHealthSeller, type HealthSeller } from "../health/support.js";
import { startReceiver, type Receiver } from "./receiver.js";

const ENV = {
  ALLOW_LOOPBACK_SELLERS: "true",
  HEALTH_HOST_GAP_MS: "0",
  PROBE_TIMEOUT_MS: "1000",
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_RATE_PER_CLIENT: "1000",
};
const STORE_READS = [
  "nothingToDo",
  "pendingVerification",
  "cursor",
  "following",
  "due",
  "subscriptions",
  "prune",
] as const;

describe.each(databaseKinds)("an idle webhook poll on $kind", (kind) => {
  let market: CatalogServer;
  let seller: HealthSeller;
  let endpoint: Receiver;

  beforeAll(async () => {
    market = await startCatalogServer(kind, ENV);
    seller = await startHealthSeller(paying(market.server.contexts.listings.market.asset));
    endpoint = await startReceiver();
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
    await endpoint?.close();
  });

  /** One poll of the job; returns which store methods it called, how often. */
  const poll = async () => {
    const store = market.server.repositories.webhooks;
    const events = market.server.repositories.events;
    const spies = [
      ...STORE_READS.map((name) => [name, vi.spyOn(store, name)] as const),
      ["events.after", vi.spyOn(events, "after")] as const,
    ];
    try {
      expect(await market.server.jobs.runNow("webhook-delivery")).toMatchObject({ ran: true, ok: true });
      return Object.fromEntries(
        spies.filter(([, spy]) => spy.mock.calls.length > 0).map(([name, spy]) => [name, spy.mock.calls.length]),
      );
    } finally {
      for (const [, spy] of spies) spy.mockRestore();
    }
  };

  it("reads nothing but its one check when there is nothing to do, and still delivers what comes after", async () => {
    await poll(); // the first pass places the cursor
    expect(await poll()).toEqual({ nothingToDo: 1 });

    const { id: listingId } = await market.list({
      resource: `${seller.url}/weather`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    const created = await market.server.fetch("/webhooks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: endpoint.url, listingIds: [listingId] }),
    });
    expect(created.status).toBe(201);
    endpoint.secret = ((await created.json()) as { secret: string }).secret;
    expect(await poll()).toMatchObject({ nothingToDo: 1, pendingVerification: 1 }); // a new endpoint: verified on the next poll
    expect(endpoint.received.map((entry) => entry.type)).toEqual(["webhook.verification"]);
    expect(await poll()).toEqual({ nothingToDo: 1 });

    await market.server.contexts.listings.health.prober.runRound(); // unknown -> healthy: an event
    expect(Object.keys(await poll())).toEqual(expect.arrayContaining(["nothingToDo", "cursor", "events.after", "due"]));
    expect(endpoint.received.map((entry) => entry.type)).toEqual(["webhook.verification", "listing.health_changed"]);
    expect(await poll()).toEqual({ nothingToDo: 1 });
  });

  it("forgets old deliveries once an hour, not on every poll", async () => {
    market.clock.advance(3_600_000);
    expect(await poll()).toEqual({ nothingToDo: 1, prune: 1 });
    expect(await poll()).toEqual({ nothingToDo: 1 });
  });
});
