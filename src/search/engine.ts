// The search engine the catalog's reads ask, on its own thread (engine-worker.ts): both sides in memory,
// fused and ranked here within a few milliseconds of CPU.
//
// score = relevance x trust x lookalike
//   relevance = sum over the sides that found the listing of 1 / (RRF_K + rank)   (reciprocal rank fusion);
//               in hybrid mode the meaning side's query vector is the query's own plus its 3 best text
//               matches' listing vectors (weights 1, 1/2, 1/3: pseudo-relevance feedback)
//   trust     = 1 + 0.15 healthy - 0.30 unhealthy + 0.10 verified owner + 0.10 min(1, log10(1 + calls30d) / 4)
//   lookalike = 0.5 when the listing copies another payTo's verified brand (and it is then placed below
//               that brand's listings in the same answer)
import { LRUCache } from "lru-cache";
import { BrandRegistry, type BrandClaim } from "./brands.js";
import { LexicalIndex } from "./lexical-index.js";
import type { QueryEncoder } from "./query-encoder.js";
import { passesTrust, type RankReasons, type SearchDocument, type SearchFilters, type SearchHit, type SearchMode, type SearchOutcome } from "./types.js";
import { VectorIndex } from "./vector-index.js";
import { quantize, type VectorRows } from "./vector-file.js";

export const RRF_K = 60;
/** Candidates each side hands to the fusion. */
export const CANDIDATES = 60;
/** A meaning match below this similarity is no match (queries with no good answer stay empty-ish). */
export const MIN_SIMILARITY = 0.3;
/** CPU milliseconds per second the semantic side may spend before answers go lexical (the engine's thread keeps the rest for the lexical side and the catalog's changes). */
export const SEMANTIC_CPU_BUDGET_MS = 300;
/**
 * Hybrid mode moves the query vector toward the vectors of this many best text matches (weights 1,
 * 1/2, 1/3 beside the query's 1): pseudo-relevance feedback. Listing vectors are the model's, so a
 * first ask (the query encoder's rough vector) still searches with the model's sense of the topic.
 */
export const FEEDBACK_MATCHES = 3;

/** What a slot keeps of a listing: the ranking and filter facts and the embedded text; the resource as a hash only. */
export type KeptDocument = Omit<SearchDocument, "resource" | "listedAt"> & { resourceKey: number };

interface Slot {
  id: string;
  doc: KeptDocument;
  /** Whether the vector is the model's (false: the query encoder's stand-in until the model's arrives). */
  modelVector: boolean;
  /** The brand it copies, as of brand registry version `claimVersion`. */
  claim: BrandClaim | undefined;
  claimVersion: number;
}

export function trustFactor(doc: Pick<SearchDocument, "health" | "verified" | "calls30d">): number {
  return (
    1 +
    (doc.health === "healthy" ? 0.15 : doc.health === "unhealthy" ? -0.3 : 0) +
    (doc.verified ? 0.1 : 0) +
    0.1 * Math.min(1, Math.log10(1 + doc.calls30d) / 4)
  );
}

export interface EngineOptions {
  encoder: QueryEncoder | null;
  codebook: VectorRows;
  /** CPU ms per second the semantic side may take (default SEMANTIC_CPU_BUDGET_MS). */
  semanticBudgetMs?: number | undefined;
  /** Best text matches whose vectors join the query's in hybrid mode (default FEEDBACK_MATCHES; 0: none). */
  feedbackMatches?: number | undefined;
}

export class SearchEngine {
  private readonly lexical = new LexicalIndex();
  private readonly vectors: VectorIndex;
  private readonly slots: Array<Slot | undefined> = [];
  private readonly slotOf = new Map<string, number>();
  /** 1 for a slot that is its listing's current one. */
  private alive = new Uint8Array(1024);
  private readonly brands = new BrandRegistry();
  private readonly sharedTags = new Map<string, string[]>();
  private readonly sharedPayTo = new Map<string, string>();
  /** The model's query vectors as int8 with their scale (about 600 bytes each, against 2 KB as float32: 7 MB less when full). */
  private readonly queryVectors = new LRUCache<string, { values: Int8Array; scale: number }>({ max: 5000 });
  private dead = 0;
  private claimCursor = 0;
  /** False after any change that can move a look-alike check, until a pass of checkLookalikes has covered every slot. */
  private lookalikesChecked = false;
  private semanticSpent = 0;
  private semanticWindow = 0;
  private ready = false;

  constructor(private readonly options: EngineOptions) {
    this.vectors = new VectorIndex(options.codebook);
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** Listings whose vector is still the stand-in (the backfill's work left). */
  get pendingModelVectors(): string[] {
    return [...this.slotOf.values()].flatMap((slot) => (this.slots[slot]!.modelVector ? [] : [this.slots[slot]!.id]));
  }

  get memory(): { vectorBytes: number; slots: number; deadSlots: number } {
    return { vectorBytes: this.vectors.bytes, slots: this.slots.length, deadSlots: this.dead };
  }

  /** The semantic side answers once the catalog has been indexed (markReady) and a query encoder loaded. */
  markReady(): void {
    this.ready = true;
    // The catalog is in: the vectors' spare room from growing goes back (up to a quarter of them).
    this.vectors.trim(this.slots.length);
  }

  get semanticReady(): boolean {
    return this.ready && this.options.encoder !== null;
  }

  /** Adds or replaces a listing. Without the model's vector it takes the query encoder's for now. */
  upsert(doc: SearchDocument, modelVector?: Float32Array): void {
    this.remove(doc.id);
    this.lookalikesChecked = false;
    const slot = this.slots.length;
    const vector = modelVector ?? this.options.encoder?.encode(`${doc.serviceName ?? ""}. ${doc.description}`) ?? null;
    this.slots.push({ id: doc.id, doc: this.kept(doc), modelVector: modelVector !== undefined, claim: undefined, claimVersion: -1 });
    if (slot >= this.alive.length) {
      const alive = new Uint8Array(this.alive.length * 2);
      alive.set(this.alive);
      this.alive = alive;
    }
    this.alive[slot] = 1;
    this.slotOf.set(doc.id, slot);
    this.lexical.add(slot, { name: doc.serviceName ?? "", tags: doc.tags, description: doc.description, resource: doc.resource });
    if (vector) this.vectors.add(slot, vector);
    if (doc.verified && doc.serviceName) this.brands.claim(doc.serviceName, doc.payTo);
  }

  /**
   * Tag lists and payTo strings are shared between the listings that have the same (a seller lists
   * many). An object literal with every field in one order: the spread of the document it was
   * (`{ ...facts }`) cost about 440 bytes a listing, this one about 100 (44 MB at 100k listings).
   */
  private kept(doc: SearchDocument): KeptDocument {
    const tagsKey = doc.tags.join("\n");
    let tags = this.sharedTags.get(tagsKey);
    if (!tags) this.sharedTags.set(tagsKey, (tags = Object.freeze([...doc.tags]) as string[]));
    let payTo = this.sharedPayTo.get(doc.payTo);
    if (!payTo) this.sharedPayTo.set(doc.payTo, (payTo = doc.payTo));
    return {
      id: doc.id,
      serviceName: doc.serviceName,
      description: doc.description,
      tags,
      payTo,
      priceMicros: doc.priceMicros,
      verified: doc.verified,
      health: doc.health,
      calls30d: doc.calls30d,
      resourceKey: hashText(doc.resource),
    };
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  document(id: string): KeptDocument | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.slots[slot]!.doc;
  }

  /** Whether a new version of a listing changes its indexed text (else updateFacts is enough). */
  textChanged(doc: SearchDocument): boolean {
    const slot = this.slotOf.get(doc.id);
    const old = slot === undefined ? undefined : this.slots[slot]!.doc;
    return (
      !old ||
      old.serviceName !== doc.serviceName ||
      old.description !== doc.description ||
      old.resourceKey !== hashText(doc.resource) ||
      old.tags.join("\n") !== doc.tags.join("\n")
    );
  }

  /** A listing's ranking facts changed (health, ownership, usage, price), its text did not. */
  updateFacts(doc: SearchDocument): void {
    const slot = this.slotOf.get(doc.id);
    if (slot === undefined) return;
    this.lookalikesChecked = false;
    const entry = this.slots[slot]!;
    if (entry.doc.verified && entry.doc.serviceName) this.brands.claim(entry.doc.serviceName, entry.doc.payTo, -1);
    entry.doc = this.kept(doc);
    entry.claimVersion = -1;
    if (doc.verified && doc.serviceName) this.brands.claim(doc.serviceName, doc.payTo);
  }

  /** The model's vector for a listing already indexed (from the embedding worker or the stored table). */
  setModelVector(id: string, vector: Float32Array): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    // In place: the slot's text and terms are unchanged.
    this.vectors.add(slot, vector);
    this.slots[slot]!.modelVector = true;
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.lookalikesChecked = false;
    const { doc } = this.slots[slot]!;
    if (doc.verified && doc.serviceName) this.brands.claim(doc.serviceName, doc.payTo, -1);
    this.slots[slot]!.id = "";
    this.alive[slot] = 0;
    this.slotOf.delete(id);
    this.dead++;
  }

  /** The verified brand a listing copies, kept per slot until the registry changes. */
  private claimOf(entry: Slot): BrandClaim | undefined {
    if (entry.doc.verified) return undefined;
    if (entry.claimVersion !== this.brands.version) {
      entry.claim = this.brands.copiedBy(entry.doc.serviceName, entry.doc.description, entry.doc.payTo);
      entry.claimVersion = this.brands.version;
    }
    return entry.claim;
  }

  /**
   * Computes the look-alike check of listings not checked since the brand set last changed, for at
   * most `budgetMs` of CPU: off the request path (the service's start and follow job), so a search
   * finds it done. True when every listing is checked; after that, at once until the catalog changes.
   */
  checkLookalikes(budgetMs: number): boolean {
    if (this.lookalikesChecked) return true;
    const started = performance.now();
    for (let checked = 0; checked < this.slots.length; checked++) {
      if (this.claimCursor >= this.slots.length) this.claimCursor = 0;
      const slot = this.claimCursor++;
      const entry = this.live(slot);
      if (entry) this.claimOf(entry);
      if ((checked & 255) === 255 && performance.now() - started > budgetMs) return false;
    }
    this.lookalikesChecked = true;
    return true;
  }

  rememberQueryVector(query: string, vector: Float32Array): void {
    const values = new Int8Array(vector.length);
    this.queryVectors.set(normalizeQuery(query), { values, scale: quantize(vector, values, 0) });
  }

  private live(slot: number): Slot | undefined {
    return this.alive[slot] === 1 ? this.slots[slot] : undefined;
  }

  private accepts(filters: SearchFilters): (slot: number) => boolean {
    const tags = filters.tags?.map((tag) => tag.toLowerCase());
    return (slot) => {
      const entry = this.live(slot);
      if (!entry) return false;
      const { doc } = entry;
      if (filters.minPriceMicros !== undefined && doc.priceMicros < filters.minPriceMicros) return false;
      if (filters.maxPriceMicros !== undefined && doc.priceMicros > filters.maxPriceMicros) return false;
      if (tags && !tags.every((tag) => doc.tags.some((own) => own.toLowerCase() === tag))) return false;
      return !filters.trust || passesTrust(filters.trust, doc);
    };
  }

  /** Whether the semantic side has CPU left in this second (the engine thread's budget). */
  private semanticHasBudget(): boolean {
    const second = Math.floor(performance.now() / 1000);
    if (second !== this.semanticWindow) [this.semanticWindow, this.semanticSpent] = [second, 0];
    return this.semanticSpent < (this.options.semanticBudgetMs ?? SEMANTIC_CPU_BUDGET_MS);
  }

  /** The query's vector: the model's when one was remembered for it (rememberQueryVector), else the encoder's. */
  queryVector(query: string): { vector: Float32Array | null; fromModel: boolean } {
    const key = normalizeQuery(query);
    const known = this.queryVectors.get(key);
    if (known) return { vector: Float32Array.from(known.values, (value) => value * known.scale), fromModel: true };
    return { vector: this.options.encoder?.encode(key) ?? null, fromModel: false };
  }

  /**
   * Pseudo-relevance feedback: the query vector moved toward the (model) vectors of the best text
   * matches, so listings that mean the same in other words come up too.
   */
  private withFeedback(vector: Float32Array | null, textMatches: number[]): Float32Array | null {
    const count = this.options.feedbackMatches ?? FEEDBACK_MATCHES;
    if (count === 0 || textMatches.length === 0) return vector;
    const out = vector ? Float32Array.from(vector) : new Float32Array(this.vectors.dimensions);
    textMatches.slice(0, count).forEach((slot, rank) => this.vectors.addVector(slot, 1 / (rank + 1), out));
    let norm = 0;
    for (const x of out) norm += x * x;
    if (norm === 0) return vector;
    norm = Math.sqrt(norm);
    for (let i = 0; i < out.length; i++) out[i]! /= norm;
    return out;
  }

  search(query: string, options: { mode?: SearchMode; limit?: number; filters?: SearchFilters } = {}): SearchOutcome {
    const asked = options.mode ?? "hybrid";
    const limit = options.limit ?? 20;
    const accept = this.accepts(options.filters ?? {});
    let mode = asked;
    let degraded: SearchOutcome["degraded"];
    if (asked !== "lexical" && !this.semanticReady) [mode, degraded] = ["lexical", "semantic-not-ready"];
    else if (asked !== "lexical" && !this.semanticHasBudget()) [mode, degraded] = ["lexical", "semantic-saturated"];

    const fused = new Map<number, { relevance: number; textMatch: RankReasons["textMatch"]; meaningMatch: RankReasons["meaningMatch"] }>();
    const entry = (slot: number) => {
      let found = fused.get(slot);
      if (!found) fused.set(slot, (found = { relevance: 0, textMatch: undefined, meaningMatch: undefined }));
      return found;
    };
    // The feedback's text matches are the query's own, not the filtered view's: a filter (a health,
    // a seller) must not change what the words mean, or a filtered answer drops meaning matches the
    // unfiltered one shows for the same listings.
    const feedback =
      mode === "hybrid" ? { limit: this.options.feedbackMatches ?? FEEDBACK_MATCHES, accept: (slot: number) => this.alive[slot] === 1 } : undefined;
    const { matches: lexicalMatches, alsoBest: feedbackMatches } =
      mode !== "semantic" ? this.lexical.search(query, CANDIDATES, accept, feedback) : { matches: [], alsoBest: [] };
    if (mode !== "semantic") {
      lexicalMatches.forEach((match, rank) => {
        const found = entry(match.doc);
        found.relevance += 1 / (RRF_K + rank + 1);
        found.textMatch = { terms: [...new Set(match.terms)], score: round(match.score), rank: rank + 1 };
      });
    }
    if (mode !== "lexical") {
      const started = performance.now();
      const { vector: asked } = this.queryVector(query);
      const vector = this.withFeedback(asked, feedbackMatches);
      if (vector) {
        this.vectors
          .search(vector, CANDIDATES, accept)
          .filter((match) => match.similarity >= MIN_SIMILARITY)
          .forEach((match, rank) => {
            const found = entry(match.slot);
            found.relevance += 1 / (RRF_K + rank + 1);
            found.meaningMatch = { similarity: round(match.similarity), rank: rank + 1 };
          });
      }
      this.semanticSpent += performance.now() - started;
    }
    const hits: Array<SearchHit & { claim?: BrandClaim | undefined; payTo: string }> = [];
    for (const [slot, { relevance, textMatch, meaningMatch }] of fused) {
      const { doc } = this.slots[slot]!;
      const claim = this.claimOf(this.slots[slot]!);
      const factor = trustFactor(doc);
      const score = relevance * factor * (claim ? 0.5 : 1);
      const trust = { healthy: doc.health === "healthy", verifiedOwner: doc.verified, calls30d: doc.calls30d, factor: round(factor) };
      hits.push({
        id: doc.id,
        score: round(score * 1000, 4),
        // Only the sides that found it, in this order: one literal each (a spread of them cost a fifth of this loop).
        reasons:
          textMatch && meaningMatch
            ? { textMatch, meaningMatch, trust, lookalikeOf: claim }
            : textMatch
              ? { textMatch, trust, lookalikeOf: claim }
              : { meaningMatch, trust, lookalikeOf: claim },
        claim,
        payTo: doc.payTo,
      });
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return {
      hits: placeLookalikesBelowOriginals(hits)
        .slice(0, limit)
        .map(({ id, score, reasons }) => ({ id, score, reasons })),
      mode,
      degraded,
    };
  }
}

/** Rounded for the answer (arithmetic, not toFixed: a string per number, hundreds per query). */
const round = (value: number, digits = 3) => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** FNV-1a, 32 bits: enough to notice that a listing's resource changed. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

export const normalizeQuery = (query: string) => query.normalize("NFKC").toLowerCase().trim().replace(/\s+/g, " ").slice(0, 300);

/**
 * Moves each look-alike just below the last listing of the brand it copies, when that brand is in the
 * answer. Most answers have no original of any look-alike in them: those are returned as they are,
 * without a search of the answer per look-alike (0.5 ms of a 10k-listing question's CPU).
 */
function placeLookalikesBelowOriginals<T extends { claim?: BrandClaim | undefined; payTo: string }>(hits: T[]): T[] {
  if (!hits.some((hit) => hit.claim)) return hits;
  const originalPayTos = new Set(hits.flatMap((hit) => (hit.claim ? [] : [hit.payTo.toLowerCase()])));
  const out = [...hits];
  for (const hit of hits) {
    if (!hit.claim) continue;
    const brandPayTo = hit.claim.payTo.toLowerCase();
    if (!originalPayTos.has(brandPayTo)) continue;
    const original = out.findLastIndex((other) => !other.claim && other.payTo.toLowerCase() === brandPayTo);
    const at = out.indexOf(hit);
    if (original > at) {
      out.splice(at, 1);
      out.splice(original, 0, hit);
    }
  }
  return out;
}
