// The catalog page's order and filters as a person sees them: healthy listings first, then those
// not re-probed yet, drifted and unhealthy, each group in the chosen order, checked against a plain
// sort in memory of every row of the JSON twin, across pages; the price and tag filters; cards with
// the service name, an icon letter, tags as chips, usage and health; the summary's newest and most
// used listings.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

type Item = {
  metadata: {
    listingId: string;
    priceUsdc: string;
    health: { status: string; uptime7d?: number };
    usage?: { l30DaysTotalCalls: number };
  };
};

const GROUP = { healthy: 0, unknown: 1, drifted: 2, unhealthy: 3 } as Record<string, number>;

function usage(calls: number) {
  const counts = {
    l30DaysTotalCalls: calls,
    l30DaysUniquePayers: Math.min(calls, 2),
    l30DaysVolumeUsdc: "0.10",
    lastCalledAt: "2030-01-07T12:00:00.000Z",
  };
  return { ...counts, provenance: "settled-onchain", currentToBlock: "100", raw: counts, excluded: {} };
}

describe.each(databaseKinds)("catalog page order and filters ($name)", (kind) => {
  let market: CatalogServer;
  const names = new Map<string, string>();

  const publish = (
    id: string,
    data: {
      healthStatus?: string;
      calls30d?: number;
      usageSummary?: object;
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
      {
        name: "alpha",
        price: "0.02",
        health: "unhealthy",
        calls: 0,
        tags: ["ocean", "tides"],
        serviceName: "Tide Tables",
        uptime: 0.2,
      },
      { name: "bravo", price: "0.05", health: "healthy", calls: 9, uptime: 0.9 },
      { name: "charlie", price: "0.01", health: "healthy", calls: 3, uptime: 1 },
      { name: "delta", price: "0.03", health: "unknown", calls: 0 },
      { name: "echo", price: "0.04", health: "drifted", calls: 1, uptime: 0.5 },
      { name: "foxtrot", price: "0.05", health: "healthy", calls: 0, uptime: 0.9 },
      { name: "golf", price: "0.02", health: "unknown", calls: 0 },
    ];
    for (const row of plan) {
      const metadata = row.serviceName ? { serviceName: row.serviceName, tags: row.tags } : undefined;
      const { id } = await market.list({
        priceUsdc: row.price,
        description: `Weather service ${row.name} for agents`,
        metadata,
      });
      names.set(id, row.name);
      if (row.health !== "unknown" || row.calls > 0) {
        await publish(id, {
          healthStatus: row.health,
          calls30d: row.calls,
          ...(row.calls > 0 && { usageSummary: usage(row.calls) }),
          ...(row.uptime !== undefined && { healthSummary: { uptime7d: row.uptime }, uptime7d: row.uptime }),
        });
      }
    }
  });
  afterAll(() => market?.close());

  const html = async (path: string) => {
    const response = await market.server.fetch(path);
    expect(response.status, path).toBe(200);
    return response.text();
  };
  /** The cards' listings in page order, by name. */
  const cards = async (path: string) => {
    const page = await html(path);
    const start = page.indexOf('<ul class="cards"');
    if (start < 0) return [];
    const list = page.slice(start, page.indexOf("</section>", start));
    return [...list.matchAll(/<h3><a href="\/listing\/([^"]+)"/g)].map((match) => names.get(match[1]!) ?? match[1]!);
  };
  /** Every row of the JSON twin, sorted in memory: health group, then the order given. */
  const expected = async (twin: string, order: (a: Item, b: Item) => number) => {
    const { body } = await market.json<{ items: Item[] }>(twin);
    return [...body.items]
      .sort((a, b) => GROUP[a.metadata.health.status]! - GROUP[b.metadata.health.status]! || order(a, b))
      .map((item) => names.get(item.metadata.listingId)!);
  };
  const newest = (twin: Item[]) => (a: Item, b: Item) => twin.indexOf(a) - twin.indexOf(b);

  it.each([
    ["", "/bazaar.json?limit=100", "newest"],
    ["sort=price", "/bazaar.json?limit=100&sort=price", "price"],
    ["sort=popular", "/bazaar.json?limit=100&sort=popular", "popular"],
    ["sort=priceDesc", "/bazaar.json?limit=100&sort=priceDesc", "priceDesc"],
    ["sort=uptime", "/bazaar.json?limit=100&sort=uptime", "uptime"],
    ["query=weather&sort=uptime", "/discovery/search?query=weather&limit=100&sort=uptime", "uptime"],
    ["query=weather", "/discovery/search?query=weather&limit=100", "relevance"],
    ["query=weather&sort=price", "/discovery/search?query=weather&limit=100&sort=price", "price"],
  ])("/?%s: healthy first, then the chosen order within each health group, on every page", async (query, twin) => {
    // The twin in its own order: within a group the page keeps it (a stable sort by group).
    const { body } = await market.json<{ items: Item[] }>(twin);
    const want = await expected(twin, newest(body.items));
    expect(want.slice(0, 3).every((name) => ["bravo", "charlie", "foxtrot"].includes(name))).toBe(true);
    expect(want.at(-1)).toBe("alpha");
    const join = query ? `${query}&` : "";
    expect(await cards(`/?${query}`)).toEqual(want);
    const paged: string[] = [];
    for (let offset = 0; offset < want.length; offset += 2)
      paged.push(...(await cards(`/?${join}limit=2&offset=${offset}`)));
    expect(paged).toEqual(want);
  });

  it("orders by price and by use within each group, as a plain sort of every row says", async () => {
    // A stable sort of the newest-first twin: ties in price or use stay newest first, as the page keeps them.
    const price = (item: Item) => Number(item.metadata.priceUsdc);
    expect(await cards("/?sort=price")).toEqual(
      await expected("/bazaar.json?limit=100", (a, b) => price(a) - price(b)),
    );
    // Dearest first reads cheapest first backwards: oldest first within a price.
    const { body } = await market.json<{ items: Item[] }>("/bazaar.json?limit=100");
    const age = (item: Item) => body.items.findIndex((row) => row.metadata.listingId === item.metadata.listingId);
    expect(await cards("/?sort=priceDesc")).toEqual(
      await expected("/bazaar.json?limit=100", (a, b) => price(b) - price(a) || age(b) - age(a)),
    );
    expect((await cards("/?sort=priceDesc")).slice(0, 2)).toEqual(["bravo", "foxtrot"]);
    const calls = (item: Item) => item.metadata.usage?.l30DaysTotalCalls ?? 0;
    expect(await cards("/?sort=popular")).toEqual(
      await expected("/bazaar.json?limit=100", (a, b) => calls(b) - calls(a)),
    );
    expect((await cards("/?sort=popular")).slice(0, 3)).toEqual(["bravo", "charlie", "foxtrot"]);
    // Most reliable first: highest 7-day uptime, newest first within a tie, none measured as 0.
    const uptime = (item: Item) => item.metadata.health.uptime7d ?? 0;
    expect(await cards("/?sort=uptime")).toEqual(
      await expected("/bazaar.json?limit=100", (a, b) => uptime(b) - uptime(a)),
    );
    expect((await cards("/?sort=uptime")).slice(0, 3)).toEqual(["charlie", "foxtrot", "bravo"]);
    expect(await cards("/?health=any&sort=uptime&limit=2&offset=2")).toEqual(["bravo", "golf"]);
    expect(await html("/?sort=uptime")).toContain(
      '<option value="uptime" selected>Most reliable (7-day uptime)</option>',
    );
  });

  it("filters by health, price range and tags; an empty bound is no filter, a bad one a 400", async () => {
    expect(await cards("/?health=unhealthy")).toEqual(["alpha"]);
    expect(await cards("/?health=healthy&sort=price")).toEqual(["charlie", "foxtrot", "bravo"]);
    expect((await cards("/?minPrice=0.02&maxPrice=0.04")).sort()).toEqual(["alpha", "delta", "echo", "golf"]);
    expect(await cards("/?tags=OCEAN")).toEqual(["alpha"]);
    expect(await cards("/?tags=ocean,whales")).toEqual([]);
    expect(await cards("/?query=&network=&minPrice=&maxPrice=&tags=&health=any")).toHaveLength(7);
    const filtered = await html("/?minPrice=0.02&tags=ocean");
    expect(filtered).toContain('<details class="more" open>');
    expect(filtered).toContain("Filters (2 set)");
    expect(filtered).toContain('value="0.02"');
    expect(await html("/")).toContain('<details class="more"><summary>Filters</summary>');
    for (const bad of ["/?minPrice=abc", "/?maxPrice=1.0000001", "/?sort=uptimes"])
      expect((await market.server.fetch(bad)).status, bad).toBe(400);
  });

  it("shows a card's service name, icon letter, tags as chips that filter, health and usage", async () => {
    const page = await html("/?tags=ocean");
    expect(page).toMatch(
      /<span class="icon c\d" aria-hidden="true">T<\/span><h3><a href="\/listing\/[^"]+">Tide Tables<\/a>/,
    );
    expect(page).toContain(
      '<ul class="chips" aria-label="Tags"><li><a href="/?tags=ocean">ocean</a></li><li><a href="/?tags=tides">tides</a></li></ul>',
    );
    expect(page).toContain('<span class="badge unhealthy">unhealthy</span>');
    expect(page).toContain("no sales counted yet");
    const bravo = await html("/?health=healthy&sort=popular&limit=1");
    expect(bravo).toContain("9 calls, 2 payers in 30 days");
    expect(await html("/?query=weather")).toContain('<option value="relevance" selected>Best match</option>');
    expect(await html("/")).not.toContain('value="relevance"');
  });

  it("opens the first unfiltered page with the catalog at a glance: health, the newest and the most used listings", async () => {
    const page = await html("/");
    const summary = page.slice(page.indexOf('<aside class="summary"'), page.indexOf("</aside>"));
    expect(summary).toContain("7 live listings: 3 healthy, 2 not re-probed yet, 1 unhealthy, 1 drifted.");
    const newestNames = [
      ...summary
        .slice(summary.indexOf('id="newest"'), summary.indexOf('id="most-used"'))
        .matchAll(/href="\/listing\/([^"]+)"/g),
    ].map((match) => names.get(match[1]!));
    expect(newestNames).toEqual(["golf", "foxtrot", "echo", "delta", "charlie"]);
    const mostUsed = summary.slice(summary.indexOf('id="most-used"'));
    expect([...mostUsed.matchAll(/href="\/listing\/([^"]+)"/g)].map((match) => names.get(match[1]!))).toEqual([
      "bravo",
      "charlie",
      "echo",
    ]);
    expect(mostUsed).toMatch(
      /aria-label="Calls in 30 days: Weather service|aria-label="Calls in 30 days: [^"]*9 calls/,
    );
    expect(await html("/?offset=20")).not.toContain('<aside class="summary"');
    expect(await html("/?sort=price")).toContain('<aside class="summary"');
  });
  it("heads a listing's page with its icon, service name and tag chips; a title from a long description is cut at a word", async () => {
    const alpha = [...names].find(([, name]) => name === "alpha")![0];
    const page = await html(`/listing/${alpha}`);
    expect(page).toMatch(
      /<span class="icon c\d" aria-hidden="true">T<\/span><h1>Tide Tables<\/h1><\/div><ul class="chips" aria-label="Tags">/,
    );
    expect(page).toContain("<title>Tide Tables · ");
    const long =
      "Summarises long legal contracts into plain language with every obligation, deadline and penalty listed separately";
    const { id } = await market.list({ description: long });
    const titled = await html(`/listing/${id}`);
    expect(titled).toContain("<h1>Summarises long legal contracts into plain language with every obligation…</h1>");
    expect(titled).toContain("<title>Summarises long legal contracts into plain language with…");
  });
});
