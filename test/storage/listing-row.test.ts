// The raw read path (catalog-sql.ts and better-sqlite3 / $queryRaw) returns each listing exactly as
// Prisma does: every column of the model, decoded to the same value. A field added to the Listing
// model that the raw path did not select or decode fails here (and `npm run typecheck` fails in
// src/storage/catalog/listing-row.ts until the field has a decoder and a renewal rule).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import { LISTING_COLUMNS, RENEWED_COLUMNS } from "../../src/storage/catalog/listing-row.js";
import type { Listing } from "../../src/storage/listing/listing-store.js";
import { testDatabaseKinds } from "./databases.js";
import {
  at,
  catalogPage,
  catalogSearch,
  openStore,
  paymentInput,
  listingInput,
  type StoreContext,
} from "./fixtures.js";

describe.each(testDatabaseKinds())("listing rows on $kind", (kind) => {
  let ctx: StoreContext;
  let stored: Listing;

  beforeAll(async () => {
    ctx = await openStore(kind);
    const created = await ctx.store.createListing(
      listingInput({ description: "Every column set", resource: "https://every.example.com/api" }),
      at(0),
    );
    // Every column holds a value of its own (no null, no default), so a column the raw path drops or misreads shows.
    await ctx.db.prisma.listing.update({
      where: { id: created.id },
      data: {
        inputSchema: { type: "object", properties: { city: { type: "string" } } },
        mimeType: "text/plain",
        serviceName: "Every",
        tags: JSON.stringify(["a", "b"]),
        iconUrl: "https://every.example.com/icon.png",
        bazaar: { info: { input: { type: "http" } } },
        extensionKeys: "bazaar",
        priceMicros: 12_345n,
        healthStatus: "healthy",
        healthSummary: { uptime7d: 0.9583 },
        uptime7d: 0.9583,
        ownerVerified: true,
        calls30d: 7,
        usageSummary: { calls30d: 7 },
        sellerUsage: { calls30d: 9 },
        delistedAt: at(1),
        indexedKey: "GET https://every.example.com/api",
        indexedSource: "bazaar:every.example.com",
        provenance: { source: "bazaar:every.example.com" },
        updatedAt: at(2),
      },
    });
    stored = (await ctx.db.prisma.listing.findUnique({ where: { id: created.id } }))!;
  });
  afterAll(() => ctx.close());

  it("the fixture row sets every column of the model", () => {
    expect(Object.keys(stored).sort()).toEqual([...LISTING_COLUMNS].sort());
    expect(Object.keys(stored).sort()).toEqual(Object.values(Prisma.ListingScalarFieldEnum).sort());
    for (const column of LISTING_COLUMNS) expect(stored[column], column).not.toBeNull();
  });

  it("reads back through every raw read exactly as Prisma reads it", async () => {
    const now = at(3);
    expect(await ctx.store.catalog.live(stored.id, now)).toEqual(stored);
    expect((await catalogPage(ctx.store, { includeSeed: false, limit: 5, offset: 0, now })).rows).toEqual([stored]);
    expect(
      (await catalogSearch(ctx.store, { query: "every column", includeSeed: false, limit: 5, offset: 0, now })).rows,
    ).toEqual([stored]);
    expect(await ctx.store.catalog.feed({ includeSeed: false }, { limit: 5, now })).toEqual([stored]);
  });

  it("a renewal copies what the seller submitted and keeps what the market measured", async () => {
    const { store } = ctx;
    const first = await store.createPendingListingWithPayment(
      listingInput({ description: "Renew me", resource: "https://renew.example.com/api" }),
      paymentInput(),
      at(0),
    );
    const live = (await store.activateListing(first.listing.id, { txHash: `0x${"1".repeat(64)}`, now: at(0) })).listing;
    const renewal = await store.createPendingListingWithPayment(
      {
        ...listingInput({
          description: "Renewed",
          resource: live.resource,
          sellerPayTo: live.sellerPayTo,
          priceUsdc: "0.5",
        }),
        metadata: { serviceName: "Renewed", tags: ["x"] },
      },
      paymentInput({ payer: live.sellerPayTo }),
      at(1),
    );
    const { listing, renewed } = await store.activateListing(renewal.listing.id, {
      txHash: `0x${"2".repeat(64)}`,
      now: at(1),
    });
    expect(renewed).toBe(true);
    expect(listing.id).toBe(live.id);
    for (const column of RENEWED_COLUMNS) expect(listing[column], column).toEqual(renewal.listing[column]);
    expect(listing.listedAt).toEqual(live.listedAt);
  });
});
