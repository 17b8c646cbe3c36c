// The vector index's stored form (4-bit values, two a byte) against exact cosine, and its spare room
// given back (trim) without losing or refusing listings.
import { describe, expect, it } from "vitest";
import { loadCodebook } from "../../src/search/query-encoder.js";
import { packNibbles, VectorIndex } from "../../src/search/vector-index.js";

/** Deterministic unit vectors (a small linear congruential generator, summed to a rough Gaussian). */
function unitVectors(count: number, dimensions: number, seed = 7): Float32Array[] {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
  return Array.from({ length: count }, () => {
    const vector = Float32Array.from({ length: dimensions }, () => next() + next() + next());
    const norm = Math.hypot(...vector);
    return vector.map((x) => x / norm);
  });
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("vector index", () => {
  const codebook = loadCodebook();
  const vectors = unitVectors(300, codebook.dimensions);

  it("scores each stored listing within 0.02 of its exact cosine, most similar first", () => {
    const index = new VectorIndex(codebook);
    vectors.forEach((vector, slot) => index.add(slot, vector));
    const query = vectors[0]!.map((x, i) => x + vectors[1]![i]!);
    const norm = Math.hypot(...query);
    const unit = query.map((x) => x / norm);
    const found = index.search(unit, 300, () => true);
    expect(found.length).toBeGreaterThan(200);
    for (const { slot, similarity } of found)
      expect(Math.abs(similarity - cosine(unit, vectors[slot]!))).toBeLessThan(0.02);
    expect(found.slice(0, 2).map((match) => match.slot)).toEqual(expect.arrayContaining([0, 1]));
  });

  it("reports each similarity as the dot product of the query with the stored 4-bit values, dimension by dimension", () => {
    const index = new VectorIndex(codebook);
    vectors.forEach((vector, slot) => index.add(slot, vector));
    const query = vectors[3]!;
    /** The stored form, unpacked: dimension 2i from byte i's low nibble, 2i+1 from its high one. */
    const stored = (vector: Float32Array) => {
      const packed = new Int8Array(vector.length / 2);
      const step = packNibbles(vector, packed, 0);
      let even = 0;
      let odd = 0;
      for (let i = 0; i < packed.length; i++) {
        even += query[2 * i]! * ((packed[i]! << 28) >> 28);
        odd += query[2 * i + 1]! * (packed[i]! >> 4);
      }
      return (even + odd) * Math.fround(step);
    };
    const found = index.search(query, 300, () => true);
    expect(found.length).toBeGreaterThan(200);
    for (const { slot, similarity } of found) expect(similarity).toBe(stored(vectors[slot]!));
  });

  it("past its scan budget, looks in the cells nearest the query first: each stored vector is its own best match", () => {
    const index = new VectorIndex(codebook, 1024, 50);
    vectors.forEach((vector, slot) => index.add(slot, vector));
    for (let slot = 0; slot < 20; slot++) expect(index.search(vectors[slot]!, 5, () => true)[0]?.slot).toBe(slot);
  });

  it("keeps every listing through trim and still takes new ones in any cell", () => {
    const index = new VectorIndex(codebook);
    vectors.slice(0, 200).forEach((vector, slot) => index.add(slot, vector));
    const before = index.bytes;
    index.trim(200, 0);
    expect(index.bytes).toBeLessThan(before);
    vectors.slice(200).forEach((vector, k) => index.add(200 + k, vector));
    expect(index.size).toBe(300);
    expect(index.search(vectors[250]!, 1, () => true)[0]!.slot).toBe(250);
    expect(index.search(vectors[10]!, 1, () => true)[0]!.slot).toBe(10);
  });
});
