// The Atom and RSS views with sellers' hostile text in every field: each must stay well-formed XML
// for a strict parser (saxes), and a feed reader (@rowanmanning/feed-parser) must read back what
// the store holds, wherever XML can carry it.
import { parseFeed } from "@rowanmanning/feed-parser";
import { SaxesParser } from "saxes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Listing, ListingInput } from "../../src/storage/listing/listing-store.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** Parses with saxes, which throws on anything that is not well-formed XML 1.0 with namespaces. */
function parseStrictXml(xml: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const root: XmlElement = { name: "#document", attributes: {}, children: [], text: "" };
  const open: XmlElement[] = [root];
  parser.on("opentag", (tag) => {
    const element: XmlElement = { name: tag.local ?? tag.name, attributes: {}, children: [], text: "" };
    for (const attribute of Object.values(tag.attributes))
      element.attributes[attribute.local ?? attribute.name] = attribute.value;
    open.at(-1)!.children.push(element);
    open.push(element);
  });
  parser.on("text", (text) => (open.at(-1)!.text += text));
  parser.on("cdata", (text) => (open.at(-1)!.text += text));
  parser.on("closetag", () => open.pop());
  parser.write(xml).close();
  return root.children[0]!;
}

const child = (element: XmlElement, name: string) => element.children.find((candidate) => candidate.name === name);

/** What XML 1.0 can carry of a string: characters outside its Char production cannot be written at all. */
const carried = (text: string) => text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD");

const HOSTILE_ROWS = [
  {
    resource: `https://hostile.example/a<b>"c'd&e]]>f?x=<y>&amp;z="q"&w='v'`,
    description: `<script>alert("x")</script> & 'quotes' "double" ]]> twice ]]> &amp; &lt; &#13; cr\r\nlf\ttab end`,
    method: `GET<>&"'`,
    network: `eip155:8453<&>"']]>`,
  },
  {
    resource: "https://hostile.example/controls\u0001\u0008\u000b\u001f\ufffe\uffff?q=\u0002",
    description: "bell\u0007 vt\u000b ff\u000c esc\u001b nonchar\ufffe\uffff del\u007f c1\u0085 astral \u{1F600} end",
    method: "POST\u0001\u0008",
    network: "net\u0002\ufffework",
  },
  {
    resource: "https://hostile.example/plain?a=1&b=2",
    description: "Only an ampersand & a <b>bold</b> tag and ]]]]>>",
    method: "POST",
    network: "eip155:8453",
  },
];

/** SQLite stores a NUL; PostgreSQL refuses it in text, so no PostgreSQL row can hold one. */
const NUL_ROW = {
  resource: "https://hostile.example/nul\u0000path",
  description: "nul\u0000 inside the description",
  method: "GET\u0000",
  network: "n\u0000",
};

const ATOM_ROUTES = ["/feed.atom", "/atom.xml"];
const RSS_ROUTES = ["/feed.rss", "/rss.xml", "/listings/rss", "/catalog.rss", "/feed.xml"];

describe.each(databaseKinds)("Atom and RSS with hostile listings on $kind", (kind) => {
  let market: CatalogServer;
  const rows: Listing[] = [];

  beforeAll(async () => {
    market = await startCatalogServer(kind);
    // The store's type admits only GET and POST, but the column is text: a row written by hand or by
    // an older version can hold anything, and the feeds must survive it.
    for (const row of [...HOSTILE_ROWS, ...(kind.kind === "sqlite" ? [NUL_ROW] : [])])
      rows.push(await market.list(row as unknown as Partial<ListingInput>));
  });
  afterAll(async () => {
    await market?.close();
  });

  const expectedTitle = (row: Listing) => carried(`${row.method} ${row.resource} — ${row.priceUsdc} USDC`).trim();
  const expectedSummary = (row: Listing) =>
    carried(
      `${row.description} (${row.priceUsdc} USDC per call, paid to ${row.sellerPayTo} on ${row.network}; endpoint ${row.resource})`,
    ).trim();
  /** Items link to the listing's page on this service; the resource is named in the title and summary. */
  const expectedLink = (row: Listing) => `${market.server.contexts.listings.config.publicBaseUrl}/listing/${row.id}`;

  it("stored the hostile values as given", () => {
    expect(rows[0]!.resource).toBe(HOSTILE_ROWS[0]!.resource);
    expect(rows[0]!.description).toBe(HOSTILE_ROWS[0]!.description);
    expect(rows[1]!.method).toBe(HOSTILE_ROWS[1]!.method);
  });

  it.each(ATOM_ROUTES)("%s is well-formed Atom that reads back every field", async (route) => {
    const response = await market.server.fetch(route);
    expect(response.status).toBe(200);
    const xml = await response.text();
    const document = parseStrictXml(xml);
    expect(document.name).toBe("feed");
    const entries = document.children.filter((element) => element.name === "entry");
    expect(entries).toHaveLength(rows.length);

    const feed = parseFeed(xml);
    for (const row of rows) {
      const entry = entries.find((candidate) => child(candidate, "id")?.text === `urn:uuid:${row.id}`)!;
      expect(entry, `entry of ${row.id}`).toBeDefined();
      expect(child(entry, "link")!.attributes.href).toBe(expectedLink(row));
      // type="html": the seller's markup is escaped text, never live HTML in a reader.
      expect(child(entry, "summary")!.attributes.type).toBe("html");
      expect(child(entry, "summary")!.text).not.toMatch(/<script|<b>/);

      const item = feed.items.find((candidate) => candidate.id === `urn:uuid:${row.id}`)!;
      expect(item.title).toBe(expectedTitle(row));
      expect(item.description).toBe(expectedSummary(row));
      expect(item.url).toBe(expectedLink(row));
    }
  });

  it.each(RSS_ROUTES)("%s is well-formed RSS that reads back every field", async (route) => {
    const response = await market.server.fetch(route);
    expect(response.status).toBe(200);
    const xml = await response.text();
    const document = parseStrictXml(xml);
    expect(document.name).toBe("rss");
    const items = child(document, "channel")!.children.filter((element) => element.name === "item");
    expect(items).toHaveLength(rows.length);

    const feed = parseFeed(xml);
    for (const row of rows) {
      const element = items.find((candidate) => child(candidate, "guid")?.text === `urn:uuid:${row.id}`)!;
      expect(element, `item of ${row.id}`).toBeDefined();
      expect(child(element, "link")!.text).toBe(expectedLink(row));
      expect(child(element, "description")!.text).not.toMatch(/<script|<b>/);

      const item = feed.items.find((candidate) => candidate.id === `urn:uuid:${row.id}`)!;
      expect(item.title).toBe(expectedTitle(row));
      expect(item.description).toBe(expectedSummary(row));
      expect(item.url).toBe(expectedLink(row));
    }
  });

  it("carries the exact stored text of the XML-legal rows, without substitution", async () => {
    const feed = parseFeed(await (await market.server.fetch("/feed.atom")).text());
    const first = feed.items.find((item) => item.id === `urn:uuid:${rows[0]!.id}`)!;
    expect(first.title).toBe(`${HOSTILE_ROWS[0]!.method} ${HOSTILE_ROWS[0]!.resource} — 0.03 USDC`);
    expect(first.description).toContain(HOSTILE_ROWS[0]!.description);
  });
});
