// The repository's small vector files (src/search/model/*.bin): rows of int8 with one float32 scale
// each, after a 12-byte header ("X4V1", rows, dimensions as uint32 little-endian).
import { readFileSync, writeFileSync } from "node:fs";

const MAGIC = 0x31563458; // "X4V1"

export interface VectorRows {
  rows: number;
  dimensions: number;
  scales: Float32Array;
  values: Int8Array;
}

/** Quantizes a vector to int8 with its own scale (max |x| / 127). */
export function quantize(vector: ArrayLike<number>, into: Int8Array, offset: number): number {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  const scale = max / 127 || 1;
  for (let i = 0; i < vector.length; i++) into[offset + i] = Math.round(vector[i]! / scale);
  return scale;
}

export function writeVectorFile(path: string, vectors: ArrayLike<number>[], dimensions: number): void {
  const header = Buffer.alloc(12);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(vectors.length, 4);
  header.writeUInt32LE(dimensions, 8);
  const scales = new Float32Array(vectors.length);
  const values = new Int8Array(vectors.length * dimensions);
  vectors.forEach((vector, row) => (scales[row] = quantize(vector, values, row * dimensions)));
  writeFileSync(path, Buffer.concat([header, Buffer.from(scales.buffer), Buffer.from(values.buffer)]));
}

export function readVectorFile(path: string | URL): VectorRows {
  const bytes = readFileSync(path);
  if (bytes.readUInt32LE(0) !== MAGIC) throw new Error(`not a vector file: ${String(path)}`);
  const rows = bytes.readUInt32LE(4);
  const dimensions = bytes.readUInt32LE(8);
  const copy = new Uint8Array(bytes.byteLength - 12);
  copy.set(bytes.subarray(12));
  return {
    rows,
    dimensions,
    scales: new Float32Array(copy.buffer, 0, rows),
    values: new Int8Array(copy.buffer, rows * 4, rows * dimensions),
  };
}

/** A stored embedding (ListingEmbedding.vector): a little-endian float32 scale, then the int8 values. */
export function packVector(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(4 + vector.length);
  const values = new Int8Array(bytes.buffer, 4);
  new DataView(bytes.buffer).setFloat32(0, quantize(vector, values, 0), true);
  return bytes;
}

export function unpackVector(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const scale = view.getFloat32(0, true);
  const out = new Float32Array(bytes.byteLength - 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt8(4 + i) * scale;
  return out;
}
