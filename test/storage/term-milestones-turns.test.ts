// The expiring/expired events of a large catalog are recorded in batches; on SQLite each statement runs
// synchronously under its promise, so without a turn of the event loop between batches no request was
// served until every batch was done (the listing-terms job's first pass at 100k: 3-5 s).
import { setImmediate } from "node:timers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordTermMilestones } from "../../src/storage/listing/term-milestones.js";
import { testDatabaseKinds } from "./databases.js";
import { at, listingInput, openStore, type StoreContext } from "./fixtures.js";

/** One more than the job's batch of 500: two batches, so one turn between them. */
const LISTINGS = 501;
/** Created this many at a time: on PostgreSQL they overlap; SQLite queues them as it always does. */
const AT_ONCE = 25;

describe.each(testDatabaseKinds())("term milestones on $kind", (kind) => {
  let ctx: StoreContext;

  beforeAll(async () => {
    ctx = await openStore(kind);
    for (let first = 0; first < LISTINGS; first += AT_ONCE) {
      const batch = Array.from({ length: Math.min(AT_ONCE, LISTINGS - first) }, (_, i) => first + i);
      await Promise.all(
        batch.map((i) =>
          ctx.store.createListing(listingInput({ resource: `https://api.example.com/due/${i}` }), at(0)),
        ),
      );
    }
  }, 120_000);

  afterAll(async () => {
    await ctx?.close();
  });

  it("lets the event loop turn between batches of a large catalog's due events", async () => {
    const order: string[] = [];
    const recording = recordTermMilestones(ctx.store.transactions, at(1)).then((count) => {
      order.push("recorded");
      return count;
    });
    setImmediate(() => order.push("event loop turned"));
    expect(await recording).toBe(LISTINGS);
    expect(order).toEqual(["event loop turned", "recorded"]);
  });
});
