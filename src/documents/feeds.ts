import { Feed } from "feed";
import type { components } from "../../generated/openapi.js";
import type { DocumentContext } from "./context.js";
import type { Listing } from "../catalog/rows.js";
import { toCatalogItem } from "../catalog/catalog-item.js";
import { linkTo, linksTo, linkWithParams } from "../market/links.js";

export type FeedDocument = components["schemas"]["FeedDocument"];

/** Newest foreign listings shown by the Atom and RSS views. */
export const SYNDICATION_SIZE = 50;

const FEED_TITLE = (name: string) => `${name}: new listings`;
const FEED_DESCRIPTION =
  "Newest x402-paid endpoints listed by third-party sellers. Buy directly from each listed resource.";

/** A listing's page on this service: where feed items link, with the resource itself beside it. */
function pageOf(services: DocumentContext, row: Listing): string {
  return linkWithParams(services.market, "/listing/{id}", { id: row.id });
}

function itemTitle(row: Listing): string {
  return `${row.method} ${row.resource} — ${row.priceUsdc} USDC`;
}

function itemText(row: Listing): string {
  return `${row.description} (${row.priceUsdc} USDC per call, paid to ${row.sellerPayTo} on ${row.network}; endpoint ${row.resource})`;
}

export function feedDocument(
  services: DocumentContext,
  rows: Listing[],
  query: { since: Date | null; limit: number },
  updatedAt: Date,
): FeedDocument {
  const newest = rows[0]?.listedAt ?? null;
  return {
    x402Version: 2,
    role: "marketplace",
    name: services.market.name,
    updatedAt: updatedAt.toISOString(),
    version: "https://jsonfeed.org/version/1.1",
    title: FEED_TITLE(services.market.name),
    home_page_url: linkTo(services.market, "/"),
    feed_url: linkTo(services.market, "/feed.json"),
    description: FEED_DESCRIPTION,
    since: query.since?.toISOString() ?? null,
    limit: query.limit,
    nextSince: newest?.toISOString() ?? null,
    items: rows.map((row) => ({
      ...toCatalogItem(row, services.market),
      id: row.id,
      url: pageOf(services, row),
      external_url: hrefOf(row.resource),
      title: itemTitle(row),
      content_text: itemText(row),
      date_published: row.listedAt.toISOString(),
      date_modified: row.updatedAt.toISOString(),
    })),
    links: {
      ...linksTo(services.market, ["market", "resources", "search", "list"]),
      atom: linkTo(services.market, "/feed.atom"),
      rss: linkTo(services.market, "/feed.rss"),
    },
  };
}

// Listing fields are the sellers' own text. The `feed` package writes titles and summaries into
// CDATA marked `type="html"` (escaping only the first `]]>`), and hrefs with only `&` escaped; it
// cannot carry a character XML 1.0 forbids at all. So every value is made safe before it goes in.

/** Everything outside XML 1.0's Char production (C0 controls but tab, LF and CR; unpaired surrogates; U+FFFE, U+FFFF). */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text any XML document can carry: forbidden characters become U+FFFD. */
function xmlChars(text: string): string {
  return text.replace(NOT_XML_CHAR, "\uFFFD");
}

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "\r": "&#13;",
};

/**
 * Plain text as the HTML that `type="html"` content is: a seller's `<script>` is shown, not run, and
 * with `>` escaped no `]]>` can close the CDATA section early. (A carriage return is written as a
 * reference because XML parsers turn a literal one into a line feed.)
 */
export function htmlText(text: string): string {
  return xmlChars(text).replace(/[&<>"'\r]/g, (char) => HTML_ESCAPES[char]!);
}

/**
 * A listing's URL for an `href`: its WHATWG serialisation, which percent-encodes `<`, `>`, `"`,
 * spaces and controls (listings are stored that way since the listing checks normalise them; older
 * rows may not be). `feed` escapes the `&`.
 */
function hrefOf(resource: string): string {
  const text = xmlChars(resource);
  try {
    return new URL(text).href;
  } catch {
    return encodeURI(text);
  }
}

function syndication(services: DocumentContext, rows: Listing[], updatedAt: Date): Feed {
  const { market } = services;
  const feed = new Feed({
    id: linkTo(market, "/feed.atom"),
    title: FEED_TITLE(market.name),
    description: FEED_DESCRIPTION,
    link: linkTo(market, "/"),
    updated: updatedAt,
    generator: market.name,
    copyright: "Listings are their sellers' own descriptions.",
    author: { name: market.name, link: market.baseUrl },
    feedLinks: {
      atom: linkTo(market, "/feed.atom"),
      rss: linkTo(market, "/feed.rss"),
      json: linkTo(market, "/feed.json"),
    },
  });
  for (const row of rows) {
    feed.addItem({
      title: htmlText(itemTitle(row)),
      id: `urn:uuid:${row.id}`,
      guid: `urn:uuid:${row.id}`,
      // The listing's page; the resource is in the title and the text.
      link: pageOf(services, row),
      date: row.updatedAt,
      published: row.listedAt,
      description: htmlText(itemText(row)),
    });
  }
  return feed;
}

export function atomFeed(services: DocumentContext, rows: Listing[], updatedAt: Date): string {
  return syndication(services, rows, updatedAt).atom1();
}

export function rssFeed(services: DocumentContext, rows: Listing[], updatedAt: Date): string {
  return syndication(services, rows, updatedAt).rss2();
}
