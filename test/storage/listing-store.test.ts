import { getAddress } from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../src/storage/database.js";
import {
  DuplicatePaymentError,
  ListingStore,
  ListingStateError,
  type SeedListingInput,
} from "../../src/storage/listing/listing-store.js";
import { testDatabaseKinds } from "./databases.js";
import {
  T0,
  TTL_MS,
  at,
  catalogPage,
  catalogSearch,
  clearListings,
  listingInput,
  openStore,
  paymentInput,
  type StoreContext,
} from "./fixtures.js";

describe.each(testDatabaseKinds())("ListingStore on $kind", (kind) => {
  let ctx: StoreContext;
  let store: ListingStore;

  beforeAll(async () => {
    ctx = await openStore(kind);
    store = ctx.store;
  });
  afterAll(() => ctx.close());
  beforeEach(() => clearListings(ctx.db));

  it("creates a listing and reads it back, with canonical price and checksummed payTo", async () => {
    const input = listingInput({
      priceUsdc: "0.030",
      sellerPayTo: "0xabcdef00000000000000000000000000000000aa",
      inputSchema: { type: "object" },
    });
    const created = await store.createListing(input, T0);
    expect(created).toMatchObject({
      state: "active",
      leftoverSeed: false,
      priceUsdc: "0.03",
      priceAtomic: "30000",
      sellerPayTo: getAddress("0xabcdef00000000000000000000000000000000aa"),
      inputSchema: { type: "object" },
      listedAt: T0,
      expiresAt: new Date(T0.getTime() + TTL_MS),
    });
    const { rows, total } = await catalogPage(store, { includeSeed: false, limit: 10, offset: 0, now: T0 });
    expect(total).toBe(1);
    expect(rows).toEqual([created]);
    await expect(store.createListing(listingInput({ priceUsdc: "0.0000001" }), T0)).rejects.toThrow(RangeError);
  });

  it("hides a listing at the instant it expires", async () => {
    const listing = await store.createListing(listingInput(), T0);
    const justBefore = new Date(listing.expiresAt.getTime() - 1);
    expect((await catalogPage(store, { includeSeed: true, limit: 10, offset: 0, now: justBefore })).total).toBe(1);
    expect(await catalogPage(store, { includeSeed: true, limit: 10, offset: 0, now: listing.expiresAt })).toEqual({
      rows: [],
      total: 0,
    });
    expect(await store.feed({ limit: 10, now: listing.expiresAt })).toEqual([]);
    expect(
      (await catalogSearch(store, { includeSeed: true, limit: 10, offset: 0, now: listing.expiresAt })).total,
    ).toBe(0);
    expect((await store.counts(listing.expiresAt)).foreign).toBe(0);
  });

  it("pages newest first, filters seed rows, and counts every stored row in rawAll", async () => {
    const a = await store.createListing(listingInput(), at(1));
    const b = await store.createListing(listingInput(), at(2));
    const c = await store.createListing(listingInput(), at(2)); // same listedAt: id desc decides
    await store.upsertSeedListings([{ ...listingInput(), listedAt: at(3), expiresAt: at(600) }], at(3));
    const pending = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(4));
    const failed = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(4));
    await store.failListing(failed.listing.id, { reason: "insufficient_funds", chainChecked: true, now: at(5) });
    await store.createListing(listingInput(), at(-120)); // expired long ago

    const sameTime = [b, c].sort((x, y) => (x.id < y.id ? 1 : -1)).map((l) => l.id);
    const foreign = await catalogPage(store, { includeSeed: false, limit: 10, offset: 0, now: at(10) });
    expect(foreign.rows.map((l) => l.id)).toEqual([...sameTime, a.id]);
    expect(foreign.total).toBe(3);
    const all = await catalogPage(store, { includeSeed: true, limit: 2, offset: 1, now: at(10) });
    expect(all.total).toBe(4);
    expect(all.rows.map((l) => l.id)).toEqual(sameTime);
    expect(await store.counts(at(10))).toMatchObject({ foreign: 3, seed: 1, rawAll: 7, delisted: 0 });
    expect(pending.listing.state).toBe("pending");
  });

  it("feeds foreign rows listed strictly after `since`, newest first", async () => {
    const a = await store.createListing(listingInput(), at(1));
    const b = await store.createListing(listingInput(), at(2));
    const c = await store.createListing(listingInput(), at(3));
    await store.upsertSeedListings([{ ...listingInput(), listedAt: at(4), expiresAt: at(600) }], at(4));
    expect((await store.feed({ limit: 10, now: at(5) })).map((l) => l.id)).toEqual([c.id, b.id, a.id]);
    expect((await store.feed({ since: b.listedAt, limit: 10, now: at(5) })).map((l) => l.id)).toEqual([c.id]);
    // A poller that fell behind gets the oldest rows after `since` first (shown newest first),
    // then the rest with the newest listedAt it saw: every row exactly once.
    const firstPage = await store.feed({ since: at(0), limit: 2, now: at(5) });
    expect(firstPage.map((l) => l.id)).toEqual([b.id, a.id]);
    expect((await store.feed({ since: firstPage[0]!.listedAt, limit: 2, now: at(5) })).map((l) => l.id)).toEqual([
      c.id,
    ]);
  });

  it("moves the catalog stamp on every write and when a listing expires", async () => {
    const s0 = await store.catalogStamp(T0);
    const first = await store.createListing(listingInput(), T0);
    const s1 = await store.catalogStamp(T0);
    expect(s1.version).toBe(s0.version + 1);
    expect(s1.changedAt).toEqual(T0);
    expect(s1.nextExpiry).toEqual(first.expiresAt);

    const second = await store.createListing(listingInput(), at(10));
    const s2 = await store.catalogStamp(at(10));
    expect(s2.version).toBe(s1.version + 1);
    expect(s2.nextExpiry).toEqual(first.expiresAt);
    // No write, but the first listing expires: the stamp (and any ETag from it) moves.
    const s3 = await store.catalogStamp(first.expiresAt);
    expect(s3.version).toBe(s2.version);
    expect(s3.nextExpiry).toEqual(second.expiresAt);
    expect((await store.catalogStamp(second.expiresAt)).nextExpiry).toBeNull();

    const { payment, listing } = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(20));
    const s4 = await store.catalogStamp(at(20));
    expect(s4.version).toBe(s2.version + 1);
    await store.activateListing(listing.id, { txHash: "0x01", now: at(21) });
    expect((await store.catalogStamp(at(21))).version).toBe(s4.version + 1);
    await expect(store.createPendingListingWithPayment(listingInput(), payment, at(22))).rejects.toThrow(
      DuplicatePaymentError,
    );
    expect((await store.catalogStamp(at(22))).version).toBe(s4.version + 1);

    expect(await store.deleteExpired(at(0))).toBe(0);
    expect((await store.catalogStamp(at(22))).version).toBe(s4.version + 1);
    expect(await store.deleteExpired(at(100))).toBe(3);
    expect((await store.catalogStamp(at(22))).version).toBe(s4.version + 2);
    // Payments outlive their listing: they are the replay guard.
    expect(await ctx.db.prisma.payment.findMany({ select: { listingId: true } })).toEqual([{ listingId: null }]);
  });

  it("loads seed rows idempotently and bumps the version only on change", async () => {
    const seeds: SeedListingInput[] = [
      {
        ...listingInput({ resource: "https://market.example/kr-weather", description: "Demo weather" }),
        // Key order differs from how PostgreSQL's jsonb stores it.
        inputSchema: { type: "object", required: ["city"], properties: { city: { type: "string" } } },
        listedAt: at(0),
        expiresAt: at(600),
      },
      {
        ...listingInput({ resource: "https://market.example/kr-quotes", method: "GET" }),
        listedAt: at(0),
        expiresAt: at(600),
      },
    ];
    expect(await store.upsertSeedListings(seeds, at(1))).toEqual({ created: 2, updated: 0, unchanged: 0 });
    const version = (await store.catalogStamp(at(1))).version;
    expect(await store.upsertSeedListings(seeds, at(2))).toEqual({ created: 0, updated: 0, unchanged: 2 });
    expect((await store.catalogStamp(at(2))).version).toBe(version);
    const changed = [{ ...seeds[0]!, description: "Demo weather, now with wind" }, seeds[1]!];
    expect(await store.upsertSeedListings(changed, at(3))).toEqual({ created: 0, updated: 1, unchanged: 1 });
    expect((await store.catalogStamp(at(3))).version).toBe(version + 1);
    expect((await store.counts(at(3))).seed).toBe(2);
    expect((await catalogPage(store, { includeSeed: false, limit: 10, offset: 0, now: at(3) })).total).toBe(0);
  });

  it("runs the paid flow: pending is invisible, activation shows it, failure hides it for good", async () => {
    const { listing, payment } = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(0));
    expect(payment).toMatchObject({ state: "pending", listingId: listing.id, txHash: null });
    expect(payment.payer).toBe(payment.payer.toLowerCase());
    expect((await catalogPage(store, { includeSeed: true, limit: 10, offset: 0, now: at(0) })).total).toBe(0);
    expect((await store.paymentsToReconcile(at(1))).map((p) => p.id)).toEqual([payment.id]);

    const activated = await store.activateListing(listing.id, { txHash: "0xabc", now: at(1) });
    expect(activated.renewed).toBe(false);
    expect(activated.listing).toMatchObject({
      id: listing.id,
      state: "active",
      listedAt: at(1),
      expiresAt: new Date(at(1).getTime() + TTL_MS),
    });
    expect((await store.findPayment(payment))?.payment).toMatchObject({
      state: "settled",
      txHash: "0xabc",
      settledAt: at(1),
    });
    expect((await store.activateListing(listing.id, { txHash: "0xabc", now: at(2) })).listing.expiresAt).toEqual(
      activated.listing.expiresAt,
    );
    expect((await store.feed({ limit: 10, now: at(2) })).map((l) => l.id)).toEqual([listing.id]);

    const other = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(3));
    const failed = await store.failListing(other.listing.id, {
      reason: "transaction reverted",
      txHash: "0xdead",
      chainChecked: true,
      now: at(4),
    });
    expect(failed.state).toBe("failed");
    expect((await store.findPayment(other.payment))?.payment).toMatchObject({
      state: "failed",
      failureReason: "transaction reverted",
      chainCheckedAt: at(4),
    });
    // A failure the chain confirmed is final: the reconciler does not look at it again.
    expect((await store.paymentsToReconcile(at(10))).map((p) => p.id)).toEqual([]);
    expect((await catalogPage(store, { includeSeed: true, limit: 10, offset: 0, now: at(5) })).total).toBe(1);
    await store.releasePendingListing(listing.id, at(5));
    expect((await store.findPayment(payment))?.payment.state).toBe("settled");
  });

  it("re-checks failures the chain never confirmed, and activates one whose fee did arrive after all", async () => {
    const { listing, payment } = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(0));
    await store.failListing(listing.id, { reason: "transaction_failed", chainChecked: false, now: at(1) });
    expect((await store.paymentsToReconcile(at(2))).map((p) => p.id)).toEqual([payment.id]);
    const { listing: active } = await store.activateListing(listing.id, { txHash: "0xfeed", now: at(3) });
    expect(active).toMatchObject({ id: listing.id, state: "active" });
    expect((await store.findPayment(payment))?.payment).toMatchObject({
      state: "settled",
      txHash: "0xfeed",
      failureReason: null,
    });

    const other = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(4));
    await store.failListing(other.listing.id, { reason: "transaction_failed", chainChecked: false, now: at(5) });
    await store.confirmFailure(other.payment.id, at(6));
    expect(await store.paymentsToReconcile(at(7))).toEqual([]);
  });

  it("releases a pending listing whose payment was never broadcast: the same payment can be sent again", async () => {
    const payment = paymentInput();
    const first = await store.createPendingListingWithPayment(listingInput(), payment, at(0));
    await store.releasePendingListing(first.listing.id, at(1));
    expect(await store.findPayment(payment)).toBeNull();
    expect(await ctx.db.prisma.listing.count()).toBe(0);
    const again = await store.createPendingListingWithPayment(listingInput(), payment, at(2));
    expect(again.payment.state).toBe("pending");
    await expect(store.activateListing(first.listing.id, { txHash: "0x1", now: at(3) })).rejects.toThrow(
      ListingStateError,
    );
  });

  it("renews a live listing of the same seller, resource and method instead of adding a row", async () => {
    const base = listingInput({ description: "First description" });
    const first = await store.createPendingListingWithPayment(base, paymentInput(), at(0));
    const original = (await store.activateListing(first.listing.id, { txHash: "0x01", now: at(0) })).listing;
    const firstPayer = (await store.findPayment(first.payment))!.payment.payer;
    const renewal = await store.createPendingListingWithPayment(
      {
        ...base,
        description: "Renewed description",
        priceUsdc: "0.05",
        sellerPayTo: base.sellerPayTo.toUpperCase().replace("0X", "0x"),
      },
      paymentInput({ payer: firstPayer }),
      at(30),
    );
    const { listing, renewed } = await store.activateListing(renewal.listing.id, { txHash: "0x02", now: at(31) });
    expect(renewed).toBe(true);
    expect(listing).toMatchObject({
      id: original.id,
      description: "Renewed description",
      priceAtomic: "50000",
      listedAt: at(0),
    });
    expect(listing.expiresAt).toEqual(new Date(original.expiresAt.getTime() + TTL_MS));
    expect(await ctx.db.prisma.listing.count()).toBe(1);
    const payments = await ctx.db.prisma.payment.findMany({
      where: { listingId: original.id },
      orderBy: { createdAt: "asc" },
    });
    expect(payments.map((p) => [p.state, p.txHash])).toEqual([
      ["settled", "0x01"],
      ["settled", "0x02"],
    ]);
    expect((await store.findPayment(renewal.payment))?.listing?.id).toBe(original.id);
  });

  it("lets only the first payer or the sellerPayTo renew: a stranger's paid listing is a row of its own", async () => {
    const base = listingInput({ description: "The seller's own words" });
    const first = await store.createPendingListingWithPayment(base, paymentInput(), at(0));
    const original = (await store.activateListing(first.listing.id, { txHash: "0x01", now: at(0) })).listing;
    const live = await store.liveListingFor(base, at(1));
    expect(live?.listing.id).toBe(original.id);
    expect(live?.renewers).toEqual([base.sellerPayTo.toLowerCase(), first.payment.payer]);

    const stranger = await store.createPendingListingWithPayment(
      { ...base, description: "DEFACED by a stranger" },
      paymentInput(),
      at(2),
    );
    const strangers = await store.activateListing(stranger.listing.id, { txHash: "0x02", now: at(2) });
    expect(strangers).toMatchObject({ renewed: false, listing: { id: stranger.listing.id } });
    expect((await ctx.db.prisma.listing.findUnique({ where: { id: original.id } }))?.description).toBe(
      "The seller's own words",
    );

    const bySeller = await store.createPendingListingWithPayment(
      { ...base, description: "Updated by the seller" },
      paymentInput({ payer: base.sellerPayTo }),
      at(3),
    );
    const renewed = await store.activateListing(bySeller.listing.id, { txHash: "0x03", now: at(3) });
    expect(renewed.renewed).toBe(true);
    expect([original.id, stranger.listing.id]).toContain(renewed.listing.id);
  });

  it("rejects a duplicate payment with the earlier result and saves nothing", async () => {
    const payment = paymentInput();
    const first = await store.createPendingListingWithPayment(listingInput(), payment, at(0));
    const replay = {
      ...payment,
      payer: payment.payer.toUpperCase().replace("0X", "0x"),
      nonce: payment.nonce.toUpperCase().replace("0X", "0x"),
    };
    const error = await store.createPendingListingWithPayment(listingInput(), replay, at(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicatePaymentError);
    expect((error as DuplicatePaymentError).payment.id).toBe(first.payment.id);
    expect((error as DuplicatePaymentError).listing?.id).toBe(first.listing.id);
    expect(await ctx.db.prisma.listing.count()).toBe(1);
    expect(await ctx.db.prisma.payment.count()).toBe(1);
  });

  it("lets exactly one of two concurrent inserts of the same payment through", async () => {
    // PostgreSQL: two Database objects, as two service instances would have. SQLite: one
    // per process (two connections in one process would block each other's event loop).
    const other: Database = kind.kind === "postgres" ? await openDatabase(ctx.test.url) : ctx.db;
    try {
      const stores = [store, other === ctx.db ? store : new ListingStore(other, { ttlMs: TTL_MS })];
      const payment = paymentInput();
      const results = await Promise.allSettled(
        stores.map((s, i) => s.createPendingListingWithPayment(listingInput(), payment, at(i))),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(rejected).toHaveLength(1);
      expect(rejected[0]!.reason).toBeInstanceOf(DuplicatePaymentError);
      expect(await ctx.db.prisma.payment.count()).toBe(1);
      expect(await ctx.db.prisma.listing.count()).toBe(1);
    } finally {
      if (other !== ctx.db) await other.close();
    }
  });
});
