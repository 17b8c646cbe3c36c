// The engine against sellers and sources that game it: keyword-stuffed indexed rows, a verified
// copycat of an established brand, one seller filling a page, and trust that would outrank a clearly
// better match. Real model vectors for the listings and the questions (Universal Sentence Encoder lite).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SearchEngine } from "../../src/search/engine.js";
import { EmbeddingPool } from "../../src/search/embedding-pool.js";
import { loadCodebook, loadQueryEncoder } from "../../src/search/query-encoder.js";
import { documentFactory, payTo } from "./documents.js";
import { declaredText } from "../../src/search/declared.js";
import { listingText } from "../../src/search/text.js";

const doc = documentFactory("a", (n) => Date.UTC(2026, 0, 1) + n);

const PAID = doc("Skyline Weather", "Hourly and 7-day weather forecast for any city: temperature, rain and wind.", {
  verified: true,
});
const ORIGINAL = doc("ScribeFlow", "Transcribes audio recordings into text with speaker labels.", {
  verified: true,
  payTo: payTo(900),
});
// Paid its own fee (so verified), later, same name, another seller and origin.
const COPY = doc("ScribeFlow", "Transcribes audio recordings into text with speaker labels. Official.", {
  verified: true,
  payTo: payTo(901),
  resource: "https://scribeflow-official.example/api",
  calls30d: 5000,
  listedAt: Date.UTC(2026, 5, 1),
});
// The original's own second listing at its own origin is no look-alike.
const SAME_ORIGIN = doc("ScribeFlow", "Transcribes phone calls into text.", {
  payTo: payTo(902),
  resource: "https://scribeflow.example/calls",
  verified: true,
  listedAt: Date.UTC(2026, 6, 1),
});
const BULK = Array.from({ length: 6 }, (_, i) =>
  doc(`Geo ${i}`, `Turns street addresses into latitude and longitude coordinates, variant ${i}.`, {
    payTo: payTo(700),
  }),
);
const OTHER_GEO = doc("Pinpoint", "Geocoding: converts a postal address to map coordinates.", { payTo: payTo(701) });
const STUFFED_COUNT = 10_000;
const stuffed = (i: number) =>
  doc(
    `Free Weather ${i}`,
    "weather forecast weather forecast weather forecast weather forecast weather forecast cheap weather forecast",
    {
      source: "indexed",
      health: "unknown",
    },
  );

let pool: EmbeddingPool;
let engine: SearchEngine;
let question: (text: string) => Promise<Float32Array>;

beforeAll(async () => {
  pool = new EmbeddingPool({ threads: 1 });
  engine = new SearchEngine({ encoder: loadQueryEncoder(), codebook: loadCodebook(), semanticBudgetMs: Infinity });
  const own = [PAID, ORIGINAL, COPY, SAME_ORIGIN, ...BULK, OTHER_GEO];
  const vectors = await pool.embed(own.map((d) => `${d.serviceName}. ${d.description}`));
  own.forEach((d, i) => engine.upsert(d, vectors[i]));
  const [stuffedVector] = await pool.embed([`${stuffed(0).serviceName}. ${stuffed(0).description}`]);
  for (let i = 0; i < STUFFED_COUNT; i++) engine.upsert(stuffed(i), stuffedVector);
  engine.markReady();
  engine.checkLookalikes(Infinity);
  question = async (text) => (await pool.embed([text.toLowerCase()]))[0]!;
}, 300_000);

afterAll(() => pool?.close());

describe("ranking against a gaming seller or source", () => {
  it(`keeps a paid listing first in its default (listed) search whatever ${STUFFED_COUNT} stuffed indexed rows say`, async () => {
    const text = "weather forecast";
    const found = engine.search(text, { filters: { source: "listed" }, vector: await question(text) });
    expect(found.hits[0]?.id).toBe(PAID.id);
    // Both sources: the paid listing still first, the stuffed rows marked and below it.
    const all = engine.search(text, { vector: await question(text) });
    expect(all.hits[0]!.id).toBe(PAID.id);
    const row = all.hits.find((hit) => hit.id !== PAID.id)!;
    expect(row.reasons).toMatchObject({ stuffing: true, trust: { indexed: true } });
  });

  it("flags a verified copycat of an established brand and ranks it below the original", async () => {
    const text = "ScribeFlow transcription";
    const found = engine.search(text, { vector: await question(text) });
    const at = (id: string) => found.hits.findIndex((hit) => hit.id === id);
    expect(at(ORIGINAL.id)).toBeGreaterThanOrEqual(0);
    expect(at(COPY.id)).toBeGreaterThan(at(ORIGINAL.id));
    expect(found.hits[at(COPY.id)]!.reasons.lookalikeOf).toEqual({ brand: "ScribeFlow", payTo: payTo(900) });
    // Served from the original's own origin: the owner's, not a look-alike.
    expect(found.hits[at(SAME_ORIGIN.id)]?.reasons.lookalikeOf).toBeUndefined();
  });

  it("shows at most three listings of one seller in the first ten unless the question names it", async () => {
    const text = "convert a street address to coordinates";
    const found = engine.search(text, { vector: await question(text) });
    const bulk = (id: string) => BULK.some((d) => d.id === id);
    // Three of the seller's listings and every other seller's; fewer than ten others match, so the
    // seller's fourth and later listings would land on the first page again: they are left out.
    expect(found.hits.slice(0, 10).filter((hit) => bulk(hit.id)).length).toBe(3);
    expect(found.hits.map((hit) => hit.id)).toContain(OTHER_GEO.id);
    // With ten other sellers' listings matching, the rest come after the first ten, marked.
    const others = Array.from({ length: 10 }, (_, i) =>
      doc(`Locator ${i}`, `Street address to latitude and longitude, service ${i}.`),
    );
    const vectors = await pool.embed(others.map((d) => listingText(d)));
    others.forEach((d, i) => engine.upsert(d, vectors[i]));
    const crowded = engine.search(text, { vector: await question(text) });
    expect(crowded.hits.slice(0, 10).filter((hit) => bulk(hit.id)).length).toBeLessThanOrEqual(3);
    const capped = crowded.hits.filter((hit) => hit.reasons.sellerCapped);
    expect(capped.length).toBeGreaterThan(0);
    expect(capped.every((hit) => bulk(hit.id) && crowded.hits.indexOf(hit) >= 10)).toBe(true);
    others.forEach((d) => engine.remove(d.id));
    // Naming the seller lifts the cap.
    const named = engine.search("Geo 4 address to coordinates", {
      vector: await question("Geo 4 address to coordinates"),
    });
    expect(named.hits.find((hit) => hit.id === BULK[4]!.id)?.reasons.sellerCapped).toBeUndefined();
  });

  it("lets trust break near ties only: an unhealthy clear match stays above a healthy, verified weak one", async () => {
    const sick = doc("RateDesk", "Foreign exchange rates between 170 currencies, refreshed every minute.", {
      health: "unhealthy",
    });
    const unrelated = doc("Popular Thing", "Sends transactional email with templates.", {
      verified: true,
      calls30d: 100_000,
    });
    const vectors = await pool.embed([sick, unrelated].map((d) => `${d.serviceName}. ${d.description}`));
    engine.upsert(sick, vectors[0]);
    engine.upsert(unrelated, vectors[1]);
    const text = "currency exchange rates";
    const found = engine.search(text, { vector: await question(text) });
    expect(found.hits[0]!.id).toBe(sick.id);
    expect(found.hits[0]!.reasons.trust.factor).toBeGreaterThanOrEqual(0.94);
    engine.remove(sick.id);
    engine.remove(unrelated.id);
  });

  it("answers nothing for a question nothing here serves, and offers the closest apart", async () => {
    const text = "knitting patterns for a winter scarf";
    const found = engine.search(text, { vector: await question(text) });
    expect(found.hits).toEqual([]);
    for (const miss of found.nearMisses) expect(miss.reasons.match).toBe("weak");
  });
});

describe("what sellers declare", () => {
  it("finds a listing described by its schema alone by what its fields mean", async () => {
    const declared = declaredText({
      properties: {
        iban: { type: "string", description: "International bank account number to check" },
        bic: { type: "string", description: "Bank identifier code" },
      },
    });
    const terse = doc("AcctCheck", "Checks one input.", { declared });
    const [vector] = await pool.embed([listingText(terse)]);
    engine.upsert(terse, vector);
    const text = "validate a bank account number";
    const found = engine.search(text, { vector: await question(text) });
    expect(found.hits.slice(0, 3).map((hit) => hit.id)).toContain(terse.id);
    expect(found.hits.find((hit) => hit.id === terse.id)!.reasons.textMatch?.terms).toEqual(
      expect.arrayContaining(["bank", "account"]),
    );
    engine.remove(terse.id);
  });
});
