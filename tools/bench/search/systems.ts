// The search systems the held-out benchmark (heldout.ts) compares over the same listings and questions:
// the engine as the service runs it (and its single modes), and two outside baselines: the model
// alone (cosine of the question's and the listing's vectors) and MiniSearch (fuzzy + prefix BM25).
// Each answers a question with listing ids, best first, at most `limit`; an empty answer is "nothing".
import MiniSearch from "minisearch";
import { SearchEngine } from "../../../src/search/engine.js";
import { loadCodebook, loadQueryEncoder } from "../../../src/search/query-encoder.js";
import { embeddingText } from "../../../src/search/service.js";
import type { SearchDocument, SearchMode } from "../../../src/search/types.js";

export interface SearchSystem {
  name: string;
  search(question: string, limit: number): string[];
}

/** What the model embeds for a listing: the service's own text (its name and description). */
export const listingEmbeddingText = (listing: SearchDocument) => embeddingText(listing);
/** What the model embeds for a question (the engine's normalizeQuery: the key its remembered vectors go by). */
export const questionEmbeddingText = (question: string) =>
  question.normalize("NFKC").toLowerCase().trim().replace(/\s+/g, " ").slice(0, 300);

export interface EngineInputs {
  listings: SearchDocument[];
  /** The model's vector per listing, in the same order. */
  listingVectors: Float32Array[];
  /** The model's vector per question text; absent: the engine's query encoder answers (a question asked for the first time). */
  questionVectors?: Map<string, Float32Array> | undefined;
}

function loadedEngine(inputs: EngineInputs): SearchEngine {
  // No CPU budget: quality is measured with the semantic side always answering.
  const engine = new SearchEngine({
    encoder: loadQueryEncoder(),
    codebook: loadCodebook(),
    semanticBudgetMs: Infinity,
  });
  engine.reserve(inputs.listings.length);
  inputs.listings.forEach((listing, i) => engine.upsert(listing, inputs.listingVectors[i]));
  engine.markReady();
  // The service checks look-alikes off the request path after loading (SearchService.start).
  engine.checkLookalikes(Infinity);
  return engine;
}

/**
 * The engine as the service asks it: every listing with its model vector, and for each question the
 * model's query vector handed over first (rememberQueryVector) when `questionVectors` is given.
 */
export function engineSystem(name: string, inputs: EngineInputs, mode: SearchMode = "hybrid"): SearchSystem {
  const engine = loadedEngine(inputs);
  return {
    name,
    search(question, limit) {
      const vector = inputs.questionVectors?.get(question);
      if (vector) engine.rememberQueryVector(question, vector);
      return engine.search(question, { mode, limit }).hits.map((hit) => hit.id);
    },
  };
}

/** Default search: the engine's hybrid mode with the model's query vector. */
export const defaultSystem = (inputs: EngineInputs): SearchSystem => engineSystem("default (hybrid)", inputs, "hybrid");

const dot = (a: Float32Array, b: Float32Array) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
};
const norm = (a: Float32Array) => Math.sqrt(dot(a, a)) || 1;

/** Baseline: the model alone, plain cosine of question and listing vectors; always answers. */
export function modelAloneSystem(inputs: Required<EngineInputs>): SearchSystem {
  const norms = inputs.listingVectors.map(norm);
  return {
    name: "baseline: model alone (cosine)",
    search(question, limit) {
      const asked = inputs.questionVectors.get(question);
      if (!asked) throw new Error(`no model vector for the question "${question}"`);
      const askedNorm = norm(asked);
      return inputs.listings
        .map((listing, i) => ({
          id: listing.id,
          score: dot(asked, inputs.listingVectors[i]!) / (askedNorm * norms[i]!),
        }))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit)
        .map((hit) => hit.id);
    },
  };
}

/** Baseline: an off-the-shelf lexical library, MiniSearch over name, description and tags, fuzzy and prefix matching. */
export function miniSearchSystem(listings: SearchDocument[]): SearchSystem {
  const index = new MiniSearch<{ id: string; serviceName: string; description: string; tags: string }>({
    fields: ["serviceName", "description", "tags"],
    searchOptions: { fuzzy: 0.2, prefix: true },
  });
  index.addAll(
    listings.map((listing) => ({
      id: listing.id,
      serviceName: listing.serviceName ?? "",
      description: listing.description,
      tags: listing.tags.join(" "),
    })),
  );
  return {
    name: "baseline: MiniSearch (fuzzy+prefix)",
    search: (question, limit) =>
      index
        .search(question)
        .slice(0, limit)
        .map((hit) => String(hit.id)),
  };
}
