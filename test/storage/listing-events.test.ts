// The change log is an outbox: events a write returns are committed with it or not at all, and
// their seq order is the order the writes committed in, also when writers race.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListingEventStore } from "../../src/queries/listing-event-store.js";
import type { ListingEventDraft } from "../../src/storage/listing-types.js";
import { testDatabaseKinds } from "./databases.js";
import { at, listingInput, openStore, type StoreContext } from "./fixtures.js";

const draft = (listingId: string, n: number): ListingEventDraft => ({
  listingId,
  sellerPayTo: "0xABCDEF00000000000000000000000000000000FF",
  type: "listing.updated",
  status: { state: "active", reasons: [{ code: "live", message: "Listed and answering" }] },
  data: { n },
});

describe.each(testDatabaseKinds())("listing events on $kind", (kind) => {
  let ctx: StoreContext;
  let events: ListingEventStore;
  let listingId: string;

  beforeAll(async () => {
    ctx = await openStore(kind);
    events = new ListingEventStore(ctx.store.transactions);
    listingId = (await ctx.store.createListing(listingInput({ resource: "https://events.example.com/api" }), at(0))).id;
  });
  afterAll(() => ctx?.close());

  it("records the events of a committed write and none of a failed one", async () => {
    const start = await events.lastSeq();
    await ctx.store.transactions.write(at(1), async () => ({
      result: null,
      changed: true,
      events: [draft(listingId, 1)],
    }));
    await expect(
      ctx.store.transactions.write(at(2), async (tx) => {
        await tx.listingEvent.count();
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    const after = await events.after(start, 10);
    expect(after.map((e) => e.data)).toEqual([{ n: 1 }]);
    expect(after[0]).toMatchObject({
      listingId,
      type: "listing.updated",
      sellerPayTo: "0xabcdef00000000000000000000000000000000ff",
    });
    expect(after[0]!.id).toMatch(/^evt_[0-9a-f-]{36}$/);
    expect(after[0]!.at.toISOString()).toBe(at(1).toISOString());
  });

  it("numbers racing writers' events in commit order", async () => {
    const start = await events.lastSeq();
    await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        ctx.store.transactions.write(at(3), async () => ({
          result: null,
          changed: true,
          events: [draft(listingId, n)],
        })),
      ),
    );
    const after = await events.after(start, 100);
    expect(after).toHaveLength(20);
    expect(new Set(after.map((e) => (e.data as { n: number }).n)).size).toBe(20);
    const history = await events.forListing(listingId, 5);
    expect(history.map((e) => e.seq)).toEqual([...after.map((e) => e.seq)].reverse().slice(0, 5));
    expect(await events.forSeller("0xABCDEF00000000000000000000000000000000FF", 100)).toHaveLength(21);
  });
});
