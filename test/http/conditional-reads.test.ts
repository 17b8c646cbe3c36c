import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, listing, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { testDatabaseKinds } from "../storage/databases.js";

const CONDITIONAL = [
  "/foreign.json",
  "/foreign",
  "/sellers.json",
  "/sellers",
  "/bazaar/foreign",
  "/bazaar/foreign.json",
  "/bazaar.json",
  "/discovery/resources",
  "/discovery/search?query=paid",
  "/resources",
  "/search?q=paid",
  "/feed.json",
  "/feed",
  "/listings/feed",
  "/feed.atom",
  "/atom.xml",
  "/feed.rss",
  "/rss.xml",
  "/listings/rss",
  "/catalog.rss",
  "/feed.xml",
  "/status",
  "/status.json",
  "/swagger.json",
];

/** The headers a response is made of: not the transport's, nor the request id (each request has its own). */
const headerSet = (headers: Headers) => {
  const copy = Object.fromEntries(
    [...headers].filter(([name]) => !["date", "connection", "keep-alive", "x-request-id"].includes(name)),
  );
  return copy;
};

describe.each(databaseKinds)("weak ETags and 304 on $kind", (kind) => {
  let market: CatalogServer;
  beforeAll(async () => {
    market = await startCatalogServer(kind);
    await market.list({ description: "A paid endpoint for the ETag tests" });
  });
  afterAll(async () => {
    await market?.close();
  });

  it("answers every conditional route with a weak ETag, and 304 with no body when it matches", async () => {
    for (const path of CONDITIONAL) {
      const first = await market.server.fetch(path);
      expect(first.status, path).toBe(200);
      const etag = first.headers.get("etag");
      expect(etag, path).toMatch(/^W\/"[^"]+"$/);
      const again = await market.server.fetch(path, { headers: { "If-None-Match": etag! } });
      expect(again.status, path).toBe(304);
      expect(again.headers.get("etag"), path).toBe(etag);
      if (path !== "/swagger.json") expect(again.headers.get("cache-control"), path).toBe("no-cache");
      expect(await again.text(), path).toBe("");
      const other = await market.server.fetch(path, { headers: { "If-None-Match": 'W/"other"' } });
      expect(other.status, path).toBe(200);
      await Promise.all([first.text(), other.text()]);
    }
  });

  it("answers 304 with the same headers whether the app or the response cache answers", async () => {
    // An alias not read yet is answered by the app; its twin, read before, by the cache.
    const etag = (await market.server.fetch("/sellers.json")).headers.get("etag")!;
    const fromCache = await market.server.fetch("/sellers.json", { headers: { "If-None-Match": etag } });
    const fromApp = await market.server.fetch("/bazaar/foreign.json", { headers: { "If-None-Match": etag } });
    expect([fromCache.status, fromApp.status]).toEqual([304, 304]);
    expect(fromCache.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(fromApp.headers.get("x-request-id")).not.toBe(fromCache.headers.get("x-request-id"));
    expect(headerSet(fromApp.headers)).toEqual(headerSet(fromCache.headers));
  });

  it("serves a repeated read (from the response cache) with the same bytes and headers as the first", async () => {
    for (const url of ["/bazaar.json?limit=7", "/feed.atom", "/status.json"]) {
      for (const origin of [undefined, "https://agent.example.com"]) {
        const init = origin ? { headers: { Origin: origin } } : {};
        const first = await market.server.fetch(url, init);
        const second = await market.server.fetch(url, init);
        expect(second.status).toBe(200);
        expect(await second.text()).toBe(await first.text());
        expect(headerSet(second.headers)).toEqual(headerSet(first.headers));
        if (origin) expect(second.headers.get("access-control-allow-origin")).toBe("*");
      }
    }
  });

  it("refuses an unknown query parameter rather than ignoring a typo", async () => {
    const answer = await market.json<{ fields: unknown[] }>("/bazaar.json?limt=5");
    expect(answer.status).toBe(400);
    expect(answer.body.fields).toEqual([{ in: "query", field: "limt", message: "is not an allowed field" }]);
  });

  it("changes the ETag exactly when the content changes: after a write and at an expiry, not otherwise", async () => {
    const etagOf = async (path: string) => {
      const answer = await market.server.fetch(path);
      await answer.text();
      return answer.headers.get("etag");
    };
    const before = await etagOf("/bazaar.json");
    expect(await etagOf("/bazaar.json")).toBe(before);
    const created = await market.list({ description: "A second paid endpoint arrives" });
    const afterWrite = await etagOf("/bazaar.json");
    expect(afterWrite).not.toBe(before);
    const stale = await market.server.fetch("/bazaar.json", { headers: { "If-None-Match": before! } });
    expect(stale.status).toBe(200);
    market.clock.set(new Date(created.expiresAt.getTime() + 1));
    const afterExpiry = await etagOf("/bazaar.json");
    expect(afterExpiry).not.toBe(afterWrite);
    const body = (await (await market.server.fetch("/bazaar.json")).json()) as { items: unknown[] };
    expect(body.items).toEqual([]);
  });

  it("answers HEAD on a cached document with the GET headers and no body", async () => {
    const get = await market.server.fetch("/status.json");
    const head = await market.server.fetch("/status.json", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect(head.headers.get("content-length")).toBe(get.headers.get("content-length"));
    expect(await head.text()).toBe("");
  });
});

const postgres = testDatabaseKinds().find((kind) => kind.kind === "postgres");

describe.skipIf(!postgres)("two instances sharing one PostgreSQL", () => {
  let a: TestServer;
  let b: TestServer;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await postgres!.create();
    drop = db.drop;
    const env = { DATABASE_URL: db.url, PUBLIC_BASE_URL: "https://market.example.com" };
    a = await startTestServer(env);
    b = await startTestServer(env);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  it("serve the same ETag, and a write on one changes the ETag on the other within the staleness bound", async () => {
    const etag = async (server: TestServer) => (await server.fetch("/foreign.json")).headers.get("etag");
    expect(await etag(a)).toBe(await etag(b));
    const before = await etag(b);
    await a.contexts.listings.store.createListing(
      listing({ description: "Written through instance A only" }),
      new Date(),
    );
    const afterOnA = await etag(a);
    expect(afterOnA).not.toBe(before);
    // B hears of the commit by change notice (milliseconds), or at the latest when its stamp ages out
    // (SHARED_STAMP_MAX_AGE_MS, 1 s); the deadline is generous for a loaded machine.
    let afterOnB = await etag(b);
    for (
      const deadline = Date.now() + 15_000;
      afterOnB !== afterOnA && Date.now() < deadline;
      afterOnB = await etag(b)
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(afterOnB).toBe(afterOnA);
    const revalidated = await b.fetch("/foreign.json", { headers: { "If-None-Match": before! } });
    expect(revalidated.status).toBe(200);
    const items = ((await revalidated.json()) as { items: Array<{ description: string }> }).items;
    expect(items.map((item) => item.description)).toContain("Written through instance A only");
  });
});
