// The search engine the catalog's reads ask, on its own thread (engine-worker.ts): both sides in memory,
// each listing a side finds scored on both, combined and ranked here within a few milliseconds of CPU.
// The view's filters (price, tags, trust, source, seed rows, extension, expiry) are tests of a slot
// that both sides apply while they pick candidates, never after. relevance.ts says how the score is made,
// answer.ts how the scored candidates become the answer.
import { LRUCache } from "lru-cache";
import { BrandRegistry, type BrandClaim } from "./brands.js";
import { LexicalIndex, type ExpandedQuery } from "./lexical-index.js";
import type { QueryEncoder } from "./query-encoder.js";
import { ListingTable, stuffed } from "./listing-table.js";
import { calibrated, meaningScore, relevanceOf, textScore, textTrust, type QueryShape } from "./relevance.js";
import { rankedAnswer, scoredHit, type ScoredHit } from "./answer.js";
import { isTerse, listingText, normalizeQuery, words } from "./text.js";
import type { SearchDocument, SearchFilters, SearchMode, SearchOutcome } from "./types.js";
import { SCAN_BUDGET, VectorIndex } from "./vector-index.js";
import { quantize, type VectorRows } from "./vector-file.js";

/** Slots reserved past the catalog's size, for the listings that come while it loads and after. */
const RESERVE_HEADROOM = 1024;
/** Candidates each side hands to the scoring. */
export const CANDIDATES = 80;
/** Milliseconds per second the semantic side may spend before it scans less (the engine's thread keeps the rest for the lexical side and the catalog's changes). */
export const SEMANTIC_CPU_BUDGET_MS = 300;
/**
 * When the question's vector is the query encoder's stand-in (the model busy or not loaded), it is
 * moved toward the model's vectors of this many best text matches (weights 1, 1/2, 1/3 beside the
 * query's 1): pseudo-relevance feedback. The model's own vector for a question needs none.
 */
export const FEEDBACK_MATCHES = 3;

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
  private readonly table = new ListingTable();
  private readonly brands = new BrandRegistry();
  /** The model's query vectors as int8 with their scale (about 600 bytes each, against 2 KB as float32: 7 MB less when full). */
  private readonly queryVectors = new LRUCache<string, { values: Int8Array; scale: number }>({ max: 5000 });
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
    return this.table.size;
  }

  /** Listings whose vector is still the stand-in (the backfill's work left). */
  get pendingModelVectors(): string[] {
    const pending: string[] = [];
    for (let slot = 0; slot < this.table.slots; slot++)
      if (this.table.isLive(slot) && !this.table.hasModelVector(slot)) pending.push(this.table.id(slot));
    return pending;
  }

  get memory(): { vectorBytes: number; slots: number; deadSlots: number } {
    return { vectorBytes: this.vectors.bytes, slots: this.table.slots, deadSlots: this.table.deadSlots };
  }

  /**
   * Room for this many listings, made before a load: the vectors are then allocated once at their
   * size, where growing to it left a copy of each size behind and the trim at markReady one more
   * (26 MB at once at 100k listings, the top of the load's peak).
   */
  reserve(listings: number): void {
    this.vectors.reserve(listings + RESERVE_HEADROOM);
    this.table.reserve(listings + RESERVE_HEADROOM);
  }

  /** The semantic side answers once the catalog has been indexed (markReady) and a query encoder loaded. */
  markReady(): void {
    this.ready = true;
    // The catalog is in: the vectors' spare room from growing goes back (up to a quarter of them).
    this.vectors.trim(this.table.slots, RESERVE_HEADROOM);
  }

  get semanticReady(): boolean {
    return this.ready && this.options.encoder !== null;
  }

  /** Adds or replaces a listing. Without the model's vector it takes the query encoder's for now. */
  upsert(doc: SearchDocument, modelVector?: Float32Array): void {
    this.remove(doc.id);
    this.lookalikesChecked = false;
    const vector = modelVector ?? this.options.encoder?.encode(listingText(doc)) ?? null;
    const descriptionWords = words(doc.description);
    const slot = this.table.add(doc, modelVector !== undefined, stuffed(descriptionWords), isTerse(descriptionWords));
    this.lexical.add(slot, {
      name: doc.serviceName ?? "",
      tags: doc.tags,
      description: doc.description,
      resource: doc.resource,
      declared: doc.declared ?? "",
    });
    if (vector) this.vectors.add(slot, vector);
    this.claimBrand(slot);
  }

  has(id: string): boolean {
    return this.table.slot(id) !== undefined;
  }

  /** What a listing is embedded from (listingText). */
  text(id: string): { serviceName: string | null; description: string; declared?: string | undefined } | undefined {
    const slot = this.table.slot(id);
    if (slot === undefined) return undefined;
    const declared = this.table.declaredOfTerse(slot);
    return {
      serviceName: this.table.name(slot),
      description: this.table.description(slot),
      ...(declared ? { declared } : {}),
    };
  }

  /** Whether a new version of a listing changes its indexed text (else updateFacts is enough). */
  textChanged(doc: SearchDocument): boolean {
    const slot = this.table.slot(doc.id);
    return slot === undefined || this.table.textChanged(slot, doc);
  }

  /** A listing's ranking facts changed (health, ownership, usage, price), its text did not. */
  updateFacts(doc: SearchDocument): void {
    const slot = this.table.slot(doc.id);
    if (slot === undefined) return;
    this.lookalikesChecked = false;
    this.withdrawBrand(slot);
    this.table.setFacts(slot, doc);
    this.claimBrand(slot);
  }

  /** The model's vector for a listing already indexed (from the embedding worker or the stored table). */
  setModelVector(id: string, vector: Float32Array): void {
    const slot = this.table.slot(id);
    if (slot === undefined) return;
    // In place: the slot's text and terms are unchanged.
    this.vectors.add(slot, vector);
    this.table.markModelVector(slot);
  }

  remove(id: string): void {
    const slot = this.table.slot(id);
    if (slot === undefined) return;
    this.lookalikesChecked = false;
    this.withdrawBrand(slot);
    this.table.kill(slot);
  }

  /** A verified listing's name counts as its seller's brand, from when and where it was listed. */
  private claimBrand(slot: number): void {
    const name = this.table.name(slot);
    if (this.table.verified(slot) && name)
      this.brands.claim(name, this.table.payTo(slot), 1, this.table.listedAt(slot), this.table.originKey(slot));
  }

  /** A verified listing's brand claim is taken back (it changes or goes). */
  private withdrawBrand(slot: number): void {
    const name = this.table.name(slot);
    if (this.table.verified(slot) && name) this.brands.claim(name, this.table.payTo(slot), -1);
  }

  /** The established brand a listing copies (verified or not), kept per slot until the registry changes. */
  private claimOf(slot: number): BrandClaim | undefined {
    const known = this.table.claimAt(slot, this.brands.version);
    if (known) return known.claim;
    const table = this.table;
    const claim = this.brands.copiedBy(
      table.name(slot),
      table.description(slot),
      table.payTo(slot),
      table.originKey(slot),
      table.listedAt(slot),
    );
    this.table.setClaim(slot, claim, this.brands.version);
    return claim;
  }

  /**
   * Computes the look-alike check of listings not checked since the brand set last changed, for at
   * most `budgetMs` of CPU: off the request path (the service's start and follow job), so a search
   * finds it done. True when every listing is checked; after that, at once until the catalog changes.
   */
  checkLookalikes(budgetMs: number): boolean {
    if (this.lookalikesChecked) return true;
    const started = performance.now();
    for (let checked = 0; checked < this.table.slots; checked++) {
      if (this.claimCursor >= this.table.slots) this.claimCursor = 0;
      const slot = this.claimCursor++;
      if (this.table.isLive(slot)) this.claimOf(slot);
      if ((checked & 255) === 255 && performance.now() - started > budgetMs) return false;
    }
    this.lookalikesChecked = true;
    return true;
  }

  rememberQueryVector(query: string, vector: Float32Array): void {
    const values = new Int8Array(vector.length);
    this.queryVectors.set(normalizeQuery(query), { values, scale: quantize(vector, values, 0) });
  }

  private accepts(filters: SearchFilters): (slot: number) => boolean {
    const tags = filters.tags?.map((tag) => tag.toLowerCase());
    const { minPriceMicros, maxPriceMicros } = filters;
    const table = this.table;
    const trust = filters.trust && table.trustTest(filters.trust);
    const view = table.viewTest(filters);
    return (slot) =>
      table.isLive(slot) &&
      view(slot) &&
      (minPriceMicros === undefined || table.priceMicros(slot) >= minPriceMicros) &&
      (maxPriceMicros === undefined || table.priceMicros(slot) <= maxPriceMicros) &&
      (!tags || table.hasTags(slot, tags)) &&
      (!trust || trust(slot));
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

  /** The question's shape, read from its terms as the catalog holds them and the brands it names. */
  private shapeOf(query: string, expanded: ExpandedQuery): QueryShape {
    const known = [...expanded.asked.keys()].filter((word) =>
      expanded.terms.some((term) => term.asked === word && term.weight === 1),
    ).length;
    return { asked: expanded.asked.size, known, namesBrand: this.brands.named(query) };
  }

  /**
   * Ranks the listings the filters admit for a question. `vector`: the model's vector of the question
   * (remembered for later asks of it); without one, a remembered one or the query encoder's.
   */
  search(
    query: string,
    options: { mode?: SearchMode; limit?: number; filters?: SearchFilters; vector?: Float32Array | undefined } = {},
  ): SearchOutcome {
    const asked = options.mode ?? "hybrid";
    const limit = options.limit ?? 20;
    let mode = asked;
    let degraded: SearchOutcome["degraded"];
    // Past the semantic side's CPU budget in this second, it still answers, scanning an eighth of the
    // listings (the nearest cells): dropping it emptied the answers to questions that share no word
    // with their listing (bench:search:rate, 150 distinct questions a second).
    let scanBudget: number | undefined;
    if (asked !== "lexical" && !this.semanticReady) [mode, degraded] = ["lexical", "semantic-not-ready"];
    else if (asked !== "lexical" && !this.semanticHasBudget())
      [scanBudget, degraded] = [Math.ceil(SCAN_BUDGET / 8), "semantic-saturated"];
    if (options.vector) this.rememberQueryVector(query, options.vector);

    const expanded = this.lexical.expand(query);
    const shape = this.shapeOf(query, expanded);
    const trustInText = textTrust(shape);
    // Letters no dictionary holds (neither the catalog's words nor the model's): the model would still
    // place them somewhere near everything, so only the text side may answer.
    const gibberish =
      mode !== "lexical" &&
      shape.known === 0 &&
      this.options.encoder !== null &&
      !words(query).some((word) => this.options.encoder!.knows(word));
    const sides = gibberish ? "lexical" : mode;
    const candidates = new Map<number, { textRank?: number; meaningRank?: number }>();
    const { vector: own, fromModel } =
      sides === "lexical" ? { vector: null, fromModel: false } : this.queryVector(query);
    // The stand-in vector borrows the model's sense of the topic from the best text matches (the
    // question's own, whatever the view's filters: a filter must not change what the words mean).
    const feedback =
      !fromModel && own
        ? { limit: this.options.feedbackMatches ?? FEEDBACK_MATCHES, accept: (slot: number) => this.table.isLive(slot) }
        : undefined;
    // Both sources asked: each picks its own candidates, so no number of indexed rows can take a
    // listed one's place (they rank after the paid listings of similar relevance, trust.indexed).
    const filters = options.filters ?? {};
    const pools =
      filters.source === undefined
        ? [this.accepts({ ...filters, source: "listed" }), this.accepts({ ...filters, source: "indexed" })]
        : [this.accepts(filters)];
    let alsoBest: number[] = [];
    for (const admits of pools) {
      const lexical =
        sides === "semantic" && !feedback
          ? { matches: [], alsoBest: [] }
          : this.lexical.search(expanded, CANDIDATES, admits, feedback);
      if (alsoBest.length === 0) alsoBest = lexical.alsoBest;
      if (sides !== "semantic")
        lexical.matches.forEach((match, rank) => candidates.set(match.doc, { textRank: rank + 1 }));
    }
    let queryValues: Float64Array | null = null;
    if (sides !== "lexical") {
      const started = performance.now();
      const vector = fromModel ? own : this.withFeedback(own, alsoBest);
      if (vector) {
        queryValues = Float64Array.from(vector);
        for (const admits of pools)
          this.vectors.search(vector, CANDIDATES, admits, scanBudget).forEach((match, rank) => {
            const found = candidates.get(match.slot);
            if (found) found.meaningRank = rank + 1;
            else candidates.set(match.slot, { meaningRank: rank + 1 });
          });
      }
      this.semanticSpent += performance.now() - started;
    }
    if (!fromModel && sides !== "lexical" && degraded === undefined)
      degraded = this.options.encoder ? "model-busy" : "model-not-loaded";

    const scored: ScoredHit[] = [];
    for (const [slot, { textRank, meaningRank }] of candidates) {
      const text = this.lexical.features(expanded, slot);
      const raw = queryValues ? this.vectors.similarity(slot, queryValues) : null;
      const similarity = raw === null ? null : calibrated(raw, fromModel, this.table.hasModelVector(slot));
      const stuffed = this.table.isStuffed(slot);
      const relevance = relevanceOf(
        meaningScore(similarity),
        textScore(text.coverage, text.normalized, stuffed),
        trustInText,
        sides,
      );
      scored.push(
        scoredHit(
          {
            id: this.table.id(slot),
            relevance,
            text,
            similarity,
            textRank,
            meaningRank,
            facts: this.table.trust(slot),
            claim: this.claimOf(slot),
            stuffed,
            payTo: this.table.payTo(slot),
            name: this.table.name(slot),
          },
          sides,
        ),
      );
    }
    return { ...rankedAnswer(scored, query, limit), mode, degraded };
  }
}
