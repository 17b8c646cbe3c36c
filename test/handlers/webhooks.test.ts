// The webhooks area: each route answers what a subscriber reads first. Delivery itself, end to end,
// is in test/webhooks/.
import { afterAll, beforeAll, describe, expect } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { describeAreaRoutes, jsonOf } from "./area-routes.js";

const RECEIVER = "http://127.0.0.1:9/hooks";
const PAY_TO = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";

describe.each(databaseKinds)("the webhooks area on $kind", (kind) => {
  let market: CatalogServer;
  let listingId: string;
  let subscription: { id: string; secret: string };

  beforeAll(async () => {
    market = await startCatalogServer(kind, { ALLOW_LOOPBACK_SELLERS: "true" });
    listingId = (await market.list()).id;
    const created = await market.server.fetch("/webhooks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: RECEIVER, listingIds: [listingId] }),
    });
    subscription = (await created.json()) as { id: string; secret: string };
  });
  afterAll(async () => {
    await market?.close();
  });

  describeAreaRoutes("webhooks", () => market.server, {
    createWebhook: {
      status: 201,
      request: () => ({ body: { url: RECEIVER, search: { q: "weather" }, events: ["listing.created"] } }),
      check(answer) {
        const created = jsonOf(answer);
        expect(created).toMatchObject({
          kind: "search",
          status: "pending",
          search: { q: "weather" },
          events: ["listing.created"],
          deliveries: [],
        });
        expect(created.secret).toMatch(/^whsec_/);
        expect(created.verification).toContain("webhook.verification");
      },
    },
    getWebhookSigningData: {
      status: 200,
      request: () => ({ query: `?payTo=${PAY_TO}&url=${encodeURIComponent(RECEIVER)}` }),
      check(answer) {
        const document = jsonOf(answer);
        expect(document.signer).toBe(PAY_TO);
        expect(document.typedData).toMatchObject({
          primaryType: "SubscribeWebhooks",
          message: { payTo: PAY_TO, url: RECEIVER },
        });
        expect(document.submit).toMatchObject({ method: "POST", body: { url: RECEIVER, seller: { payTo: PAY_TO } } });
      },
    },
    getWebhook: {
      status: 200,
      request: () => ({ params: { id: subscription.id }, headers: { authorization: `Bearer ${subscription.secret}` } }),
      check(answer) {
        expect(jsonOf(answer)).toMatchObject({
          id: subscription.id,
          kind: "listings",
          status: "pending",
          listingIds: [listingId],
        });
        expect(jsonOf(answer).secret).toBeUndefined();
      },
    },
    deleteWebhook: {
      status: 200,
      request: () => ({ params: { id: subscription.id }, headers: { authorization: `Bearer ${subscription.secret}` } }),
      check(answer) {
        expect(jsonOf(answer)).toEqual({ id: subscription.id, deleted: true });
      },
    },
  });
});
