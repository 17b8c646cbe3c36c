// Signed webhooks through real parts: a subscriber's endpoint (a real HTTP server verifying every
// signature with the Standard Webhooks library) follows a listing whose real loopback seller goes
// down, comes back and changes its price; a subscriber that is down catches up; hostile endpoints
// are refused or cut off; only the holder of the secret reads or deletes a subscription.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { DOWN, paying, startHealthSeller, type HealthSeller } from "../health/support.js";
import { startReceiver, type Receiver } from "./receiver.js";

const ROUND_MS = 20 * 60_000;
const ENV = {
  ALLOW_LOOPBACK_SELLERS: "true",
  HEALTH_HOST_GAP_MS: "0",
  PROBE_TIMEOUT_MS: "1000",
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_RATE_PER_CLIENT: "1000",
  WEBHOOK_PENDING_PER_CLIENT: "1000",
  WEBHOOK_PENDING_PER_HOST: "1000",
};

interface Created {
  id: string;
  status: string;
  secret: string;
}

describe.each(databaseKinds)("signed webhooks on $kind", (kind) => {
  let market: CatalogServer;
  let seller: HealthSeller;
  let asset: string;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    market = await startCatalogServer(kind, ENV);
    asset = market.server.contexts.listings.market.asset;
    seller = await startHealthSeller(paying(asset));
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });
  afterEach(() => {
    seller.answer = paying(asset);
  });

  const receiver = async () => {
    const started = await startReceiver();
    receivers.push(started);
    return started;
  };
  const deliver = async () =>
    expect(await market.server.jobs.runNow("webhook-delivery")).toMatchObject({ ran: true, ok: true });
  const round = async () => {
    await market.server.contexts.listings.health.prober.runRound();
    market.clock.advance(ROUND_MS);
  };
  const subscribe = async (body: Record<string, unknown>) => {
    const response = await market.server.fetch("/webhooks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Created & { error?: string } };
  };
  const subscribed = async (to: Receiver, body: Record<string, unknown>) => {
    const { status, body: created } = await subscribe({ url: to.url, ...body });
    expect(status, JSON.stringify(created)).toBe(201);
    expect(created.secret).toMatch(/^whsec_/);
    to.secret = created.secret;
    return created;
  };
  const show = (id: string, secret: string) =>
    market.json<{ status: string; deliveries: Array<{ status: string; attempts: number; lastError?: string }> }>(
      `/webhooks/${id}`,
      {
        headers: { authorization: `Bearer ${secret}` },
      },
    );

  it("verifies the endpoint, then delivers each event once, signed, in order, as the seller goes down, comes back and changes its price", async () => {
    const { id: listingId } = await market.list({
      resource: `${seller.url}/weather`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    const endpoint = await receiver();
    const created = await subscribed(endpoint, { listingIds: [listingId] });
    expect(created.status).toBe("pending");

    await round(); // unknown -> healthy, before the endpoint is verified: queued, not sent
    await deliver();
    expect(endpoint.received.map((entry) => entry.type)).toEqual(["webhook.verification", "listing.health_changed"]);
    expect((await show(created.id, created.secret)).body.status).toBe("active");

    seller.answer = DOWN;
    for (let i = 0; i < 3; i++) await round();
    seller.answer = paying(asset);
    for (let i = 0; i < 2; i++) await round();
    seller.answer = paying(asset, "50000");
    await round();
    await deliver();
    await deliver(); // nothing new: nothing sent twice

    const events = endpoint.events();
    expect(events.map((event) => [event.type, event.data.data?.from, event.data.data?.to])).toEqual([
      ["listing.health_changed", "unknown", "healthy"],
      ["listing.health_changed", "healthy", "unhealthy"],
      ["listing.health_changed", "unhealthy", "healthy"],
      ["listing.drifted", "healthy", "drifted"],
    ]);
    expect(events.every((event) => event.verified)).toBe(true);
    expect(events.map((event) => event.id)).toEqual(events.map((event) => event.data.id));
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    const seqs = events.map((event) => event.data.seq!);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const log = (await show(created.id, created.secret)).body.deliveries;
    expect(log.map((entry) => entry.status)).toEqual(["delivered", "delivered", "delivered", "delivered"]);
  });

  it("keeps a down subscriber's events and delivers all of them, in order, once it is back", async () => {
    const { id: listingId } = await market.list({
      resource: `${seller.url}/rates`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    const endpoint = await receiver();
    const created = await subscribed(endpoint, { listingIds: [listingId], events: ["listing.health_changed"] });
    await deliver(); // verified
    endpoint.mode = "down";
    await round(); // unknown -> healthy
    seller.answer = DOWN;
    for (let i = 0; i < 3; i++) await round(); // -> unhealthy
    await deliver();
    const failing = (await show(created.id, created.secret)).body;
    // The oldest undelivered event was tried and failed; the later one waits behind it (order per subscriber).
    expect(failing.deliveries.map((entry) => [entry.status, entry.attempts, entry.lastError])).toEqual([
      ["pending", 0, undefined],
      ["pending", 1, "http_503"],
    ]);
    // Hours later the endpoint is back: the retry comes due and everything arrives in order.
    market.clock.advance(3 * 3_600_000);
    endpoint.mode = "ok";
    for (let i = 0; i < 4; i++) {
      market.clock.advance(3_600_000);
      await deliver();
    }
    expect(endpoint.events().map((event) => event.data.data?.to)).toEqual(["healthy", "unhealthy"]);
    expect(endpoint.events().every((event) => event.verified)).toBe(true);
  });

  it("disables a subscription whose endpoint fails for more than a day, and one that never answers its challenge", async () => {
    const { id: listingId } = await market.list({
      resource: `${seller.url}/gone`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    const endpoint = await receiver();
    const created = await subscribed(endpoint, { listingIds: [listingId] });
    await deliver();
    endpoint.mode = "down";
    await round();
    for (let hour = 0; hour < 36; hour++) {
      market.clock.advance(3_600_000);
      await deliver();
    }
    const disabled = (await show(created.id, created.secret)).body;
    expect(disabled, JSON.stringify(disabled)).toMatchObject({
      status: "disabled",
      disabledReason: "deliveries_failing",
    });
    expect(disabled.deliveries[0]).toMatchObject({ status: "failed", attempts: 8 });

    const silent = await receiver();
    const unverified = await subscribed(silent, { listingIds: [listingId] });
    await silent.close(); // nothing answers at its address: asked again later, with a longer wait each time
    await deliver();
    expect((await show(unverified.id, unverified.secret)).body.status).toBe("pending");
    market.clock.advance(DAY_MS + 60_000);
    await deliver();
    expect((await show(unverified.id, unverified.secret)).body).toMatchObject({
      status: "disabled",
      disabledReason: "verification_failed",
    });
  });

  it("cuts off hostile endpoints: redirects are not followed, hangs time out, huge answers are not read, private addresses are refused", async () => {
    const { id: listingId } = await market.list({
      resource: `${seller.url}/hostile`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    for (const [mode, outcome] of [
      ["redirect", { status: "disabled", disabledReason: "challenge_not_echoed" }],
      ["hang", { status: "pending" }],
      ["huge", { status: "disabled", disabledReason: "challenge_not_echoed" }],
    ] as const) {
      const endpoint = await receiver();
      const created = await subscribed(endpoint, { listingIds: [listingId] });
      endpoint.mode = mode;
      await deliver();
      // A redirect is an answer without the challenge (refused at once, never asked again); a hang is
      // asked again later; a huge 2xx answer is cut off after a few KB (it cannot echo a challenge).
      expect((await show(created.id, created.secret)).body, mode).toMatchObject(outcome);
      const attempts = endpoint.attempts;
      market.clock.advance(60_000);
      await deliver();
      expect(endpoint.attempts - attempts, mode).toBe(mode === "hang" ? 1 : 0);
      endpoint.mode = "down";
    }
    for (const url of ["http://10.0.0.7/hooks", "http://169.254.169.254/latest", "https://[::ffff:192.168.1.1]/x"]) {
      const created = await subscribed({ url } as Receiver, { listingIds: [listingId] });
      await deliver();
      expect((await show(created.id, created.secret)).body.status, url).toBe("pending");
    }
    const plainHttp = await subscribe({ url: "http://example.com/hooks", listingIds: [listingId] });
    expect(plainHttp.status).toBe(201); // loopback receivers are allowed here (a test setting), so http passes the syntax check...
    await deliver();
    expect((await show(plainHttp.body.id, plainHttp.body.secret)).body.status).toBe("pending"); // ...but never reaches a public http host
  });

  it("lets only the secret's holder read or delete a subscription, and refuses malformed subscriptions without saving", async () => {
    const { id: listingId } = await market.list({
      resource: `${seller.url}/private`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    const endpoint = await receiver();
    const created = await subscribed(endpoint, { listingIds: [listingId] });
    expect((await market.json(`/webhooks/${created.id}`)).status).toBe(401);
    expect(
      (await market.json(`/webhooks/${created.id}`, { headers: { authorization: "Bearer whsec_wrong" } })).status,
    ).toBe(401);
    expect(
      (
        await market.json(`/webhooks/00000000-0000-4000-8000-000000000000`, {
          headers: { authorization: `Bearer ${created.secret}` },
        })
      ).status,
    ).toBe(401);
    for (const body of [
      { url: endpoint.url },
      { url: endpoint.url, listingIds: [listingId], search: { q: "weather" } },
      { url: "ftp://example.com/x", listingIds: [listingId] },
      { url: endpoint.url, listingIds: ["00000000-0000-4000-8000-000000000000"] },
    ]) {
      const refused = await subscribe(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    const deleted = await market.server.fetch(`/webhooks/${created.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${created.secret}` },
    });
    expect(deleted.status).toBe(200);
    expect((await show(created.id, created.secret)).status).toBe(401);
  });

  it("holds an endpoint to 100 subscriptions when many are created at once", async () => {
    const { id: listingId } = await market.list({
      resource: `${seller.url}/capped`,
      method: "GET",
      priceUsdc: "0.03",
      sellerPayTo: SELLER_PAY_TO,
    });
    const { url } = await receiver();
    const answers = await Promise.all(Array.from({ length: 110 }, () => subscribe({ url, listingIds: [listingId] })));
    const statuses = answers.map((answer) => answer.status).sort();
    const others = answers
      .filter((answer) => answer.status !== 201 && answer.status !== 409)
      .map((answer) => [answer.status, answer.body]);
    expect(others).toEqual([]);
    expect(statuses.filter((status) => status === 201)).toHaveLength(100);
    expect(statuses.filter((status) => status === 409)).toHaveLength(10);
    expect(answers.find((answer) => answer.status === 409)?.body.error).toBe("too_many_subscriptions");
    await Promise.all(
      answers
        .filter((each) => each.status === 201)
        .map((answer) =>
          market.server.fetch(`/webhooks/${answer.body.id}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${answer.body.secret}` },
          }),
        ),
    );
  });

  it("subscribes a seller to every listing of its payTo by its EIP-712 signature; a stranger's, a replayed or an expired one saves nothing", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const endpoint = await receiver();
    const signing = await market.json<{
      typedData: {
        domain: Record<string, unknown>;
        types: Record<string, unknown>;
        primaryType: string;
        message: Record<string, unknown>;
      };
      submit: { body: { url: string; seller: Record<string, unknown> } };
    }>(`/webhooks/sign?payTo=${owner.address}&url=${encodeURIComponent(endpoint.url)}`);
    expect(signing.status).toBe(200);
    const sign = (account: typeof owner) => account.signTypedData(signing.body.typedData as never);
    const body = (signature: string) => ({
      ...signing.body.submit.body,
      seller: { ...signing.body.submit.body.seller, signature },
    });

    expect((await subscribe(body(await sign(stranger)))).body.error).toBe("not_owner");
    expect((await subscribe({ ...body(await sign(owner)), url: `${endpoint.url}?other` })).body.error).toBe(
      "not_owner",
    );
    const accepted = await subscribe(body(await sign(owner)));
    expect(accepted.status).toBe(201);
    endpoint.secret = accepted.body.secret;
    expect((await subscribe(body(await sign(owner)))).body.error).toBe("nonce_used");

    await deliver();
    const mine = await market.list({ resource: `${seller.url}/owned`, sellerPayTo: owner.address });
    await market.list({ resource: `${seller.url}/not-mine`, sellerPayTo: stranger.address });
    await deliver();
    expect(endpoint.events().map((event) => [event.type, event.data.listingId])).toEqual([
      ["listing.created", mine.id],
    ]);
    expect(endpoint.events()[0]!.verified).toBe(true);
  });

  it("tells a saved search about new listings that match it", async () => {
    const endpoint = await receiver();
    await subscribed(endpoint, { search: { q: "tide tables", maxPrice: 0.05 } });
    await deliver();
    const match = await market.list({
      resource: `${seller.url}/tides`,
      description: "Tide tables for every harbour, hourly",
      priceUsdc: "0.02",
    });
    await market.list({
      resource: `${seller.url}/tides-pricey`,
      description: "Tide tables, premium",
      priceUsdc: "0.50",
    });
    await market.list({ resource: `${seller.url}/sun`, description: "Sunrise and sunset times", priceUsdc: "0.01" });
    await deliver();
    expect(endpoint.events().map((event) => [event.type, event.data.listingId])).toEqual([
      ["listing.created", match.id],
    ]);
  });
});
