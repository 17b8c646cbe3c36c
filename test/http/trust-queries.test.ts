// The trust filters and orders as buyers send them: the catalog, resources and search routes take
// health, verified, minCalls and sort; the JSON feed takes health and stays newest first; a value
// outside the contract is a 400 naming it. A change of health published by a background job is a
// catalog change: a conditional read made before it gets the new document, not a 304.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

type Item = { metadata: { listingId: string; health: { status: string }; ownerVerified: boolean; priceUsdc: string } };

describe.each(databaseKinds)("trust queries on $kind", (kind) => {
  let market: CatalogServer;
  const ids: string[] = [];

  /** As the re-prober and the usage indexer publish: through the catalog's one write path. */
  const publish = (
    id: string,
    data: {
      healthStatus?: string;
      ownerVerified?: boolean;
      calls30d?: number;
      healthSummary?: object;
      uptime7d?: number;
    },
  ) =>
    market.server.contexts.listings.store.transactions.write(market.clock.now(), async (tx) => {
      await tx.listing.update({ where: { id }, data });
      return { result: undefined, changed: true };
    });

  beforeAll(async () => {
    market = await startCatalogServer(kind);
    const plan = [
      { price: "0.05", health: "healthy", verified: true, calls: 3, uptime7d: 0.5 },
      { price: "0.01", health: "unhealthy", verified: false, calls: 9, uptime7d: 1 },
      { price: "0.03", health: "healthy", verified: false, calls: 0, uptime7d: 0.5 },
      // No 7-day uptime measured yet: last.
      { price: "0.02", health: "drifted", verified: true, calls: 9 },
    ];
    for (const [i, row] of plan.entries()) {
      const created = await market.list({ priceUsdc: row.price, description: `Weather endpoint ${i}` });
      ids.push(created.id);
      const uptime =
        row.uptime7d === undefined ? {} : { healthSummary: { uptime7d: row.uptime7d }, uptime7d: row.uptime7d };
      await publish(created.id, {
        healthStatus: row.health,
        ownerVerified: row.verified,
        calls30d: row.calls,
        ...uptime,
      });
    }
  });
  afterAll(() => market?.close());

  const listed = async (path: string) => {
    const { status, body } = await market.json<{ items?: Item[]; resources?: Item[] }>(path);
    expect(status, path).toBe(200);
    return (body.items ?? body.resources ?? []).map((item) => ids.indexOf(item.metadata.listingId));
  };

  it.each(["/bazaar.json", "/discovery/resources", "/search?q=weather", "/discovery/search?query=weather"])(
    "%s filters and sorts",
    async (route) => {
      const join = route.includes("?") ? "&" : "?";
      // Default: newest first (the search ranks by relevance, all equal here, then newest).
      expect(await listed(route)).toEqual([3, 2, 1, 0]);
      expect(await listed(`${route}${join}health=healthy`)).toEqual([2, 0]);
      expect(await listed(`${route}${join}health=any`)).toEqual([3, 2, 1, 0]);
      expect(await listed(`${route}${join}verified=true`)).toEqual([3, 0]);
      expect(await listed(`${route}${join}minCalls=5`)).toEqual([3, 1]);
      expect(await listed(`${route}${join}sort=price`)).toEqual([1, 3, 2, 0]);
      expect(await listed(`${route}${join}sort=priceDesc`)).toEqual([0, 2, 3, 1]);
      // Ties in sales: newest first.
      expect(await listed(`${route}${join}sort=popular`)).toEqual([3, 1, 0, 2]);
      expect(await listed(`${route}${join}sort=popular&health=healthy&limit=1`)).toEqual([0]);
      // Highest 7-day uptime first, ties newest first, none measured last.
      expect(await listed(`${route}${join}sort=uptime`)).toEqual([1, 2, 0, 3]);
      expect(await listed(`${route}${join}sort=uptime&health=healthy`)).toEqual([2, 0]);
      expect(await listed(`${route}${join}sort=uptime&limit=2&offset=2`)).toEqual([0, 3]);
    },
  );

  it("the JSON feed takes health and stays newest first", async () => {
    const { body } = await market.json<{ items: Item[] }>("/feed.json?health=healthy");
    expect(body.items.map((item) => ids.indexOf(item.metadata.listingId))).toEqual([2, 0]);
  });

  it.each([
    ["/bazaar.json?health=dead", "health"],
    ["/discovery/resources?sort=cheapest", "sort"],
    ["/search?q=x&minCalls=-1", "minCalls"],
    ["/bazaar.json?minCalls=ten", "minCalls"],
    ["/bazaar.json?verified=yes", "verified"],
    ["/feed.json?health=unknown", "health"],
  ])("%s is a 400 naming %s", async (path, field) => {
    const { status, body } = await market.json<{ error: string; fields: Array<{ field: string }> }>(path);
    expect(status).toBe(400);
    expect(body.error).toBe("invalid_request");
    expect(body.fields.map((f) => f.field)).toContain(field);
  });

  it("a published health change is a catalog change: the old ETag no longer matches", async () => {
    const first = await market.server.fetch("/bazaar.json?health=healthy");
    const etag = first.headers.get("ETag")!;
    expect(
      (await market.server.fetch("/bazaar.json?health=healthy", { headers: { "If-None-Match": etag } })).status,
    ).toBe(304);
    await publish(ids[1]!, { healthStatus: "healthy" });
    const after = await market.server.fetch("/bazaar.json?health=healthy", { headers: { "If-None-Match": etag } });
    expect(after.status).toBe(200);
    const body = (await after.json()) as { items: Item[] };
    expect(body.items.map((item) => ids.indexOf(item.metadata.listingId))).toEqual([2, 1, 0]);
    expect(body.items.every((item) => item.metadata.health.status === "healthy")).toBe(true);
    await publish(ids[1]!, { healthStatus: "unhealthy" });
  });
});
