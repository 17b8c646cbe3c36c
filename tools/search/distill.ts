/**
 * Distills the files the request thread's query encoder and vector index read, once, offline, from
 * Universal Sentence Encoder lite (the model itself never runs on the request thread). Nothing of the
 * search benchmark (tools/bench/search/) is read: the texts are an English word list and the READMEs
 * of the installed npm packages.
 * - Tokens: the model's 8,000 SentencePiece pieces and about 60,000 whole English words the pieces
 *   split (the word list /usr/share/dict/words of Debian's `wamerican` package, plus README words seen
 *   5 times or more), each embedded alone by the model.
 * - token-basis.bin, token-vectors.bin, words.txt: the tokens' vectors in their first 128 principal
 *   directions (int8 rows), and the basis mapped by a linear map fitted (ridge regression) so that the
 *   weighted mean of a text's tokens lands near the model's own vector of that text
 *   (src/search/query-encoder.ts). The fit's texts are sentences and short phrases of the READMEs.
 * - codebook.bin: 256 k-means centroids of the model's vectors of those sentences: the coarse cells
 *   the vector index files listings under (src/search/vector-index.ts).
 *
 *   apt-get install wamerican && npx tsx tools/search/distill.ts
 *   (about 10 minutes on one loaded core; DISTILL_CACHE=<folder> keeps the model's vectors between runs)
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmbeddingPool } from "../../src/search/embedding-pool.js";
import { QueryEncoder } from "../../src/search/query-encoder.js";
import { DIMENSIONS } from "../../src/search/sentence-model.js";
import { quantize, writeVectorFile, type VectorRows } from "../../src/search/vector-file.js";
import { seeded } from "../bench/search/catalog.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const out = join(root, "src/search/model");
const BASIS = 128;
const WORD_LIST = "/usr/share/dict/words";
const vocabulary = QueryEncoder.vocabulary();
const random = seeded(11);
const pool = new EmbeddingPool({ threads: 1 });
const started = Date.now();
const log = (text: string) => console.log(`${((Date.now() - started) / 1000).toFixed(0)} s: ${text}`);
const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const cacheFolder = process.env.DISTILL_CACHE;

/** The model's vectors of the texts, from the cache folder when it has them. */
async function embed(texts: string[]): Promise<Float32Array[]> {
  const file =
    cacheFolder && join(cacheFolder, `${createHash("sha256").update(texts.join("\n")).digest("hex").slice(0, 16)}.f32`);
  if (file && existsSync(file)) {
    const all = new Float32Array(readFileSync(file).buffer.slice(0));
    return texts.map((_, n) => all.subarray(n * DIMENSIONS, (n + 1) * DIMENSIONS));
  }
  const vectors = await pool.embed(texts);
  if (file) {
    mkdirSync(cacheFolder, { recursive: true });
    const all = new Float32Array(texts.length * DIMENSIONS);
    vectors.forEach((vector, n) => all.set(vector, n * DIMENSIONS));
    writeFileSync(file, Buffer.from(all.buffer));
  }
  return vectors;
}

// 1. Each piece alone.
const pieceVectors = await embed(vocabulary.map(([piece]) => piece.replace(/^\u2581/, "").trim() || piece));
log(`${pieceVectors.length} pieces embedded`);

// 2. Fit texts: prose sentences of the READMEs, and short phrases cut from them (queries are short).
const readmes: string[] = [];
for (const entry of readdirSync(join(root, "node_modules"))) {
  const folders = entry.startsWith("@")
    ? readdirSync(join(root, "node_modules", entry)).map((name) => join(entry, name))
    : [entry];
  for (const folder of folders) {
    const path = join(root, "node_modules", folder, "README.md");
    try {
      if (statSync(path).size > 2000) readmes.push(readFileSync(path, "utf8"));
    } catch {
      // A package without a README adds no sentences.
    }
  }
}
const sentences = [
  ...new Set(
    readmes
      .flatMap((text) => text.replace(/```[\s\S]*?```/g, " ").split(/(?<=[.!?])\s+|\n/))
      .map((line) =>
        line
          .replace(/[`*_#>|[\]()]/g, " ")
          .replace(/https?:\S+/g, " ")
          .replace(/\s+/g, " ")
          .trim(),
      )
      .filter(
        (line) =>
          /^[A-Za-z][A-Za-z ,'-]+[.!?]?$/.test(line) && line.split(" ").length >= 5 && line.split(" ").length <= 25,
      ),
  ),
]
  .sort(() => random() - 0.5)
  .slice(0, 2500);
const phrases = sentences.map((sentence) => {
  const words = sentence.split(" ");
  const length = 2 + Math.floor(random() * 4);
  const start = Math.floor(random() * Math.max(1, words.length - length));
  return words.slice(start, start + length).join(" ");
});
const texts = [...sentences, ...phrases].map((text) => text.toLowerCase());
log(`${sentences.length} sentences and ${phrases.length} phrases to fit on`);
const targets = await embed(texts);
log("fit texts embedded");

// 3. Whole words the pieces split: the word list, and words the READMEs use often.
const piecesOnly = new QueryEncoder(vocabulary, { vectors: quantized(pieceVectors), words: [] });
const seen = new Map<string, number>();
for (const text of readmes)
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) seen.set(word, (seen.get(word) ?? 0) + 1);
const listed = readFileSync(WORD_LIST, "utf8").split("\n");
const words = [...new Set([...listed, ...[...seen].filter(([, count]) => count >= 5).map(([word]) => word)])]
  .filter((word) => /^[a-z]{3,16}$/.test(word) && piecesOnly.tokenize(word).length > 1)
  .sort();
const wordVectors = await embed(words);
log(`${words.length} words embedded`);
await pool.close();
const D = DIMENSIONS;
const tokens = [...pieceVectors, ...wordVectors];

// 4. The tokens' principal directions (uncentered: a mean of tokens stays a mean in the basis).
const covariance = new Float64Array(D * D);
for (const v of tokens)
  for (let i = 0; i < D; i++) {
    const vi = v[i]!;
    const row = i * D;
    for (let j = i; j < D; j++) covariance[row + j]! += vi * v[j]!;
  }
for (let i = 0; i < D; i++) for (let j = 0; j < i; j++) covariance[i * D + j] = covariance[j * D + i]!;
let basis = Array.from({ length: BASIS }, () => Float64Array.from({ length: D }, () => random() - 0.5));
for (let iteration = 0; iteration < 30; iteration++) {
  basis = basis.map((b) => {
    const next = new Float64Array(D);
    for (let i = 0; i < D; i++) {
      let sum = 0;
      const row = i * D;
      for (let j = 0; j < D; j++) sum += covariance[row + j]! * b[j]!;
      next[i] = sum;
    }
    return next;
  });
  // Gram-Schmidt keeps the directions apart, strongest first.
  basis.forEach((b, k) => {
    for (let earlier = 0; earlier < k; earlier++) {
      const e = basis[earlier]!;
      let projection = 0;
      for (let i = 0; i < D; i++) projection += b[i]! * e[i]!;
      for (let i = 0; i < D; i++) b[i]! -= projection * e[i]!;
    }
    let norm = 0;
    for (let i = 0; i < D; i++) norm += b[i]! * b[i]!;
    norm = Math.sqrt(norm);
    for (let i = 0; i < D; i++) b[i]! /= norm;
  });
}
const coordinates = tokens.map((v) => Float32Array.from(basis, (b) => b.reduce((sum, x, i) => sum + x * v[i]!, 0)));
const kept = coordinates.reduce((sum, c) => sum + dot(c, c), 0) / tokens.reduce((sum, v) => sum + dot(v, v), 0);
log(`${BASIS} principal directions keep ${(kept * 100).toFixed(1)}% of the tokens' energy`);

// 5. Ridge regression: W minimizing |X W - Y|^2 + lambda |W|^2, X the texts' weighted token means
// (in the model's 512 dimensions, through the basis); fitted on 9 texts in 10, checked on the 10th.
const rawBasis = basis.map((b) => Float32Array.from(b));
const raw = new QueryEncoder(vocabulary, { vectors: quantized(coordinates), words, basis: quantized(rawBasis) });
const inputs = texts.map((text) => raw.encode(text) ?? new Float32Array(D));
const gram = new Float64Array(D * D);
const cross = new Float64Array(D * D);
inputs.forEach((x, n) => {
  if (n % 10 === 0) return;
  const y = targets[n]!;
  for (let i = 0; i < D; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const row = i * D;
    for (let j = 0; j < D; j++) {
      gram[row + j]! += xi * x[j]!;
      cross[row + j]! += xi * y[j]!;
    }
  }
});
const LAMBDA = 0.5;
for (let i = 0; i < D; i++) gram[i * D + i]! += LAMBDA;
// Cholesky: gram = L L^T, then solve for each output column.
const L = new Float64Array(D * D);
for (let i = 0; i < D; i++)
  for (let j = 0; j <= i; j++) {
    let sum = gram[i * D + j]!;
    for (let k = 0; k < j; k++) sum -= L[i * D + k]! * L[j * D + k]!;
    L[i * D + j] = i === j ? Math.sqrt(sum) : sum / L[j * D + j]!;
  }
const W = new Float64Array(D * D);
const column = new Float64Array(D);
for (let c = 0; c < D; c++) {
  for (let i = 0; i < D; i++) {
    let sum = cross[i * D + c]!;
    for (let k = 0; k < i; k++) sum -= L[i * D + k]! * column[k]!;
    column[i] = sum / L[i * D + i]!;
  }
  for (let i = D - 1; i >= 0; i--) {
    let sum = column[i]!;
    for (let k = i + 1; k < D; k++) sum -= L[k * D + i]! * W[k * D + c]!;
    W[i * D + c] = sum / L[i * D + i]!;
  }
}
log("linear map fitted");
// The mean is linear: mapping the basis once maps every mean.
const mappedBasis = rawBasis.map((b) => {
  const row = new Float32Array(D);
  for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) row[j]! += b[i]! * W[i * D + j]!;
  return row;
});
writeVectorFile(join(out, "token-vectors.bin"), coordinates, BASIS);
writeVectorFile(join(out, "token-basis.bin"), mappedBasis, D);
writeFileSync(join(out, "words.txt"), `${words.join("\n")}\n`);
const fitted = QueryEncoder.fromFolder(out);
const agreement = (encoder: QueryEncoder, from: number, to: number) => {
  const held = texts.map((text, n) => [text, n] as const).filter(([, n]) => n >= from && n < to && n % 10 === 0);
  return (
    held.reduce((sum, [text, n]) => sum + dot(encoder.encode(text) ?? new Float32Array(D), targets[n]!), 0) /
    held.length
  ).toFixed(3);
};
log(
  `mean cosine to the model on held-out texts: sentences ${agreement(raw, 0, sentences.length)} -> ${agreement(fitted, 0, sentences.length)}, phrases ${agreement(raw, sentences.length, texts.length)} -> ${agreement(fitted, sentences.length, texts.length)}`,
);

// 6. The codebook: k-means of the model's sentence vectors.
const CELLS = 256;
const points = targets;
let centroids = Array.from({ length: CELLS }, () => Float32Array.from(points[Math.floor(random() * points.length)]!));
for (let iteration = 0; iteration < 15; iteration++) {
  const sums = Array.from({ length: CELLS }, () => new Float32Array(D));
  const counts = new Array<number>(CELLS).fill(0);
  for (const point of points) {
    let best = 0;
    let bestScore = -Infinity;
    centroids.forEach((centroid, c) => {
      const score = dot(point, centroid);
      if (score > bestScore) [best, bestScore] = [c, score];
    });
    counts[best]!++;
    const sum = sums[best]!;
    for (let i = 0; i < D; i++) sum[i]! += point[i]!;
  }
  centroids = sums.map((sum, c) => {
    if (counts[c] === 0) return Float32Array.from(points[Math.floor(random() * points.length)]!);
    const norm = Math.sqrt(dot(sum, sum)) || 1;
    return sum.map((x) => x / norm);
  });
  if (iteration === 14) log(`k-means: largest cell ${Math.max(...counts)} of ${points.length}`);
}
writeVectorFile(join(out, "codebook.bin"), centroids, D);
log("done");

function quantized(vectors: Float32Array[]): VectorRows {
  const dimensions = vectors[0]!.length;
  const values = new Int8Array(vectors.length * dimensions);
  const scales = Float32Array.from(vectors, (vector, row) => quantize(vector, values, row * dimensions));
  return { rows: vectors.length, dimensions, values, scales };
}
