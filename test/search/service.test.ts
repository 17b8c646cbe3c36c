// The search service on a real database (SQLite, and PostgreSQL with TEST_POSTGRES_URL): listings
// paid and activated through ListingStore are found; the backfill stores the model's vectors, which
// a second instance loads instead of embedding again; changes on the database are followed.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_WAITING_SEARCHES, type EngineThread } from "../../src/search/engine-thread.js";
import { WAIT_MS } from "../../src/search/query-vectors.js";
import { SearchService, searchDocumentOf } from "../../src/search/service.js";
import { EmbeddingStore } from "../../src/search/embedding-store.js";
import { testDatabaseKinds } from "../storage/databases.js";
import { at, listingInput, openStore, paymentInput, type StoreContext } from "../storage/fixtures.js";

describe.each(testDatabaseKinds())("search service on $kind", (kind) => {
  let context: StoreContext;
  let service: SearchService;
  const ids: Record<string, string> = {};

  async function list(name: string, description: string, tags: string[]): Promise<string> {
    const { listing } = await context.store.createPendingListingWithPayment(
      listingInput({ description, metadata: { serviceName: name, tags } }),
      paymentInput(),
      at(0),
    );
    await context.store.activateListing(listing.id, { txHash: `0x${"1".repeat(64)}`, now: at(0) });
    return listing.id;
  }

  beforeAll(async () => {
    context = await openStore(kind);
    ids.weather = await list("Nimbus", "Hourly and 7-day forecasts: temperature, precipitation probability and wind.", [
      "weather",
    ]);
    ids.speech = await list("EchoText", "Speech-to-text for audio files with speaker labels.", ["audio"]);
    service = new SearchService(context.db);
    await service.start(at(1));
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await context?.close();
  });

  const pendingIds = async (search: SearchService) => (await search.pendingTexts()).map((pending) => pending.id);

  it("finds listed services and says why", async () => {
    const found = (await service.search("forecast", { mode: "hybrid" }))!;
    expect(found.mode).toBe("hybrid");
    expect(found.hits[0]).toMatchObject({ id: ids.weather, reasons: { textMatch: { terms: ["forecast"] } } });
  });

  it("backfills the model's vectors into the table, and a second instance loads them", async () => {
    expect((await pendingIds(service)).sort()).toEqual([ids.weather, ids.speech].sort());
    // Duty 0 (SEARCH_BACKFILL_DUTY=0): no backfill at all.
    expect(await service.backfill(undefined, Infinity, 0)).toBe(0);
    expect(await context.db.prisma.listingEmbedding.count()).toBe(0);
    // The model's thread started and loaded first: at duty 0.5 the pause after a batch is as long as
    // the batch took, and a batch that loads the model took the load's seconds twice over.
    await service.embedQuery("hourly forecast");
    expect(await service.backfill(undefined, Infinity, 0.5)).toBe(2);
    expect(await pendingIds(service)).toEqual([]);
    expect(await context.db.prisma.listingEmbedding.count()).toBe(2);
    const second = new SearchService(context.db, { model: false });
    await second.start(at(1));
    expect(await pendingIds(second)).toEqual([]);
    await second.embedQuery("x");
    await second.close();
  }, 180_000);

  it("does not start the model while its catalog loads: the backfill waits for start()", async () => {
    const waiting = await list("RateDesk", "Foreign exchange rates for 170 currencies.", ["finance"]);
    const loading = new SearchService(context.db);
    try {
      // Mid-load: the engine's thread already holds the listing (as start() hands it over page by
      // page), the load has not finished.
      const row = (await new EmbeddingStore(context.db).changedSince(new Date(0), at(1))).find(
        (stored) => stored.id === waiting,
      )!;
      await (loading as unknown as { engine: EngineThread }).engine.call("apply", {
        changes: [{ id: waiting, doc: searchDocumentOf(row) }],
        follow: false,
      });
      expect(await pendingIds(loading)).toEqual([waiting]);
      expect(await loading.backfill(undefined, Infinity, 1)).toBe(0);
      expect(loading.modelThreads).toBe(0);
      await loading.start(at(1));
      expect(await pendingIds(loading)).toEqual([waiting]);
      expect(await loading.backfill(undefined, Infinity, 1)).toBe(1);
      expect(loading.modelThreads).toBe(1);
    } finally {
      await loading.close();
      // Gone again, so the other cases find the catalog they were written for.
      await context.db.prisma.listing.update({
        where: { id: waiting },
        data: { state: "delisted", delistedAt: at(1) },
      });
    }
  }, 120_000);

  it("reads a question's first ask with the model, waiting at most WAIT_MS for it, and a repeat without it", async () => {
    const idle = new SearchService(context.db, { modelIdleMs: 200 });
    await idle.start(at(1));
    // The model's thread is cold: its reading comes later than a search waits, so the first answer
    // says the query encoder read the question, and the model's vector is kept for the next ask.
    const started = performance.now();
    const first = await idle.search("weather forecast", { mode: "hybrid" });
    expect(first).toMatchObject({ mode: "hybrid", hits: [{ id: ids.weather }] });
    expect([undefined, "model-busy"]).toContain(first!.degraded);
    expect(performance.now() - started).toBeLessThan(WAIT_MS + 5_000);
    expect(idle.modelThreads).toBe(1);
    let read = first!;
    for (const deadline = Date.now() + 60_000; read.degraded !== undefined && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      read = (await idle.search("weather forecast", { mode: "hybrid" }))!;
    }
    expect(read).toMatchObject({ mode: "hybrid", degraded: undefined, hits: [{ id: ids.weather }] });
    // Stopped idle, a repeat is answered with the vector the engine holds: the thread stays stopped.
    while (idle.modelThreads > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await idle.search("weather forecast", { mode: "hybrid" })).toEqual(read);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(idle.modelThreads).toBe(0);
    // A new question starts it again.
    const fresh = await idle.search("a forecast for the weekend", { mode: "hybrid" });
    expect(fresh).toMatchObject({ mode: "hybrid", hits: [{ id: ids.weather }] });
    expect(idle.modelThreads).toBe(1);
    await idle.close();
  }, 180_000);

  it("says so when the model is not loaded: the query encoder read the question", async () => {
    const noModel = new SearchService(context.db, { model: false });
    await noModel.start(at(1));
    expect(await noModel.search("weather forecast", { mode: "hybrid" })).toMatchObject({
      mode: "hybrid",
      degraded: "model-not-loaded",
    });
    expect(await noModel.search("weather forecast", { mode: "lexical" })).toMatchObject({
      mode: "lexical",
      degraded: undefined,
    });
    await noModel.close();
  });

  it("follows changes only once it has loaded the catalog (the follower's first run does not load it twice)", async () => {
    const fresh = new SearchService(context.db, { model: false });
    expect(await fresh.refresh(at(1))).toBe(0);
    expect((await fresh.stats()).size).toBe(0);
    await fresh.start(at(1));
    const stats = await fresh.stats();
    expect(stats.size).toBeGreaterThan(0);
    expect(stats.memory).toMatchObject({ slots: stats.size, deadSlots: 0 });
    await fresh.close();
  });

  it("lets requests in while it loads the catalog, answering them lexically until it is ready", async () => {
    const loading = new SearchService(context.db, { model: false });
    const started = loading.start(at(1));
    const asked = await new Promise<ReturnType<SearchService["search"]>>((resolve) =>
      setImmediate(() => resolve(loading.search("forecast", { mode: "hybrid" }))),
    );
    expect(asked).toMatchObject({ mode: "lexical", degraded: "semantic-not-ready" });
    await started;
    expect(await loading.search("forecast", { mode: "hybrid" })).toMatchObject({
      mode: "hybrid",
      hits: [{ id: ids.weather }],
    });
    await loading.close();
  });

  it("follows listings added and delisted on the database", async () => {
    ids.ocr = await list("InkReader", "Optical character recognition for scanned receipts.", ["ocr"]);
    await service.refresh(at(2));
    expect((await service.search("receipts", { mode: "lexical" }))!.hits.map((hit) => hit.id)).toEqual([ids.ocr]);
    await context.db.prisma.listing.update({ where: { id: ids.ocr }, data: { state: "delisted", delistedAt: at(2) } });
    await service.refresh(at(2));
    expect((await service.search("receipts", { mode: "lexical" }))!.hits).toEqual([]);
  });

  it("ranks on its own thread: a flood of questions waits behind a bounded queue, and a stopped thread answers nothing", async () => {
    const flooded = new SearchService(context.db, { model: false });
    await flooded.start(at(1));
    const answers = await Promise.all(
      Array.from({ length: MAX_WAITING_SEARCHES + 4 }, (_, n) => flooded.search(`weather ${n}`, { mode: "hybrid" })),
    );
    // The first MAX_WAITING_SEARCHES are ranked; the rest are refused at once (the catalog answers them by substring).
    expect(answers.slice(0, MAX_WAITING_SEARCHES).every((answer) => answer?.hits[0]?.id === ids.weather)).toBe(true);
    expect(answers.slice(MAX_WAITING_SEARCHES)).toEqual([null, null, null, null]);
    expect(await flooded.search("weather", { mode: "hybrid" })).toMatchObject({ hits: [{ id: ids.weather }] });
    await flooded.close();
    expect(flooded.usable).toBe(false);
    expect(await flooded.search("weather", { mode: "hybrid" })).toBeNull();
  });

  it("says so when its engine's thread dies, and answers nothing from then on", async () => {
    const warnings: string[] = [];
    const log = { info: () => {}, warn: (_fields: object, message: string) => void warnings.push(message) };
    const crashed = new SearchService(context.db, { model: false, log });
    await crashed.start(at(1));
    const inFlight = Array.from({ length: MAX_WAITING_SEARCHES }, (_, n) =>
      crashed.search(`weather ${n}`, { mode: "hybrid" }),
    );
    await (crashed as unknown as { engine: { worker: { terminate(): Promise<number> } } }).engine.worker.terminate();
    // Searches the thread took with it are answered without the engine (null), never with an error.
    for (const answer of await Promise.all(inFlight))
      expect(answer === null || answer.hits[0]?.id === ids.weather).toBe(true);
    await vi.waitFor(() => expect(crashed.usable).toBe(false));
    expect(warnings).toEqual([expect.stringContaining("the engine's thread stopped")]);
    expect(await crashed.search("weather", { mode: "hybrid" })).toBeNull();
    await crashed.close();
    expect(warnings).toHaveLength(1);
  });
});
