// A search reply's JSON is written with its item list once (searchJson) and must be exactly what
// JSON.stringify writes for the document: same keys, same order, same escaping.
import { describe, expect, it } from "vitest";
import { searchJson, type DiscoveryDocument } from "../../src/documents/discovery.js";

const item = (n: number) => ({
  x402Version: 2,
  type: "http",
  resource: `https://api.example.com/v1/${n}?q="quoted"&x=\u2028`,
  description: `Weather "forecast" ${n}\nwith a line break and \\ a backslash`,
  accepts: [{ scheme: "exact", network: "eip155:8453", amount: String(10_000 + n), extra: { name: "USD Coin" } }],
  metadata: {
    listingId: `id-${n}`,
    rankReasons: { textMatch: { terms: ["weather"], score: 1.5, rank: n }, trust: { factor: 1.1 } },
    lookalike: false,
  },
});

function document(items: unknown[], extra: Record<string, unknown> = {}): DiscoveryDocument {
  return {
    x402Version: 2,
    role: "marketplace",
    name: "x402 agent marketplace",
    note: "Matches description, resource URL, sellerPayTo, service name and tags.",
    listingFee: { usdc: "0.10" },
    links: [{ rel: "search", href: "https://market.example.com/discovery/search" }],
    seedInventoryNote: "seed",
    query: 'weather "now"',
    ...extra,
    resources: items,
    items,
    pagination: { limit: 20, offset: 0, total: items.length, cursor: null, nextCursor: null },
  } as unknown as DiscoveryDocument;
}

describe("searchJson", () => {
  it.each([
    [
      "a full page",
      document(
        Array.from({ length: 20 }, (_, n) => item(n)),
        { searchMode: "hybrid" },
      ),
    ],
    ["an empty answer, lexical, and why", document([], { searchMode: "lexical", searchModeReason: "semantic-off" })],
    ["no text", { ...document([item(1)]), query: null, searchMode: undefined } as unknown as DiscoveryDocument],
  ])("writes %s exactly as JSON.stringify does", (_name, doc) => {
    const text = searchJson(doc);
    expect(text).toBe(JSON.stringify(doc));
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it("writes the document as it is when its two lists differ", () => {
    const doc = { ...document([item(1)]), resources: [item(2)] } as unknown as DiscoveryDocument;
    expect(searchJson(doc)).toBe(JSON.stringify(doc));
  });
});
