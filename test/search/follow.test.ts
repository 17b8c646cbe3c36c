// Who brings the search engine up to date (issue 44): this instance's catalog writes, by notice at
// their commit, and the follow job's poll (or, on PostgreSQL, a LISTEN notice) for another
// instance's. A search never reads the database to sync the engine: it awaits a sync a notice
// started, if one still runs. Two search services on one database stand for two instances. On
// SQLite, and PostgreSQL with TEST_POSTGRES_URL.
import { AsyncLocalStorage } from "node:async_hooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CatalogFreshness } from "../../src/catalog/freshness.js";
import { catalogState, passingAnswer, searchPage, type CatalogQueryContext } from "../../src/queries/catalog.js";
import { CatalogRanker } from "../../src/queries/ranked-search.js";
import { FOLLOW_INTERVAL_MS, searchFollowJob } from "../../src/search/job.js";
import { SearchService } from "../../src/search/service.js";
import { listenForCatalogChanges } from "../../src/storage/catalog/catalog-notices.js";
import { parseDatabaseUrl } from "../../src/storage/connection.js";
import { EmbeddingStore } from "../../src/search/embedding-store.js";
import { ListingEventStore } from "../../src/queries/listing-event-store.js";
import { testDatabaseKinds } from "../storage/databases.js";
import { at, listingInput, openStore, paymentInput, type StoreContext } from "../storage/fixtures.js";

const NOW = at(1);
const now = () => NOW;

/** The reads the engine syncs with, counted when a search (inside `searching`) makes them. */
const searching = new AsyncLocalStorage<true>();
const readsFromSearches: string[] = [];
for (const method of ["changedSince", "catalogVersion"] as const) {
  const original = EmbeddingStore.prototype[method] as (...args: unknown[]) => Promise<unknown>;
  vi.spyOn(EmbeddingStore.prototype, method).mockImplementation(function (this: EmbeddingStore, ...args: unknown[]) {
    if (searching.getStore()) readsFromSearches.push(method);
    return original.apply(this, args);
  } as never);
}

describe.each(testDatabaseKinds())("the search engine follows the catalog on $kind", (kind) => {
  let context: StoreContext;
  const services: SearchService[] = [];

  /** An instance's search: its ranker over the shared database, following this instance's writes or none. */
  async function instance(follows: boolean) {
    const service = new SearchService(context.db, { model: false });
    services.push(service);
    const ranker = new CatalogRanker(service);
    if (follows) ranker.follow(context.store, undefined, now);
    await ranker.start(NOW);
    const queries: CatalogQueryContext = {
      store: context.store,
      events: new ListingEventStore(context.store.transactions),
      freshness: new CatalogFreshness(context.store, now),
      now,
      ranker,
    };
    const search = (text: string) =>
      searching.run(true, async () =>
        searchPage(queries, await catalogState(queries), { query: text, mode: "lexical" }, "catalog"),
      );
    return { service, ranker, search };
  }

  /** A listing paid and activated through this instance's store (the catalog's one write path). */
  async function list(name: string, description: string): Promise<string> {
    const { listing } = await context.store.createPendingListingWithPayment(
      listingInput({ description, metadata: { serviceName: name } }),
      paymentInput(),
      at(0),
    );
    await context.store.activateListing(listing.id, { txHash: `0x${"1".repeat(64)}`, now: at(0) });
    return listing.id;
  }

  const delist = (id: string) =>
    context.store.transactions.write(NOW, async (tx) => {
      await tx.listing.update({ where: { id }, data: { state: "delisted", delistedAt: NOW } });
      return { result: undefined, changed: true };
    });

  const idsOf = (view: { page: { rows: { id: string }[] } }) => view.page.rows.map((row) => row.id);

  beforeAll(async () => {
    context = await openStore(kind);
    await list("Nimbus", "Hourly and 7-day forecasts: temperature, precipitation probability and wind.");
  }, 120_000);

  afterAll(async () => {
    for (const service of services) await service.close();
    await context?.close();
  });

  it("a search right after a write through this instance sees it, and reads nothing to sync the engine", async () => {
    const a = await instance(true);
    readsFromSearches.length = 0;
    const id = await list("InkReader", "Optical character recognition for scanned receipts.");
    // The write's notice started a sync at its commit; the search awaits it and starts no read.
    const found = await a.search("receipts");
    expect(idsOf(found)).toEqual([id]);
    expect(found.ranking).toMatchObject({ mode: "lexical" });
    expect(passingAnswer(found.ranking)).toBe(false);

    await delist(id);
    const gone = await a.search("receipts");
    expect(idsOf(gone)).toEqual([]);
    expect(passingAnswer(gone.ranking)).toBe(false);
    // The engine itself let it go (not only the catalog's own filter of the rows it ranked).
    expect((await a.service.search("receipts", { mode: "lexical" }))!.hits).toEqual([]);
    expect(readsFromSearches).toEqual([]);
  });

  it("another instance's write is brought in by the follow job's poll; until then a search answers with what the engine holds, not kept", async () => {
    const b = await instance(false);
    const job = searchFollowJob.create({ search: b.service, now } as Parameters<typeof searchFollowJob.create>[0]);
    expect(job && job.intervalMs).toBe(FOLLOW_INTERVAL_MS);
    readsFromSearches.length = 0;
    const id = await list("RateDesk", "Foreign exchange rates for 170 currencies.");

    const before = await b.search("currencies");
    expect(idsOf(before)).toEqual([]);
    // Right for now, but never reused under the catalog state's token (no ETag, not cached).
    expect(passingAnswer(before.ranking)).toBe(true);

    // The job's next run (one per FOLLOW_INTERVAL_MS) takes it in (with the rows of the second of overlap).
    const polled = (await job!.run(new AbortController().signal, { renewLease: async () => true })) as {
      changed: number;
    };
    expect(polled.changed).toBeGreaterThan(0);
    const after = await b.search("currencies");
    expect(idsOf(after)).toEqual([id]);
    expect(passingAnswer(after.ranking)).toBe(false);
    expect(readsFromSearches).toEqual([]);
  });

  it.runIf(kind.kind === "postgres")(
    "on PostgreSQL another instance's write reaches the engine by LISTEN notice, before any poll",
    async () => {
      const target = parseDatabaseUrl(context.test.url);
      if (target.kind !== "postgres") throw new Error("a PostgreSQL URL");
      const feed = listenForCatalogChanges(target);
      try {
        const b = await instance(false);
        b.ranker.follow({ onChange: () => () => {} }, feed, now);
        for (const deadline = Date.now() + 30_000; !feed.live;) {
          if (Date.now() > deadline) throw new Error("the change feed did not go live");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        readsFromSearches.length = 0;
        const id = await list("Pinpoint", "Turns a street address into latitude and longitude coordinates.");
        let found = await b.search("coordinates");
        for (const deadline = Date.now() + 30_000; idsOf(found).length === 0;) {
          if (Date.now() > deadline) throw new Error("the notice did not bring the listing in");
          await new Promise((resolve) => setTimeout(resolve, 50));
          found = await b.search("coordinates");
        }
        expect(idsOf(found)).toEqual([id]);
        expect(passingAnswer(found.ranking)).toBe(false);
        expect(readsFromSearches).toEqual([]);
      } finally {
        await feed.close();
      }
    },
  );
});
