import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

interface Status {
  ok: boolean;
  version: string;
  sellerListingCount: number;
  sellerListingCountForeign: number;
  sellerListingCountSeed: number;
  sellerListingCountRawKv: number;
  updatedAt: string;
  listingFee: {
    usdc: string;
    payTo: string;
    network: string;
    asset: string;
    path: string;
    method: string;
    ttlDays: number;
  };
  links: Record<string, string>;
}

describe.each(databaseKinds)("status on $kind", (kind) => {
  let market: CatalogServer;
  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true" });
  });
  afterAll(async () => {
    await market?.close();
  });

  const status = async () => (await market.json<Status>("/status.json")).body;

  it("reports the fee from configuration and every count", async () => {
    const body = await status();
    const { market: facts } = market.server.contexts.listings;
    expect(body).toMatchObject({
      ok: true,
      role: "marketplace",
      version: "1.58.0",
      x402Version: 2,
      paid: false,
      discoveryDefault: "foreign-first",
      sellerListingCount: 0,
      sellerListingCountForeign: 0,
      sellerListingCountSeed: 3,
      sellerListingCountRawKv: 3,
      listingFee: {
        usdc: "0.10",
        payTo: facts.payTo,
        network: "eip155:8453",
        asset: facts.asset,
        path: "/listings",
        method: "POST",
        ttlDays: 30,
      },
      unpaidListingsProbe: { method: "POST", path: "/listings" },
    });
    expect(Object.keys(body.links).sort()).toEqual([
      "challenge",
      "feed",
      "foreign",
      "market",
      "mcp",
      "openapi",
      "playbook",
      "status",
    ]);
    expect(await (await market.server.fetch("/status")).text()).toBe(JSON.stringify(body));
  });

  it("moves sellerListingCountRawKv whenever anything is saved, even a row nobody sees", async () => {
    const before = await status();
    const { store } = market.server.contexts.listings;
    await store.createPendingListingWithPayment(
      {
        resource: "https://pending.example.com/x",
        method: "POST",
        priceUsdc: "1",
        description: "A listing whose payment is not settled yet",
        sellerPayTo: getAddress("0x00000000000000000000000000000000000000aa"),
        network: "eip155:8453",
      },
      {
        network: "eip155:8453",
        asset: market.server.contexts.listings.market.asset,
        payer: "0x00000000000000000000000000000000000000bb",
        nonce: `0x${"1".repeat(64)}`,
        amount: "100000",
        payTo: market.server.contexts.listings.market.payTo,
      },
      market.clock.now(),
    );
    const afterPending = await status();
    expect(afterPending.sellerListingCountRawKv).toBe(before.sellerListingCountRawKv + 1);
    expect(afterPending.sellerListingCount).toBe(before.sellerListingCount);

    await market.list();
    const afterListing = await status();
    expect(afterListing.sellerListingCount).toBe(before.sellerListingCount + 1);
    expect(afterListing.sellerListingCountForeign).toBe(afterListing.sellerListingCount);
    expect(afterListing.sellerListingCountRawKv).toBe(before.sellerListingCountRawKv + 2);
  });
});
