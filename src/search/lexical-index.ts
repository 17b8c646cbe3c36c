// The lexical side: BM25 over a listing's service name, tags, description, resource path and the
// fields it declares, held in memory (one posting list per term). Typo-tolerant: a query term of five
// letters or more that the catalog does not hold is replaced by the catalog's terms that share most of
// its trigrams (at most NEAR_TERMS of them, weighted by that likeness), so "transcibe" finds
// "transcribe"; a shorter or unlike word is not turned into another word. Besides the BM25 score, a
// listing's `coverage` is the share of the question's weight (each asked word's idf) that it holds:
// an absolute measure the relevance floor can read, where BM25 is only comparable within one question.
import { terms, trigramsOf } from "./text.js";

const K1 = 1.2;
const B = 0.75;
/** A field's words count this many times (a name or tag says more than a sentence, a declared field name less). */
const FIELD_WEIGHT = { name: 6, tags: 4, description: 2, resource: 2, declared: 1 } as const;
const NEAR_TERMS = 2;
const MIN_LIKENESS = 0.4;
const MIN_NEAR_LENGTH = 5;

export interface LexicalFields {
  name: string;
  tags: string[];
  description: string;
  resource: string;
  declared: string;
}

export interface LexicalMatch {
  doc: number;
  score: number;
}

/** A query term as the catalog holds it: the word asked, or one of its near spellings with their likeness as weight. */
export interface QueryTerm {
  term: string;
  weight: number;
  asked: string;
}

/** A question's terms and each asked word's weight in the question (its idf; a word the catalog lacks weighs the most). */
export interface ExpandedQuery {
  terms: QueryTerm[];
  asked: Map<string, number>;
}

/** What the text side says of one listing for one question. */
export interface TextFeatures {
  /** BM25, and the same divided by the most the question's words can score (0-1, comparable across listings and filters). */
  score: number;
  normalized: number;
  /** The share of the question's weight the listing holds (near spellings by their likeness). */
  coverage: number;
  /** The catalog terms found. */
  terms: string[];
}

/**
 * The path words of a resource URL: its host's name part and path segments, without ids (a word
 * longer than 3 characters with a digit in it: "v2" stays, "48213" and "a9f3c1" go; each would be
 * a term of its own, 300 bytes apiece, that no buyer asks for).
 */
function resourceText(resource: string): string {
  let text = resource;
  try {
    const url = new URL(resource);
    text = `${url.hostname.split(".").slice(-3, -1).join(" ")} ${url.pathname}`;
  } catch {
    // Not a URL: its words as they are.
  }
  return text
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length <= 3 || !/\d/.test(word))
    .join(" ");
}

/** One term's documents: slots and their weighted term counts, appended as documents arrive. */
class Postings {
  docs = new Int32Array(4);
  tfs = new Uint8Array(4);
  length = 0;

  push(doc: number, tf: number): void {
    if (this.length === this.docs.length) {
      const docs = new Int32Array(this.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const tfs = new Uint8Array(this.length * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    this.docs[this.length] = doc;
    this.tfs[this.length++] = Math.min(tf, 255);
  }
}

/**
 * Documents are slots numbered by the caller, added once: a changed listing takes a new slot and the
 * caller's `live` test skips the old one (compact by rebuilding when many are dead). Postings are
 * typed arrays: about 5 bytes per (term, listing) pair.
 */
export class LexicalIndex {
  private readonly postings = new Map<string, Postings>();
  private lengths = new Uint16Array(1024);
  private documents = 0;
  private totalLength = 0;
  /** trigram -> terms holding it, for near spellings. */
  private readonly trigrams = new Map<string, string[]>();
  private scratch = new Float64Array(0);
  private touched = new Int32Array(0);
  private lengthFactors: { average: number; factors: Float64Array } | undefined;

  get size(): number {
    return this.documents;
  }

  add(doc: number, fields: LexicalFields): void {
    const counts = new Map<string, number>();
    const count = (text: string, weight: number) => {
      for (const term of terms(text)) counts.set(term, (counts.get(term) ?? 0) + weight);
    };
    count(fields.name, FIELD_WEIGHT.name);
    count(fields.tags.join(" "), FIELD_WEIGHT.tags);
    count(fields.description, FIELD_WEIGHT.description);
    count(resourceText(fields.resource), FIELD_WEIGHT.resource);
    count(fields.declared, FIELD_WEIGHT.declared);
    let length = 0;
    for (const [term, tf] of counts) {
      let list = this.postings.get(term);
      if (!list) {
        list = new Postings();
        this.postings.set(term, list);
        for (const gram of trigramsOf(term)) {
          const holders = this.trigrams.get(gram);
          if (holders) holders.push(term);
          else this.trigrams.set(gram, [term]);
        }
      }
      list.push(doc, tf);
      length += tf;
    }
    if (doc >= this.lengths.length) {
      const lengths = new Uint16Array(Math.max(doc + 1, this.lengths.length * 2));
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    this.lengths[doc] = Math.min(length, 65535);
    this.documents++;
    this.totalLength += length;
  }

  /** The catalog's terms nearest in spelling to one it does not hold, with their likeness (0-1). */
  private nearTerms(term: string): Array<[string, number]> {
    if (term.length < MIN_NEAR_LENGTH || /\d/.test(term)) return [];
    const grams = trigramsOf(term);
    const shared = new Map<string, number>();
    for (const gram of grams)
      for (const candidate of this.trigrams.get(gram) ?? []) shared.set(candidate, (shared.get(candidate) ?? 0) + 1);
    const scored: Array<[string, number]> = [];
    for (const [candidate, common] of shared) {
      const likeness = common / (grams.length + candidate.length - common);
      if (likeness >= MIN_LIKENESS) scored.push([candidate, likeness]);
    }
    return scored.sort((a, b) => b[1] - a[1]).slice(0, NEAR_TERMS);
  }

  private idf(documentsWithTerm: number): number {
    const n = Math.max(this.documents, 1);
    return Math.log(1 + (n - documentsWithTerm + 0.5) / (documentsWithTerm + 0.5));
  }

  /** The query's terms as the catalog holds them: each known term itself, each unknown one its near spellings. */
  expand(query: string): ExpandedQuery {
    const out: QueryTerm[] = [];
    const asked = new Map<string, number>();
    for (const word of new Set(terms(query))) {
      const list = this.postings.get(word);
      if (list) {
        out.push({ term: word, weight: 1, asked: word });
        asked.set(word, this.idf(list.length));
        continue;
      }
      const near = this.nearTerms(word);
      for (const [term, likeness] of near) out.push({ term, weight: likeness, asked: word });
      asked.set(word, near.length ? this.idf(this.postings.get(near[0]![0])!.length) : this.idf(1));
    }
    return { terms: out, asked };
  }

  /** BM25, coverage and the terms held, for one listing (a binary search per query term). */
  features(query: ExpandedQuery, doc: number): TextFeatures {
    const n = this.documents;
    const lengthFactor = this.lengthFactor(this.totalLength / Math.max(n, 1));
    let score = 0;
    let most = 0;
    const held = new Map<string, number>();
    const found: string[] = [];
    for (const { term, weight, asked } of query.terms) {
      const list = this.postings.get(term)!;
      const at = indexOf(list, doc);
      if (at < 0) continue;
      const tf = list.tfs[at]!;
      score += (weight * this.idf(list.length) * (K1 + 1) * tf) / (tf + lengthFactor[this.lengths[doc]!]!);
      // A near spelling as likely as not is the word meant: it covers the word nearly whole.
      held.set(asked, Math.max(held.get(asked) ?? 0, weight === 1 ? 1 : Math.min(0.9, weight + 0.35)));
      found.push(term);
    }
    let covered = 0;
    let total = 0;
    for (const [word, idf] of query.asked) {
      total += idf;
      covered += idf * (held.get(word) ?? 0);
      most += idf * (K1 + 1);
    }
    return {
      score,
      normalized: most > 0 ? Math.min(1, score / most) : 0,
      coverage: total > 0 ? covered / total : 0,
      terms: found,
    };
  }

  /**
   * BM25 scores of the documents `accept` admits holding a query term, best first; and in the same
   * pass the `also.limit` best documents `also.accept` admits whatever `accept` says: the best text
   * matches of the query itself, not of a filtered view.
   */
  search(
    query: ExpandedQuery,
    limit: number,
    accept: (doc: number) => boolean,
    also?: { limit: number; accept: (doc: number) => boolean },
  ): { matches: LexicalMatch[]; alsoBest: number[] } {
    const n = this.documents;
    if (n === 0 || limit <= 0) return { matches: [], alsoBest: [] };
    const averageLength = this.totalLength / n;
    // Scores accumulate in a dense array, the touched documents in another (no object per hit).
    if (this.scratch.length < this.lengths.length)
      [this.scratch, this.touched] = [new Float64Array(this.lengths.length), new Int32Array(this.lengths.length)];
    const scores = this.scratch;
    const touched = this.touched;
    let touchedCount = 0;
    const lengthFactor = this.lengthFactor(averageLength);
    for (const { term, weight } of query.terms) {
      const { docs, tfs, length } = this.postings.get(term)!;
      const scaled = weight * Math.log(1 + (n - length + 0.5) / (length + 0.5)) * (K1 + 1);
      for (let i = 0; i < length; i++) {
        const doc = docs[i]!;
        const tf = tfs[i]!;
        if (scores[doc] === 0) touched[touchedCount++] = doc;
        scores[doc]! += (scaled * tf) / (tf + lengthFactor[this.lengths[doc]!]!);
      }
    }
    const best = new TopScores(limit);
    const alsoBest = also && also.limit > 0 ? new TopScores(also.limit) : null;
    for (let k = 0; k < touchedCount; k++) {
      const doc = touched[k]!;
      const score = scores[doc]!;
      scores[doc] = 0;
      if (best.admits(score) && accept(doc)) best.add(doc, score);
      if (alsoBest?.admits(score) && also!.accept(doc)) alsoBest.add(doc, score);
    }
    return { matches: best.sorted(), alsoBest: alsoBest?.sorted().map(({ doc }) => doc) ?? [] };
  }

  /** K1 x (1 - B + B x length / average) per document length, cached while the average stays put. */
  private lengthFactor(averageLength: number): Float64Array {
    if (this.lengthFactors?.average !== averageLength) {
      const factors = new Float64Array(65536);
      for (let length = 0; length < factors.length; length++)
        factors[length] = K1 * (1 - B + (B * length) / averageLength);
      this.lengthFactors = { average: averageLength, factors };
    }
    return this.lengthFactors.factors;
  }
}

/** Where a document is in a term's list (lists are in slot order), or -1. */
function indexOf(list: Postings, doc: number): number {
  let low = 0;
  let high = list.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = list.docs[middle]!;
    if (at === doc) return middle;
    if (at < doc) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** The `size` best (doc, score) pairs seen, as a min-heap: a score below the worst kept is turned away in O(1). */
class TopScores {
  private readonly docs: Int32Array;
  private readonly scores: Float64Array;
  private count = 0;

  constructor(private readonly size: number) {
    this.docs = new Int32Array(size);
    this.scores = new Float64Array(size);
  }

  admits(score: number): boolean {
    return this.count < this.size || score > this.scores[0]!;
  }

  add(doc: number, score: number): void {
    let at: number;
    if (this.count < this.size) {
      at = this.count++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (this.scores[parent]! <= score) break;
        this.docs[at] = this.docs[parent]!;
        this.scores[at] = this.scores[parent]!;
        at = parent;
      }
    } else {
      at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= this.count) break;
        const child = left + 1 < this.count && this.scores[left + 1]! < this.scores[left]! ? left + 1 : left;
        if (this.scores[child]! >= score) break;
        this.docs[at] = this.docs[child]!;
        this.scores[at] = this.scores[child]!;
        at = child;
      }
    }
    this.docs[at] = doc;
    this.scores[at] = score;
  }

  sorted(): Array<{ doc: number; score: number }> {
    const out: Array<{ doc: number; score: number }> = [];
    for (let k = 0; k < this.count; k++) out.push({ doc: this.docs[k]!, score: this.scores[k]! });
    return out.sort((a, b) => b.score - a.score || a.doc - b.doc);
  }
}
