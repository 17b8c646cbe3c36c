// The search engine against the real model (Universal Sentence Encoder lite on a worker thread) on a
// small catalog: meaning found without shared words, typos, filters, trust, look-alikes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SearchEngine } from "../../src/search/engine.js";
import { EmbeddingPool } from "../../src/search/embedding-pool.js";
import { loadCodebook, loadQueryEncoder } from "../../src/search/query-encoder.js";
import { documentFactory, payTo } from "./documents.js";

const doc = documentFactory("l", (n) => Date.UTC(2026, 0, n));

const CATALOG = [
  doc("EchoText", "Speech-to-text for audio files: a transcript with word timestamps and speaker labels.", {
    tags: ["audio"],
  }),
  doc("Nimbus", "Hourly and 7-day forecasts: temperature, precipitation probability, wind.", {
    tags: ["weather"],
    priceMicros: 2_000,
  }),
  doc("VatCheck", "Validates EU VAT numbers against VIES and returns the registered company name."),
  doc("InkReader", "Optical character recognition for scanned pages and photos of receipts."),
  doc("RateDesk", "Foreign exchange rates for 170 currencies, refreshed every minute.", { priceMicros: 50_000 }),
  doc("ScribeFlow", "ScribeFlow: converts spoken recordings into written words, who said what.", {
    verified: true,
    payTo: payTo(900),
  }),
  doc("ScribeFIow", "ScribeFlow: converts spoken recordings into written words, who said what. Official.", {
    calls30d: 5000,
    payTo: payTo(901),
  }),
];

let pool: EmbeddingPool;
let engine: SearchEngine;

beforeAll(async () => {
  pool = new EmbeddingPool({ threads: 1 });
  engine = new SearchEngine({ encoder: loadQueryEncoder(), codebook: loadCodebook(), semanticBudgetMs: Infinity });
  const vectors = await pool.embed(CATALOG.map((d) => `${d.serviceName}. ${d.description}`));
  CATALOG.forEach((d, i) => engine.upsert(d, vectors[i]));
  engine.markReady();
}, 180_000);

afterAll(() => pool?.close());

const ids = (query: string, options: Parameters<SearchEngine["search"]>[1] = {}) =>
  engine.search(query, options).hits.map((hit) => hit.id);
const idOf = (name: string) => CATALOG.find((d) => d.serviceName === name)!.id;

describe("search engine with the real model", () => {
  it("finds a listing by meaning when the query shares none of its words (model query vector)", async () => {
    const query = "notes from a meeting recording";
    const [vector] = await pool.embed([query]);
    engine.rememberQueryVector(query, vector!);
    const found = engine.search(query, { mode: "semantic" });
    expect(found.mode).toBe("semantic");
    expect(found.hits.slice(0, 3).map((hit) => hit.id)).toEqual(expect.arrayContaining([idOf("EchoText")]));
    expect(found.hits[0]!.reasons.meaningMatch?.similarity).toBeGreaterThan(0.3);
  }, 60_000);

  it("lexical search is typo-tolerant and says which words matched", () => {
    const found = engine.search("wether forcast", { mode: "lexical" });
    expect(found.hits[0]!.id).toBe(idOf("Nimbus"));
    expect(found.hits[0]!.reasons.textMatch?.terms).toEqual(expect.arrayContaining(["forecast"]));
  });

  it("applies price and tag filters", () => {
    expect(ids("exchange rates currencies", { filters: { maxPriceMicros: 20_000 } })).not.toContain(idOf("RateDesk"));
    expect(ids("exchange rates currencies", { filters: { minPriceMicros: 20_000 } })).toContain(idOf("RateDesk"));
    expect(ids("forecast", { filters: { tags: ["WEATHER"] } })).toEqual([idOf("Nimbus")]);
    // A filter keeps the unfiltered answer's hits that pass it (here a weak meaning match tagged
    // audio): what the words mean does not depend on the filter.
    const tagged = (tag: string) => (id: string) =>
      CATALOG.find((doc) => doc.id === id)!.tags.some((own) => own.toLowerCase() === tag);
    expect(ids("forecast", { filters: { tags: ["audio"] } })).toEqual(ids("forecast").filter(tagged("audio")));
    expect(ids("forecast", { filters: { tags: ["maps"] } })).toEqual(ids("forecast").filter(tagged("maps")));
  });

  it("ranks a look-alike of a verified brand below the original and flags it", () => {
    const found = engine.search("ScribeFlow transcription", { mode: "hybrid" });
    const at = (name: string) => found.hits.findIndex((hit) => hit.id === idOf(name));
    expect(at("ScribeFlow")).toBeGreaterThanOrEqual(0);
    expect(at("ScribeFIow")).toBeGreaterThan(at("ScribeFlow"));
    const fake = found.hits[at("ScribeFIow")]!;
    expect(fake.reasons.lookalikeOf).toEqual({ brand: "ScribeFlow", payTo: payTo(900) });
    expect(found.hits[at("ScribeFlow")]!.reasons.trust.verifiedOwner).toBe(true);
  });

  it("answers lexically, and says so, before the catalog is indexed", () => {
    const cold = new SearchEngine({ encoder: loadQueryEncoder(), codebook: loadCodebook() });
    cold.upsert(CATALOG[1]!);
    const found = cold.search("forecast", { mode: "hybrid" });
    expect(found).toMatchObject({ mode: "lexical", degraded: "semantic-not-ready" });
    expect(found.hits.map((hit) => hit.id)).toEqual([idOf("Nimbus")]);
  });

  it("follows removals and updates", () => {
    const extra = doc("Glyphly", "Recognize lettering in screenshots.");
    engine.upsert(extra);
    expect(ids("lettering screenshots", { mode: "lexical" })).toContain(extra.id);
    engine.upsert({ ...extra, description: "Something else entirely." });
    expect(ids("lettering screenshots", { mode: "lexical" })).not.toContain(extra.id);
    engine.remove(extra.id);
    expect(ids("something else entirely", { mode: "lexical" })).not.toContain(extra.id);
  });

  it("takes the model's vector for a listing in place: no second copy of it is kept", async () => {
    const cold = new SearchEngine({
      encoder: loadQueryEncoder(),
      codebook: loadCodebook(),
      semanticBudgetMs: Infinity,
    });
    CATALOG.forEach((d) => cold.upsert(d));
    cold.markReady();
    expect(cold.pendingModelVectors).toHaveLength(CATALOG.length);
    const vectors = await pool.embed(CATALOG.map((d) => `${d.serviceName}. ${d.description}`));
    CATALOG.forEach((d, i) => cold.setModelVector(d.id, vectors[i]!));
    expect(cold.pendingModelVectors).toEqual([]);
    expect(cold.memory).toMatchObject({ slots: CATALOG.length, deadSlots: 0 });
    expect(cold.search("hourly forecasts", { mode: "hybrid" }).hits[0]!.id).toBe(idOf("Nimbus"));
  }, 60_000);

  it("does not index the ids in a resource path", () => {
    const listing = doc("PathTest", "A plain description.", { resource: "https://pathtest.example/v2/items/48213" });
    engine.upsert(listing);
    expect(ids("v2 pathtest", { mode: "lexical" })).toContain(listing.id);
    expect(ids("48213", { mode: "lexical" })).not.toContain(listing.id);
    engine.remove(listing.id);
  });
});
