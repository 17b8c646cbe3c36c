// The listings area: the paid listing, its free dry run, the listing schema and example, and the fee
// documents. Each route answers; GET /listings shows the fee, the listings and a body to start from.
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  startSeller,
  SELLER_PAY_TO,
  summariseListing,
  type Seller,
} from "../support/sellers.js";
import { describeAreaRoutes, jsonOf } from "./area-routes.js";

const LISTING_BODY_FIELDS = ["resource", "priceUsdc", "description", "sellerPayTo"];

describe.each(databaseKinds)("the listings area on $kind", (kind) => {
  let market: CatalogServer;
  let seller: Seller;
  let listed: string;
  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true", ALLOW_LOOPBACK_SELLERS: "true" });
    const asset = market.server.contexts.listings.market.asset;
    seller = await startSeller(() =>
      challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "30000", asset })])),
    );
    listed = (await market.list()).id;
  });
  afterAll(async () => {
    await market?.close();
    await seller?.close();
  });

  const facts = () => market.server.contexts.listings.market;
  const goodBody = () => summariseListing(seller);

  describeAreaRoutes("listings", () => market.server, {
    createListing: {
      // Unpaid, with a good body: the fee challenge, the same as GET /listings/challenge; nothing saved.
      status: 402,
      request: () => ({ body: goodBody() }),
      async check(answer) {
        const header = decodePaymentRequiredHeader(answer.headers.get("PAYMENT-REQUIRED")!);
        expect(header.accepts).toEqual([
          expect.objectContaining({
            amount: "100000",
            payTo: facts().payTo,
            network: "eip155:8453",
            asset: facts().asset,
          }),
        ]);
        const published = (await (await market.server.fetch("/listings/challenge")).json()) as { accepts: unknown[] };
        expect(header.accepts).toEqual(published.accepts);
        expect(jsonOf(answer).message).toContain("x402");
        expect((await market.server.contexts.listings.store.counts(market.clock.now())).foreign).toBe(1);
      },
    },
    getListing: {
      // The live listing with its item (health from the listing-time probe, owner not verified: a
      // stranger paid) and its history; an unknown id is 404 and a malformed one 400 (below).
      status: 200,
      request: () => ({ params: { id: listed } }),
      check(answer) {
        const document = jsonOf(answer);
        expect(document.item.metadata).toMatchObject({ listingId: listed, ownerVerified: false });
        expect(document.item.metadata.health.status).toMatch(/^(healthy|unknown)$/);
        expect(document.links.self).toBe(`${facts().baseUrl}/listings/${listed}`);
        expect(answer.headers.get("ETag")).toMatch(/^W\//);
        // Where it stands and why, and what happened to it (here: listed).
        expect(document.status.state).toBe("live");
        expect(document.status.reasons.map((reason: { code: string }) => reason.code)).toContain("not_reprobed_yet");
        expect(document.history.map((event: { type: string }) => event.type)).toEqual(["listing.created"]);
        expect(document.links.status).toBe(`${facts().baseUrl}/listings/${listed}/status`);
      },
    },
    getListingStatus: {
      // Any stored listing's status and transitions; an unknown id is 404.
      status: 200,
      request: () => ({ params: { id: listed } }),
      async check(answer) {
        const document = jsonOf(answer);
        expect(document).toMatchObject({ listingId: listed, status: { state: "live" } });
        expect(document.history[0]).toMatchObject({
          type: "listing.created",
          listingId: listed,
          status: { state: "live" },
        });
        expect(document.history[0].id).toMatch(/^evt_/);
        const unknown = await market.server.fetch("/listings/00000000-0000-4000-8000-000000000000/status");
        expect(unknown.status).toBe(404);
        expect(((await unknown.json()) as { error: string }).error).toBe("listing_not_found");
      },
    },
    getListings: {
      status: 200,
      check(answer) {
        const body = jsonOf(answer);
        expect(body).toMatchObject({ listingFeeUsdc: "0.10", listingFeePayTo: facts().payTo, ttlDays: 30, count: 1 });
        expect(body.items.map((item: { metadata: { listingId: string } }) => item.metadata.listingId)).toEqual([
          listed,
        ]);
      },
    },
    validateListing: {
      // A good body and a seller that asks for payment: every check passes, nothing charged or saved.
      status: 200,
      request: () => ({ body: goodBody() }),
      check(answer) {
        const report = jsonOf<{
          ok: boolean;
          charged: boolean;
          saved: boolean;
          checks: Array<{ name: string; ok: boolean }>;
        }>(answer);
        expect(report).toMatchObject({ ok: true, charged: false, saved: false });
        expect(report.checks.map((check) => check.name)).toEqual([
          "schema",
          "network",
          "price",
          "description",
          "sellerPayTo",
          "resource",
          "seller-probe",
        ]);
      },
    },
    getValidationGuide: {
      status: 200,
      check(answer) {
        const guide = jsonOf(answer);
        expect(guide).toMatchObject({
          method: "POST",
          url: `${facts().baseUrl}/listings/validate`,
          charged: false,
          saved: false,
        });
        expect(guide.checks).toHaveLength(7);
      },
    },
    getListingSchema: {
      status: 200,
      check(answer) {
        const schema = jsonOf(answer);
        expect(schema).toMatchObject({ title: "ListingRequest", type: "object", additionalProperties: false });
        expect(schema.required).toEqual(LISTING_BODY_FIELDS);
      },
    },
    getListingExample: {
      status: 200,
      check(answer) {
        const example = jsonOf(answer);
        for (const field of LISTING_BODY_FIELDS) expect(example[field], field).toEqual(expect.any(String));
        expect(example.network).toBe("eip155:8453");
      },
    },
    getListingChallenge: {
      status: 200,
      check(answer) {
        const body = jsonOf(answer);
        expect(body).toMatchObject({ x402Version: 2, error: "payment_required" });
        expect(body.accepts).toEqual([
          expect.objectContaining({ scheme: "exact", amount: "100000", payTo: facts().payTo }),
        ]);
      },
    },
    getFeeCard: {
      status: 200,
      check(answer) {
        expect(jsonOf(answer)).toMatchObject({
          usdc: "0.10",
          amount: "100000",
          payTo: facts().payTo,
          network: "eip155:8453",
          path: "/listings",
          method: "POST",
        });
      },
    },
    getFacilitator: {
      status: 200,
      check(answer) {
        const body = jsonOf(answer);
        expect(body).toMatchObject({
          payTo: facts().payTo,
          network: "eip155:8453",
          asset: facts().asset,
          scheme: "exact",
        });
        expect(body.notes.length).toBeGreaterThan(0);
      },
    },
    getOwnerSigningData: {
      // The typed data its owner would sign to claim it: Base's chain id, a fresh nonce.
      status: 200,
      request: () => ({ params: { id: listed }, query: "?action=claim" }),
      check(answer) {
        const body = jsonOf(answer);
        expect(body).toMatchObject({
          action: "claim",
          listingId: listed,
          typedData: { primaryType: "ClaimListing", domain: { chainId: 8453, version: "1" } },
        });
        expect(body.typedData.message.nonce).toMatch(/^0x[0-9a-f]{64}$/);
      },
    },
    claimListing: {
      // A body without its signature is refused by the contract, naming the field.
      status: 400,
      request: () => ({ params: { id: listed }, body: { nonce: `0x${"11".repeat(32)}`, deadline: 1 } }),
      check(answer) {
        expect(JSON.stringify(jsonOf(answer).fields)).toContain("signature");
      },
    },
    updateListing: {
      // A signed update that changes nothing is refused before its signature is read.
      status: 400,
      request: () => ({
        params: { id: listed },
        body: { nonce: `0x${"22".repeat(32)}`, deadline: 1, signature: `0x${"33".repeat(65)}` },
      }),
      check(answer) {
        expect(jsonOf(answer)).toMatchObject({ error: "no_changes" });
      },
    },
    delistListing: {
      status: 400,
      request: () => ({ params: { id: listed }, body: { deadline: 1, signature: `0x${"33".repeat(65)}` } }),
      check(answer) {
        expect(JSON.stringify(jsonOf(answer).fields)).toContain("nonce");
      },
    },
    refreshListing: {
      // Its seller's host does not resolve: the refresh reports the failed probe, and the listing stays.
      status: 200,
      request: () => ({ params: { id: listed } }),
      check(answer) {
        expect(jsonOf(answer)).toMatchObject({
          listingId: listed,
          ok: false,
          code: "host_unresolvable",
          metadataChanged: false,
        });
      },
    },
  });

  it("gives the fee, the active third-party listings, the schema and an example that validates", async () => {
    const { status, body } = await market.json<{
      listingFeeUsdc: string;
      listingFeePayTo: string;
      ttlDays: number;
      count: number;
      items: Array<{ metadata: { listingId: string } }>;
      schema: { additionalProperties: boolean };
      example: Record<string, unknown>;
      links: Record<string, string>;
    }>("/listings");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      listingFeeUsdc: "0.10",
      listingFeePayTo: market.server.contexts.listings.market.payTo,
      ttlDays: 30,
      count: 1,
    });
    expect(body.items.map((item) => item.metadata.listingId)).toEqual([listed]);
    expect(body.schema.additionalProperties).toBe(false);
    expect(body.example.network).toBe("eip155:8453");
    expect(await (await market.server.fetch("/listings.json")).text()).toBe(JSON.stringify(body));
    const validation = await market.server.fetch("/listings/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body.example),
    });
    // The example passes every check of the body; only the probe of its placeholder seller fails,
    // and the dry run says so: nothing charged, nothing saved.
    expect(validation.status).toBe(422);
    const report = (await validation.json()) as {
      ok: boolean;
      charged: boolean;
      saved: boolean;
      error: string;
      checks: Array<{ name: string; ok: boolean; reason: string }>;
    };
    expect(report).toMatchObject({ ok: false, charged: false, saved: false, error: "listing_checks_failed" });
    const failed = report.checks.filter((check) => !check.ok);
    expect(failed).toEqual([
      expect.objectContaining({
        name: "seller-probe",
        reason: expect.stringContaining(new URL(String(body.example.resource)).hostname),
      }),
    ]);
    expect(report.checks.filter((check) => check.ok).map((check) => check.name)).toEqual([
      "schema",
      "network",
      "price",
      "description",
      "sellerPayTo",
      "resource",
    ]);
  });

  it("answers one listing by id: 404 for an id that is not live, 400 naming a malformed id, and literal routes under /listings stay theirs", async () => {
    const missing = await market.server.fetch("/listings/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "listing_not_found" });
    const malformed = await market.server.fetch("/listings/not-a-uuid");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      error: "invalid_request",
      fields: [expect.objectContaining({ in: "path", field: "id" })],
    });
    expect((await market.server.fetch("/listings/feed")).headers.get("content-type")).toContain("json");
    expect((await market.server.fetch("/listings/feed")).status).toBe(200);
    expect((await market.server.fetch("/listings/schema")).status).toBe(200);
    const wrongMethod = await market.server.fetch(`/listings/${listed}`, { method: "PUT" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("Allow")).toContain("GET");
  });
});

describe("the probe limit as route middleware", () => {
  it("refuses a paying client over its probe limit before its body or payment is read: 429 with Retry-After, nothing probed again", async () => {
    const market = await startCatalogServer(databaseKinds[0]!, {
      ALLOW_LOOPBACK_SELLERS: "true",
      PROBE_RATE_PER_CLIENT: "1",
      PROBE_RATE_PER_HOST: "1000",
    });
    const seller = await startSeller(() =>
      challengeAnswer(
        challenge([
          requirement({ payTo: SELLER_PAY_TO, amount: "30000", asset: market.server.contexts.listings.market.asset }),
        ]),
      ),
    );
    try {
      const post = (path: string, body: string, headers: Record<string, string> = {}) =>
        market.server.fetch(path, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        });
      expect((await post("/listings/validate", JSON.stringify(summariseListing(seller)))).status).toBe(200);
      const probes = seller.requests.length;

      // Over the limit, a paid request gets the 429 first, even with a body that is not JSON and a
      // payment that is not one: neither is read.
      const refused = await post("/listings", "{not json", { "PAYMENT-SIGNATURE": "not-a-payment" });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({
        error: "rate_limited",
        message: expect.stringContaining("Nothing was charged"),
      });
      // Without a payment nothing costs a remote call: the unpaid POST gets its challenge, and the
      // free dry run still names what is wrong with a malformed body.
      expect((await post("/listings", "")).status).toBe(402);
      expect((await post("/listings/validate", "{not json")).status).toBe(400);
      expect(seller.requests.length).toBe(probes);
    } finally {
      await market.close();
      await seller.close();
    }
  });
});
