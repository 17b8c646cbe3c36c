// Issue 42, item 3: webhook verification used to take the 50 oldest pending subscriptions and re-send
// each its challenge every pass (2 s) for 24 hours. Sixty endpoints that answered without the challenge
// kept a genuine subscription unverified for 48 minutes and drew 23.5 POSTs a second to URLs the
// attacker chose. Now: round-robin by next-attempt time, a growing wait after each unanswered request,
// an answer without the challenge refused at once, and caps on pending subscriptions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { startReceiver, type Receiver } from "./receiver.js";

const PASS_MS = 2000; // the deliverer's default interval: the clock moves this much between passes
const ENV = {
  ALLOW_LOOPBACK_SELLERS: "true",
  TRUST_PROXY: "true",
  WEBHOOK_TIMEOUT_MS: "500",
  WEBHOOK_RATE_PER_CLIENT: "100000",
};
const OPEN = { ...ENV, WEBHOOK_PENDING_PER_CLIENT: "1000", WEBHOOK_PENDING_PER_HOST: "1000" };

interface Created {
  id: string;
  secret: string;
  error?: string;
  message?: string;
}

describe.each(databaseKinds)("webhook verification under abuse on $kind", (kind) => {
  const receivers: Receiver[] = [];
  const markets: CatalogServer[] = [];

  afterAll(async () => {
    await Promise.all(markets.map((market) => market.close()));
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  const receiver = async () => {
    const started = await startReceiver();
    receivers.push(started);
    return started;
  };
  const started = async (env: Record<string, string>) => {
    const market = await startCatalogServer(kind, env);
    markets.push(market);
    const { id } = await market.list({ resource: "https://seller.example/api", sellerPayTo: SELLER_PAY_TO });
    return { market, listingId: id };
  };
  const subscribe = async (market: CatalogServer, url: string, listingId: string, client = "198.51.100.1") => {
    const response = await market.server.fetch("/webhooks", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": client },
      body: JSON.stringify({ url, listingIds: [listingId] }),
    });
    return { status: response.status, body: (await response.json()) as Created };
  };
  const status = async (market: CatalogServer, id: string) => {
    const row = await market.server.repositories.webhooks.find(id);
    return { status: row?.status, disabledReason: row?.disabledReason ?? undefined };
  };
  /** Passes (2 s of the clock apart) until `id` is verified; how many it took. */
  const passesUntilVerified = async (market: CatalogServer, id: string, most: number) => {
    for (let pass = 1; pass <= most; pass++) {
      expect(await market.server.jobs.runNow("webhook-delivery")).toMatchObject({ ran: true, ok: true });
      if ((await status(market, id)).status === "active") return pass;
      market.clock.advance(PASS_MS);
    }
    return Infinity;
  };

  describe("sixty hostile endpoints ahead of a genuine one", () => {
    let market: CatalogServer;
    let listingId: string;
    beforeAll(async () => {
      ({ market, listingId } = await started(OPEN));
    });

    it("answering without the challenge: the genuine one is verified on the second pass, and each of them gets one POST", async () => {
      const hostile = await receiver();
      hostile.mode = "no-echo";
      const refused: string[] = [];
      for (let i = 0; i < 60; i++) {
        const created = await subscribe(market, `${hostile.url}?n=${i}`, listingId);
        expect(created.status).toBe(201);
        refused.push(created.body.id);
        market.clock.advance(10);
      }
      const genuine = await receiver();
      const { body } = await subscribe(market, genuine.url, listingId);

      // Alone it takes one pass; behind sixty, one more (a pass sends 50 challenges at most).
      expect(await passesUntilVerified(market, body.id, 5)).toBe(2);
      for (let pass = 0; pass < 30; pass++) {
        market.clock.advance(PASS_MS);
        await market.server.jobs.runNow("webhook-delivery");
      }
      expect(hostile.attempts).toBe(60); // one each, never asked again (was: every pass for 24 hours)
      for (const id of refused)
        expect(await status(market, id)).toEqual({ status: "disabled", disabledReason: "challenge_not_echoed" });
    });

    it("not answering at all: the genuine one is verified on the second pass, and each of them is asked less and less often", async () => {
      const gone = await receiver();
      await gone.close(); // its port refuses connections: no answer
      const silent: string[] = [];
      for (let i = 0; i < 60; i++) {
        const created = await subscribe(market, `${gone.url}?n=${i}`, listingId, "198.51.100.2");
        expect(created.status).toBe(201);
        silent.push(created.body.id);
        market.clock.advance(10);
      }
      const genuine = await receiver();
      const { body } = await subscribe(market, genuine.url, listingId, "198.51.100.2");
      expect(await passesUntilVerified(market, body.id, 5)).toBe(2);

      // A minute of passes: requests after 2, 4, 8, 16, 32 s, about 6 each (was: 30 each, 2 s apart).
      for (let pass = 0; pass < 30; pass++) {
        market.clock.advance(PASS_MS);
        await market.server.jobs.runNow("webhook-delivery");
      }
      const attempts = await Promise.all(
        silent.map(async (id) => (await market.server.repositories.webhooks.find(id))!.verifyAttempts),
      );
      expect(Math.max(...attempts)).toBeLessThanOrEqual(7);
      expect(Math.min(...attempts)).toBeGreaterThanOrEqual(4);
      for (const id of silent) expect((await status(market, id)).status).toBe("pending");
    });
  });

  it("caps pending subscriptions per client address, per target host and in all, an endpoint refused counting for a day", async () => {
    const { market, listingId } = await started({
      ...ENV,
      WEBHOOK_PENDING_PER_CLIENT: "3",
      WEBHOOK_PENDING_PER_HOST: "4",
      WEBHOOK_PENDING_TOTAL: "5",
    });
    const hostile = await receiver();
    hostile.mode = "no-echo";
    const count = async () => (await market.server.repositories.webhooks.following()).length;
    const loopback = (n: number) => `${hostile.url}?n=${n}`;
    const named = (n: number) => `${hostile.url.replace("127.0.0.1", "localhost")}?n=${n}`;

    for (let n = 0; n < 3; n++)
      expect((await subscribe(market, loopback(n), listingId, "203.0.113.1")).status).toBe(201);
    const before = await count();
    const overClient = await subscribe(market, loopback(3), listingId, "203.0.113.1");
    expect(overClient.status).toBe(429);
    expect(overClient.body.error).toBe("too_many_pending_subscriptions");
    expect(overClient.body.message).toContain("WEBHOOK_PENDING_PER_CLIENT");
    expect(await count()).toBe(before); // nothing saved

    // The three answer without the challenge and are refused: they still hold their client's places.
    await market.server.jobs.runNow("webhook-delivery");
    expect((await market.server.repositories.webhooks.following()).length).toBe(0);
    expect((await subscribe(market, loopback(4), listingId, "203.0.113.1")).body.message).toContain(
      "WEBHOOK_PENDING_PER_CLIENT",
    );

    // Another client, the same host: one more place for 127.0.0.1, then the host's cap.
    expect((await subscribe(market, loopback(5), listingId, "203.0.113.2")).status).toBe(201);
    const overHost = await subscribe(market, loopback(6), listingId, "203.0.113.2");
    expect([overHost.status, overHost.body.message]).toEqual([
      429,
      expect.stringContaining("WEBHOOK_PENDING_PER_HOST"),
    ]);

    // Another host: places left in all until five are held (three refused, two pending).
    expect((await subscribe(market, named(7), listingId, "203.0.113.3")).status).toBe(201);
    const overTotal = await subscribe(market, named(8), listingId, "203.0.113.4");
    expect([overTotal.status, overTotal.body.message]).toEqual([429, expect.stringContaining("WEBHOOK_PENDING_TOTAL")]);

    // A day later the refused endpoints' places are free again.
    market.clock.advance(24 * 3_600_000 + 60_000);
    expect((await subscribe(market, named(9), listingId, "203.0.113.1")).status).toBe(201);
  });

  it("does not free a place when an unverified subscription is deleted: subscribe, delete, subscribe meets the cap", async () => {
    const { market, listingId } = await started({ ...ENV, WEBHOOK_PENDING_PER_CLIENT: "2" });
    const endpoint = await receiver();
    const cycle = async (n: number) => {
      const created = await subscribe(market, `${endpoint.url}?n=${n}`, listingId, "203.0.113.9");
      if (created.status !== 201) return created;
      const deleted = await market.server.fetch(`/webhooks/${created.body.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${created.body.secret}` },
      });
      expect(deleted.status).toBe(200);
      expect(
        (
          await market.json(`/webhooks/${created.body.id}`, {
            headers: { authorization: `Bearer ${created.body.secret}` },
          })
        ).status,
      ).toBe(401);
      return created;
    };
    expect((await cycle(0)).status).toBe(201);
    expect((await cycle(1)).status).toBe(201);
    const third = await cycle(2);
    expect([third.status, third.body.message]).toEqual([429, expect.stringContaining("WEBHOOK_PENDING_PER_CLIENT")]);
    market.clock.advance(24 * 3_600_000 + 60_000);
    await market.server.jobs.runNow("webhook-delivery"); // the hourly prune forgets them
    expect((await cycle(3)).status).toBe(201);
    // A verified subscription is deleted outright.
    const kept = await subscribe(market, `${endpoint.url}?n=4`, listingId, "203.0.113.9");
    await market.server.jobs.runNow("webhook-delivery");
    expect(await status(market, kept.body.id)).toEqual({ status: "active", disabledReason: undefined });
    await market.server.fetch(`/webhooks/${kept.body.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${kept.body.secret}` },
    });
    expect(await market.server.repositories.webhooks.find(kept.body.id)).toBeNull();
    expect((await subscribe(market, `${endpoint.url}?n=5`, listingId, "203.0.113.9")).status).toBe(201); // n=3 (deleted unverified) and n=5 hold the two places
    expect((await subscribe(market, `${endpoint.url}?n=6`, listingId, "203.0.113.9")).status).toBe(429);
  });
});
