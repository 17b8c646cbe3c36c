// The lexical side: BM25 over a listing's service name, tags, description and resource path, held in
// memory (one posting list per term). Typo-tolerant: a query term the catalog does not hold is
// replaced by the catalog's terms that share most of its trigrams (at most NEAR_TERMS of them,
// weighted by that likeness), so "transcibe" finds "transcribe".
import { terms, trigramsOf } from "./text.js";

const K1 = 1.2;
const B = 0.75;
/** A field's words count this many times (a name or tag says more than a sentence). */
const FIELD_WEIGHT = { name: 3, tags: 2, description: 1, resource: 1 } as const;
const NEAR_TERMS = 3;
const MIN_LIKENESS = 0.4;

export interface LexicalFields {
  name: string;
  tags: string[];
  description: string;
  resource: string;
}

export interface LexicalMatch {
  doc: number;
  score: number;
  terms: string[];
}

/** The path words of a resource URL: its host's name part and path segments. */
function resourceText(resource: string): string {
  try {
    const url = new URL(resource);
    return `${url.hostname.split(".").slice(-3, -1).join(" ")} ${url.pathname}`;
  } catch {
    return resource;
  }
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
    if (term.length < 4) return [];
    const grams = trigramsOf(term);
    const shared = new Map<string, number>();
    for (const gram of grams) for (const candidate of this.trigrams.get(gram) ?? []) shared.set(candidate, (shared.get(candidate) ?? 0) + 1);
    const scored: Array<[string, number]> = [];
    for (const [candidate, common] of shared) {
      const likeness = common / (grams.length + candidate.length - common);
      if (likeness >= MIN_LIKENESS) scored.push([candidate, likeness]);
    }
    return scored.sort((a, b) => b[1] - a[1]).slice(0, NEAR_TERMS);
  }

  /** The query's terms as the catalog holds them: each known term itself, each unknown one its near spellings. */
  expand(query: string): Array<{ term: string; weight: number; asked: string }> {
    const out: Array<{ term: string; weight: number; asked: string }> = [];
    for (const asked of new Set(terms(query))) {
      if (this.postings.has(asked)) out.push({ term: asked, weight: 1, asked });
      else for (const [term, likeness] of this.nearTerms(asked)) out.push({ term, weight: likeness, asked });
    }
    return out;
  }

  /** BM25 scores of the live documents holding a query term, best first. */
  search(query: string, limit: number, accept: (doc: number) => boolean): LexicalMatch[] {
    const n = this.documents;
    if (n === 0) return [];
    const averageLength = this.totalLength / n;
    // Scores accumulate in a dense array over the touched documents (a Map per hit cost 3x more).
    if (this.scratch.length < this.lengths.length) this.scratch = new Float64Array(this.lengths.length);
    const scores = this.scratch;
    const touched: number[] = [];
    const matchedTerms = new Map<number, string[]>();
    const expanded = this.expand(query);
    for (const { term, weight } of expanded) {
      const list = this.postings.get(term)!;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      const { docs, tfs, length } = list;
      for (let i = 0; i < length; i++) {
        const doc = docs[i]!;
        const tf = tfs[i]!;
        const add = (weight * idf * (tf * (K1 + 1))) / (tf + K1 * (1 - B + (B * this.lengths[doc]!) / averageLength));
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += add;
      }
    }
    const candidates: LexicalMatch[] = [];
    for (const doc of touched) {
      const score = scores[doc]!;
      scores[doc] = 0;
      candidates.push({ doc, score, terms: [] });
    }
    candidates.sort((a, b) => b.score - a.score);
    const matches: LexicalMatch[] = [];
    for (const match of candidates) {
      if (matches.length === limit) break;
      if (!accept(match.doc)) continue;
      matches.push(match);
    }
    // Which terms each kept match holds (for rankReasons): a look-up in the short lists only.
    for (const { term } of expanded) {
      const list = this.postings.get(term)!;
      const kept = new Set(matches.map((match) => match.doc));
      for (let i = 0; i < list.length; i++)
        if (kept.has(list.docs[i]!)) (matchedTerms.get(list.docs[i]!) ?? matchedTerms.set(list.docs[i]!, []).get(list.docs[i]!)!).push(term);
    }
    for (const match of matches) match.terms = matchedTerms.get(match.doc) ?? [];
    return matches;
  }
}
