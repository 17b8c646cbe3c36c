// The feeds area: the JSON feed a poller pages with `since`, and its Atom and RSS views.
import { parseFeed } from "@rowanmanning/feed-parser";
import { parseFeed as feedsmithParse } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { describeAreaRoutes, jsonOf, type RouteAnswer } from "./area-routes.js";

interface FeedDocument {
  since: string | null;
  limit: number;
  nextSince: string | null;
  updatedAt: string;
  items: Array<{ metadata: { listingId: string; listedAt: string; leftoverSeed: boolean } }>;
}

/** The feeds' listings are this seller's (checksummed, as sellers send it). */
const SELLER = SELLER_PAY_TO;

const RFC_822 =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

describe.each(databaseKinds)("feeds on $kind", (kind) => {
  let market: CatalogServer;
  const ids: string[] = [];

  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true" });
    for (let i = 0; i < 5; i++)
      ids.push((await market.list({ description: `Feed entry number ${i} & <friends>`, sellerPayTo: SELLER })).id);
  });
  afterAll(async () => {
    await market?.close();
  });

  /** The five foreign listings, newest first, as feed entries; the seed rows never appear. */
  const newestFirst = () => [...ids].reverse();
  const parsed = (answer: RouteAnswer, type: "atom" | "rss") => {
    expect(answer.headers.get("etag")).toMatch(/^W\//);
    const feed = parseFeed(answer.text);
    expect(feed.meta.type).toBe(type);
    expect(feed.items.map((item) => item.id)).toEqual(newestFirst().map((id) => `urn:uuid:${id}`));
  };

  describeAreaRoutes("feeds", () => market.server, {
    getFeed: {
      status: 200,
      check(answer) {
        expect(answer.headers.get("etag")).toMatch(/^W\//);
        expect(jsonOf<FeedDocument>(answer).items.map((item) => item.metadata.listingId)).toEqual(newestFirst());
      },
    },
    getAtomFeed: { status: 200, check: (answer) => parsed(answer, "atom") },
    getRssFeed: { status: 200, check: (answer) => parsed(answer, "rss") },
    getSellerFeed: {
      status: 200,
      request: () => ({ params: { payTo: SELLER.toLowerCase() } }),
      check(answer) {
        expect(answer.headers.get("etag")).toMatch(/^W\//);
        const feed = jsonOf<{ sellerPayTo: string; items: Array<{ event: { type: string; listingId: string } }> }>(
          answer,
        );
        expect(feed.sellerPayTo).toBe(SELLER.toLowerCase());
        expect(feed.items.map((item) => item.event.listingId)).toEqual(newestFirst());
        expect(feed.items.every((item) => item.event.type === "listing.created")).toBe(true);
      },
    },
    getSellerAtomFeed: {
      status: 200,
      request: () => ({ params: { payTo: SELLER } }),
      check(answer) {
        const feed = parseFeed(answer.text);
        expect(feed.meta.type).toBe("atom");
        expect(feed.items).toHaveLength(5);
        expect(feed.items[0]!.url).toContain(`/listing/${newestFirst()[0]}`);
      },
    },
  });

  it("lists foreign listings newest first, defaulting to 50", async () => {
    const { status, body } = await market.json<FeedDocument>("/feed.json");
    expect(status).toBe(200);
    expect(body.limit).toBe(50);
    expect(body.since).toBeNull();
    expect(body.items.map((item) => item.metadata.listingId)).toEqual([...ids].reverse());
    expect(body.items.some((item) => item.metadata.leftoverSeed)).toBe(false);
    expect(body.nextSince).toBe(body.items[0]!.metadata.listedAt);
    for (const alias of ["/feed", "/listings/feed"])
      expect(await (await market.server.fetch(alias)).text()).toBe(JSON.stringify(body));
  });

  it("treats since as exclusive, and lets a poller see every listing exactly once", async () => {
    const all = (await market.json<FeedDocument>("/feed.json")).body.items;
    const third = all[2]!.metadata.listedAt;
    const after = (await market.json<FeedDocument>(`/feed.json?since=${encodeURIComponent(third)}`)).body;
    expect(after.items.map((item) => item.metadata.listingId)).toEqual([ids[4], ids[3]]);
    expect(after.since).toBe(third);

    const seen: string[] = [];
    let since = "2000-01-01T00:00:00.000Z";
    for (let round = 0; round < 10; round++) {
      const page = (await market.json<FeedDocument>(`/feed.json?limit=2&since=${encodeURIComponent(since)}`)).body;
      if (page.items.length === 0) break;
      seen.push(...page.items.map((item) => item.metadata.listingId));
      since = page.nextSince!;
    }
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it("accepts limit 1 to 200 only", async () => {
    expect((await market.json<FeedDocument>("/feed.json?limit=1")).body.items).toHaveLength(1);
    expect((await market.json("/feed.json?limit=200")).status).toBe(200);
    expect((await market.json("/feed.json?limit=0")).status).toBe(400);
    expect((await market.json("/feed.json?limit=201")).status).toBe(400);
  });

  it("serves Atom 1.0 that a feed parser reads, with ids, updated dates and a self link", async () => {
    const response = await market.server.fetch("/feed.atom");
    expect(response.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    const xml = await response.text();
    const feed = parseFeed(xml);
    expect(feed.meta.type).toBe("atom");
    expect(feed.items.map((item) => item.id)).toEqual([...ids].reverse().map((id) => `urn:uuid:${id}`));
    expect(feed.items[0]!.title).toContain("0.03 USDC");
    expect(feed.items[4]!.description).toContain("Feed entry number 0 & <friends>");
    expect(feed.updated).toBeInstanceOf(Date);
    expect(xml).toContain(
      `<link rel="self" href="${market.server.contexts.listings.config.publicBaseUrl}/feed.atom"/>`,
    );
    expect(xml).toMatch(/<author>\s*<name>/);
    expect(await (await market.server.fetch("/atom.xml")).text()).toBe(xml);
  });

  it("serves RSS 2.0 that a feed parser reads, with guids, RFC 822 dates and an atom:link self", async () => {
    const response = await market.server.fetch("/feed.rss");
    expect(response.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
    const xml = await response.text();
    const feed = parseFeed(xml);
    expect(feed.meta.type).toBe("rss");
    expect(feed.items).toHaveLength(5);
    expect(feed.items.map((item) => item.id)).toEqual([...ids].reverse().map((id) => `urn:uuid:${id}`));
    const pubDates = [...xml.matchAll(/<pubDate>([^<]+)<\/pubDate>/g)].map((match) => match[1]!);
    expect(pubDates).toHaveLength(5);
    for (const date of [...pubDates, /<lastBuildDate>([^<]+)</.exec(xml)![1]!]) expect(date).toMatch(RFC_822);
    expect(xml).toContain(
      `<atom:link href="${market.server.contexts.listings.config.publicBaseUrl}/feed.rss" rel="self" type="application/rss+xml"/>`,
    );
    for (const alias of ["/rss.xml", "/listings/rss", "/catalog.rss", "/feed.xml"])
      expect(await (await market.server.fetch(alias)).text()).toBe(xml);
  });

  it("serves /feed.json as a JSON Feed 1.1 that feedsmith accepts, items linking the listing's page with the resource beside it", async () => {
    const text = await (await market.server.fetch("/feed.json")).text();
    const { format, feed } = feedsmithParse(JSON.parse(text) as object) as {
      format: string;
      feed: {
        title?: string;
        items?: Array<{ id?: string; url?: string; external_url?: string; content_text?: string }>;
      };
    };
    expect(format).toBe("json");
    const base = market.server.contexts.listings.config.publicBaseUrl;
    expect(feed.title).toContain("new listings");
    expect(feed.items!.map((item) => item.id)).toEqual(newestFirst());
    const first = feed.items![0]!;
    expect(first.url).toBe(`${base}/listing/${newestFirst()[0]}`);
    expect(first.external_url).toMatch(/^https:\/\//);
    expect(first.content_text).toContain("Feed entry number 4 & <friends>");
    // The marketplace's own fields are kept beside JSON Feed's.
    const document = JSON.parse(text) as FeedDocument & { version: string; feed_url: string };
    expect(document.version).toBe("https://jsonfeed.org/version/1.1");
    expect(document.feed_url).toBe(`${base}/feed.json`);
    expect(document.items[0]!.metadata.listingId).toBe(newestFirst()[0]);
  });

  it("links Atom and RSS items to the listing's page, naming the resource in their text", async () => {
    const base = market.server.contexts.listings.config.publicBaseUrl;
    for (const path of ["/feed.atom", "/feed.rss"]) {
      const feed = parseFeed(await (await market.server.fetch(path)).text());
      expect(feed.items[0]!.url, path).toBe(`${base}/listing/${newestFirst()[0]}`);
      expect(feed.items[0]!.description, path).toMatch(/endpoint https:\/\//);
    }
  });
});
