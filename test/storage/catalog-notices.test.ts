// Catalog freshness across instances on one PostgreSQL schema: instance B learns of instance A's
// writes by change notice (LISTEN/NOTIFY) and keeps its stamp between them, so a cached read costs
// B no statement; a LISTEN session ended from the database is opened again; without notices B
// reads the stamp on every check and sees each commit at once. Skipped without TEST_POSTGRES_URL.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CatalogFreshness } from "../../src/catalog/freshness.js";
import {
  catalogChangeFeedFor,
  listenerApplicationName,
  type CatalogChangeFeed,
} from "../../src/storage/catalog/catalog-notices.js";
import { openDatabase, type Database } from "../../src/storage/database.js";
import { ListingStore } from "../../src/storage/listing/listing-store.js";
import { testDatabaseKinds } from "./databases.js";
import { listingInput, openStore, type StoreContext } from "./fixtures.js";

const postgres = testDatabaseKinds().find((kind) => kind.kind === "postgres");

async function pollUntil(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A store whose catalog stamp reads are counted. */
function countingStore(db: Database): { store: ListingStore; reads: () => number } {
  const store = new ListingStore(db);
  let reads = 0;
  const catalogStamp = store.catalogStamp.bind(store);
  store.catalogStamp = (now) => {
    reads++;
    return catalogStamp(now);
  };
  return { store, reads: () => reads };
}

describe.skipIf(!postgres)("catalog change notices between two instances on one PostgreSQL schema", () => {
  let a: StoreContext;
  let dbB: Database;
  let feed: CatalogChangeFeed;
  const now = () => new Date();

  beforeAll(async () => {
    a = await openStore(postgres!);
    dbB = await openDatabase(a.test.url);
    feed = catalogChangeFeedFor(a.test.url, { reconnectMs: 50, keepaliveMs: 1_000 })!;
  });

  afterAll(async () => {
    await feed?.close();
    await dbB?.close();
    await a?.close();
  });

  it("B keeps its stamp while notices arrive and drops it on A's commit: same token as A, no stamp read per check", async () => {
    const b = countingStore(dbB);
    const freshnessB = new CatalogFreshness(b.store, now, feed);
    const freshnessA = new CatalogFreshness(a.store, now);
    await pollUntil(() => feed.live, "the feed listens");
    await freshnessB.current();
    const before = b.reads();
    for (let i = 0; i < 200; i++) await freshnessB.current();
    expect(b.reads() - before).toBeLessThanOrEqual(2);

    const tokenBefore = (await freshnessB.current()).token;
    await a.store.createListing(listingInput(), now());
    const tokenA = (await freshnessA.current()).token;
    expect(tokenA).not.toBe(tokenBefore);
    await pollUntil(async () => (await freshnessB.current()).token === tokenA, "B reaches A's token");
  });

  it("a LISTEN session ended from the database is opened again, and B converges after it", async () => {
    const b = countingStore(dbB);
    const freshnessB = new CatalogFreshness(b.store, now, feed);
    const freshnessA = new CatalogFreshness(a.store, now);
    await pollUntil(() => feed.live, "the feed listens");
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [listenerApplicationName()],
      );
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    await pollUntil(() => !feed.live, "the feed notices the loss");
    // Down: every check reads the stamp, so a commit is seen by the next check.
    const readsWhileDown = b.reads();
    await freshnessB.current();
    await freshnessB.current();
    if (!feed.live) expect(b.reads() - readsWhileDown).toBe(2);
    await pollUntil(() => feed.live, "the feed listens again");
    await a.store.createListing(listingInput(), now());
    const tokenA = (await freshnessA.current()).token;
    await pollUntil(
      async () => (await freshnessB.current()).token === tokenA,
      "B reaches A's token after the reconnect",
    );
    const settled = b.reads();
    for (let i = 0; i < 100; i++) await freshnessB.current();
    expect(b.reads() - settled).toBeLessThanOrEqual(2);
  });

  it("without notices (the feed cannot connect) every check reads the stamp: A's commit is seen by B's next check", async () => {
    const unreachable = new URL(a.test.url);
    unreachable.port = "1";
    const deadFeed = catalogChangeFeedFor(unreachable.toString(), { reconnectMs: 50 })!;
    try {
      const freshnessB = new CatalogFreshness(countingStore(dbB).store, now, deadFeed);
      const tokenBefore = (await freshnessB.current()).token;
      await a.store.createListing(listingInput(), now());
      const tokenA = (await new CatalogFreshness(a.store, now).current()).token;
      expect(tokenA).not.toBe(tokenBefore);
      expect((await freshnessB.current()).token).toBe(tokenA);
      expect(deadFeed.live).toBe(false);
    } finally {
      await deadFeed.close();
    }
  });
});
