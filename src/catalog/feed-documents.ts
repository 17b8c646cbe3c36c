import { Feed } from "feed";
import type { components } from "../../generated/openapi.js";
import type { Services } from "../http/handler-types.js";
import type { Listing } from "../storage/listing-store.js";
import { toCatalogItem } from "./catalog-item.js";
import { linksTo } from "./links.js";
import { linkTo } from "../documents/service-links.js";

export type FeedDocument = components["schemas"]["FeedDocument"];

/** Newest foreign listings shown by the Atom and RSS views. */
export const SYNDICATION_SIZE = 50;

export function feedDocument(services: Services, rows: Listing[], query: { since: Date | null; limit: number }, updatedAt: Date): FeedDocument {
  const newest = rows[0]?.listedAt ?? null;
  return {
    x402Version: 2,
    role: "marketplace",
    name: services.market.name,
    updatedAt: updatedAt.toISOString(),
    since: query.since?.toISOString() ?? null,
    limit: query.limit,
    nextSince: newest?.toISOString() ?? null,
    items: rows.map((row) => toCatalogItem(row, services.market)),
    links: {
      ...linksTo(services.market, ["market", "resources", "search", "list"]),
      atom: linkTo(services.market, "/feed.atom"),
      rss: linkTo(services.market, "/feed.rss"),
    },
  };
}

function syndication(services: Services, rows: Listing[], updatedAt: Date): Feed {
  const { market } = services;
  const feed = new Feed({
    id: linkTo(market, "/feed.atom"),
    title: `${market.name}: new listings`,
    description: "Newest x402-paid endpoints listed by third-party sellers. Buy directly from each listed resource.",
    link: linkTo(market, "/bazaar.json"),
    updated: updatedAt,
    generator: market.name,
    copyright: "Listings are their sellers' own descriptions.",
    author: { name: market.name, link: market.baseUrl },
    feedLinks: { atom: linkTo(market, "/feed.atom"), rss: linkTo(market, "/feed.rss"), json: linkTo(market, "/feed.json") },
  });
  for (const row of rows) {
    const price = `${row.priceUsdc} USDC per call, paid to ${row.sellerPayTo} on ${row.network}`;
    feed.addItem({
      title: `${row.method} ${row.resource} — ${row.priceUsdc} USDC`,
      id: `urn:uuid:${row.id}`,
      guid: `urn:uuid:${row.id}`,
      link: row.resource,
      date: row.updatedAt,
      published: row.listedAt,
      description: `${row.description} (${price})`,
    });
  }
  return feed;
}

export function atomFeed(services: Services, rows: Listing[], updatedAt: Date): string {
  return syndication(services, rows, updatedAt).atom1();
}

export function rssFeed(services: Services, rows: Listing[], updatedAt: Date): string {
  return syndication(services, rows, updatedAt).rss2();
}
