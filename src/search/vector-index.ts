// The semantic side's index: each listing's unit vector as 4-bit values, two to a byte (256 bytes and
// a scale: 26 MB at 100k listings, against 52 MB as int8 and 205 MB as float32), filed under the
// nearest of the codebook's fixed cells (256 centroids distilled once, tools/search/distill.ts). A
// query scans every listing's sign bits while they are at most SCAN_BUDGET; past it, it scores the
// cells and scans the nearest cells' listings until it has looked at SCAN_BUDGET of them: the work
// stops growing with the catalog (exact below the budget, approximate above it).
import type { VectorRows } from "./vector-file.js";

/** Listings a query compares itself with at most, by their sign bits (hamming distance: cheap). */
export const SCAN_BUDGET = 12000;
/** The best of those by sign bits are then compared by their 4-bit values. */
export const RERANK = 400;
const WORDS = 16;
/**
 * A stored value's step is this share of the vector's root mean square: values within ±7 steps
 * (±2.6 RMS) keep their place, the rare larger ones are clipped to 7. A step of max|x| / 7 spent
 * most of the 16 levels on a few large components and left most of the rest at 0.
 */
const STEP_PER_RMS = 2.6 / 7;
const LEVEL = 7;

/** Packs a vector to signed 4-bit values, two a byte (even dimension low nibble); returns the step. */
export function packNibbles(vector: ArrayLike<number>, into: Int8Array, offset: number): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const step = Math.sqrt(sum / vector.length) * STEP_PER_RMS || 1;
  for (let i = 0; i < vector.length; i += 2) {
    const low = Math.max(-LEVEL, Math.min(LEVEL, Math.round(vector[i]! / step)));
    const high = Math.max(-LEVEL, Math.min(LEVEL, Math.round(vector[i + 1]! / step)));
    into[offset + (i >> 1)] = (high << 4) | (low & 15);
  }
  return step;
}

/**
 * Bits that differ between the query's sign bits and those at `offset` (WORDS words). Two words'
 * 4-bit counts are added before they are summed bytewise, and the bytes once at the end: a quarter
 * less work than a popcount per word (the scan is every listing's bits at 10k).
 */
function hammingDistance(query: Int32Array, bits: Int32Array, offset: number): number {
  let bytes = 0;
  for (let w = 0; w < WORDS; w += 2) {
    let x = query[w]! ^ bits[offset + w]!;
    let y = query[w + 1]! ^ bits[offset + w + 1]!;
    x -= (x >>> 1) & 0x55555555;
    y -= (y >>> 1) & 0x55555555;
    // Each 4-bit field: at most 4 of x and 4 of y.
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333) + (y & 0x33333333) + ((y >>> 2) & 0x33333333);
    // Each byte: at most 16 per pair of words, 128 over the 16 words.
    bytes += (x & 0x0f0f0f0f) + ((x >>> 4) & 0x0f0f0f0f);
  }
  bytes = (bytes & 0x00ff00ff) + ((bytes >>> 8) & 0x00ff00ff);
  return (bytes & 0xffff) + (bytes >>> 16);
}

export interface VectorMatch {
  slot: number;
  similarity: number;
}

/** One cell's listings and their sign bits side by side, so a scan reads memory in order. */
class SlotList {
  slots = new Int32Array(16);
  bits = new Int32Array(16 * WORDS);
  length = 0;

  push(slot: number, bits: Int32Array): void {
    if (this.length === this.slots.length) {
      const grown = new Int32Array(Math.max(16, Math.ceil(this.length * 1.5)));
      grown.set(this.slots);
      this.slots = grown;
      const grownBits = new Int32Array(grown.length * WORDS);
      grownBits.set(this.bits);
      this.bits = grownBits;
    }
    this.bits.set(bits, this.length * WORDS);
    this.slots[this.length++] = slot;
  }

  trim(): void {
    if (this.slots.length === this.length) return;
    this.slots = this.slots.slice(0, this.length);
    this.bits = this.bits.slice(0, this.length * WORDS);
  }

  delete(slot: number): void {
    const at = this.slots.subarray(0, this.length).indexOf(slot);
    if (at < 0) return;
    this.slots.copyWithin(at, at + 1, this.length);
    this.bits.copyWithin(at * WORDS, (at + 1) * WORDS, this.length * WORDS);
    this.length--;
  }
}

export class VectorIndex {
  /** Two 4-bit values a byte: dimension 2i in the low nibble, 2i+1 in the high one. */
  private values: Int8Array;
  private scales: Float32Array;
  /** Each slot's cell (valid where its scale is not 0). */
  private cellOf: Uint16Array;
  private readonly center: Float32Array;
  private scratchSlots = new Int32Array(0);
  private scratchDistances = new Uint16Array(0);
  private capacity: number;
  private readonly cells: SlotList[];
  private readonly centroids: Float32Array;
  private count = 0;

  constructor(
    private readonly codebook: VectorRows,
    initialCapacity = 1024,
    private readonly scanBudget = SCAN_BUDGET,
  ) {
    this.capacity = initialCapacity;
    this.values = new Int8Array((initialCapacity * codebook.dimensions) / 2);
    this.scales = new Float32Array(initialCapacity);
    this.cellOf = new Uint16Array(initialCapacity);
    this.cells = Array.from({ length: codebook.rows }, () => new SlotList());
    this.centroids = new Float32Array(codebook.rows * codebook.dimensions);
    for (let row = 0; row < codebook.rows; row++)
      for (let i = 0; i < codebook.dimensions; i++)
        this.centroids[row * codebook.dimensions + i] =
          codebook.values[row * codebook.dimensions + i]! * codebook.scales[row]!;
    this.center = new Float32Array(codebook.dimensions);
    for (let row = 0; row < codebook.rows; row++)
      for (let i = 0; i < codebook.dimensions; i++)
        this.center[i]! += this.centroids[row * codebook.dimensions + i]! / codebook.rows;
  }

  get dimensions(): number {
    return this.codebook.dimensions;
  }

  /** Listings with a vector. */
  get size(): number {
    return this.count;
  }

  /** Bytes held by vectors and cell lists. */
  get bytes(): number {
    return (
      this.values.byteLength +
      this.scales.byteLength +
      this.cells.reduce((sum, cell) => sum + cell.slots.byteLength + cell.bits.byteLength, 0)
    );
  }

  private grow(slot: number): void {
    if (slot < this.capacity) return;
    // Grown by a quarter (not doubled): at 100k listings the spare room of a doubling is 15 MB.
    this.resize(Math.max(slot + 1, Math.ceil(this.capacity * 1.25)));
  }

  private resize(capacity: number): void {
    const bytes = this.dimensions / 2;
    const values = new Int8Array(capacity * bytes);
    values.set(this.values.subarray(0, Math.min(this.capacity, capacity) * bytes));
    const scales = new Float32Array(capacity);
    scales.set(this.scales.subarray(0, Math.min(this.capacity, capacity)));
    const cellOf = new Uint16Array(capacity);
    cellOf.set(this.cellOf.subarray(0, Math.min(this.capacity, capacity)));
    [this.values, this.scales, this.cellOf, this.capacity] = [values, scales, cellOf, capacity];
  }

  /** Room for `slots` vectors at least (one allocation of that size when it grows). */
  reserve(slots: number): void {
    if (slots > this.capacity) this.resize(slots);
  }

  /**
   * Gives back the spare room growing left (up to a quarter of the vectors, and a third of each
   * cell's list), keeping `headroom` slots past `slots` for the listings still to come.
   */
  trim(slots: number, headroom = 1024): void {
    const capacity = Math.max(slots + headroom, 1024);
    if (capacity < this.capacity) this.resize(capacity);
    for (const cell of this.cells) cell.trim();
  }

  private signBits(vector: Float32Array, into: Int32Array, offset: number): void {
    for (let w = 0; w < WORDS; w++) {
      let word = 0;
      for (let b = 0; b < 32; b++) if (vector[w * 32 + b]! > this.center[w * 32 + b]!) word |= 1 << b;
      into[offset + w] = word;
    }
  }

  private cellScores(vector: Float32Array): Float32Array {
    const dims = this.dimensions;
    const centroids = this.centroids;
    const scores = new Float32Array(this.codebook.rows);
    for (let cell = 0; cell < scores.length; cell++) {
      let s0 = 0;
      let s1 = 0;
      const offset = cell * dims;
      for (let i = 0; i < dims; i += 2) {
        s0 += vector[i]! * centroids[offset + i]!;
        s1 += vector[i + 1]! * centroids[offset + i + 1]!;
      }
      scores[cell] = s0 + s1;
    }
    return scores;
  }

  private cellsNearest(query: Float32Array): number[] {
    const scores = this.cellScores(query);
    return Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]! || a - b);
  }

  /** Files a slot's vector, in place of the one it had (the model's vector replacing the query encoder's). */
  add(slot: number, vector: Float32Array): void {
    this.grow(slot);
    if (this.scales[slot] !== 0) {
      this.cells[this.cellOf[slot]!]!.delete(slot);
      this.count--;
    }
    this.scales[slot] = packNibbles(vector, this.values, (slot * this.dimensions) / 2);
    const bits = new Int32Array(WORDS);
    this.signBits(vector, bits, 0);
    const scores = this.cellScores(vector);
    let best = 0;
    for (let cell = 1; cell < scores.length; cell++) if (scores[cell]! > scores[best]!) best = cell;
    this.cells[best]!.push(slot, bits);
    this.cellOf[slot] = best;
    this.count++;
  }

  /** Adds weight x the slot's stored vector into `into`; false when the slot has none. */
  addVector(slot: number, weight: number, into: Float32Array): boolean {
    if (slot >= this.capacity || this.scales[slot] === 0) return false;
    const words = this.dimensions / 8;
    const scaled = weight * this.scales[slot]!;
    const packed = new Int32Array(this.values.buffer, this.values.byteOffset, this.values.length / 4);
    // Eight 4-bit values a 32-bit word, as in search().
    for (let w = 0, d = 0, offset = slot * words; w < words; w++, d += 8) {
      const word = packed[offset + w]!;
      into[d]! += scaled * ((word << 28) >> 28);
      into[d + 1]! += scaled * ((word << 24) >> 28);
      into[d + 2]! += scaled * ((word << 20) >> 28);
      into[d + 3]! += scaled * ((word << 16) >> 28);
      into[d + 4]! += scaled * ((word << 12) >> 28);
      into[d + 5]! += scaled * ((word << 8) >> 28);
      into[d + 6]! += scaled * ((word << 4) >> 28);
      into[d + 7]! += scaled * (word >> 28);
    }
    return true;
  }

  /** The similarity of a slot's stored vector to a unit query vector (read as doubles), or null when it has none. */
  similarity(slot: number, q: Float64Array): number | null {
    if (slot >= this.capacity || this.scales[slot] === 0) return null;
    const words = this.dimensions / 8;
    const packed = new Int32Array(this.values.buffer, this.values.byteOffset, this.values.length / 4);
    let sum = 0;
    for (let w = 0, d = 0, offset = slot * words; w < words; w++, d += 8) {
      const word = packed[offset + w]!;
      sum +=
        q[d]! * ((word << 28) >> 28) +
        q[d + 1]! * ((word << 24) >> 28) +
        q[d + 2]! * ((word << 20) >> 28) +
        q[d + 3]! * ((word << 16) >> 28) +
        q[d + 4]! * ((word << 12) >> 28) +
        q[d + 5]! * ((word << 8) >> 28) +
        q[d + 6]! * ((word << 4) >> 28) +
        q[d + 7]! * (word >> 28);
    }
    return sum * this.scales[slot]!;
  }

  /**
   * The `limit` slots `accept` admits most similar to a unit query vector, most similar first: the
   * nearest cells' admitted listings are ranked by sign-bit agreement (SCAN_BUDGET of them at most),
   * and the RERANK best of those by their 4-bit values.
   */
  search(
    query: Float32Array,
    limit: number,
    accept: (slot: number) => boolean,
    scanBudget = this.scanBudget,
  ): VectorMatch[] {
    const dims = this.dimensions;
    const { values, scales } = this;
    const queryBits = new Int32Array(WORDS);
    this.signBits(query, queryBits, 0);
    // The nearest cells first, so the budget is spent near the query; when it covers every listing
    // (10k listings), their order changes nothing and ranking 256 centroids (a third of a search) is skipped.
    const order = this.count <= scanBudget ? this.cells.keys() : this.cellsNearest(query);
    // Hamming distances, then a histogram of them: the RERANK nearest are those up to a cut-off distance.
    const budget = scanBudget;
    if (this.scratchSlots.length < budget)
      [this.scratchSlots, this.scratchDistances] = [new Int32Array(budget), new Uint16Array(budget)];
    const found = this.scratchSlots;
    const distances = this.scratchDistances;
    const histogram = new Uint32Array(dims + 1);
    let scanned = 0;
    for (const cell of order) {
      const list = this.cells[cell]!;
      const { slots, bits } = list;
      for (let k = 0; k < list.length && scanned < budget; k++) {
        // The view's filters before anything is cut: a listing the view hides takes no place in the scan or the rerank.
        if (!accept(slots[k]!)) continue;
        const distance = hammingDistance(queryBits, bits, k * WORDS);
        found[scanned] = slots[k]!;
        distances[scanned++] = distance;
        histogram[distance]!++;
      }
      if (scanned >= budget) break;
    }
    let cutoff = 0;
    for (let seen = 0; cutoff < dims && seen + histogram[cutoff]! < RERANK; cutoff++) seen += histogram[cutoff]!;
    // Slots and similarities side by side, not an object per candidate (400-700 of them a query).
    const words = dims / 8;
    const packed = new Int32Array(values.buffer, values.byteOffset, values.length / 4);
    // Read as doubles once: a Float32Array element is widened to a double on every read.
    const q = Float64Array.from(query);
    const candidates: number[] = [];
    const similarities: number[] = [];
    for (let k = 0; k < scanned; k++) {
      if (distances[k]! > cutoff) continue;
      const slot = found[k]!;
      // Eight 4-bit values a 32-bit word (little-endian: dimension d in bits 4d..4d+3), summed in
      // the order a byte at a time would: the same similarities, a quarter of the loads.
      const offset = slot * words;
      let s0 = 0;
      let s1 = 0;
      for (let w = 0, d = 0; w < words; w++, d += 8) {
        const word = packed[offset + w]!;
        s0 += q[d]! * ((word << 28) >> 28);
        s1 += q[d + 1]! * ((word << 24) >> 28);
        s0 += q[d + 2]! * ((word << 20) >> 28);
        s1 += q[d + 3]! * ((word << 16) >> 28);
        s0 += q[d + 4]! * ((word << 12) >> 28);
        s1 += q[d + 5]! * ((word << 8) >> 28);
        s0 += q[d + 6]! * ((word << 4) >> 28);
        s1 += q[d + 7]! * (word >> 28);
      }
      candidates.push(slot);
      similarities.push((s0 + s1) * scales[slot]!);
    }
    // Most similar first; equals in the order they were scanned.
    return Array.from(candidates.keys())
      .sort((a, b) => similarities[b]! - similarities[a]! || a - b)
      .slice(0, limit)
      .map((at) => ({ slot: candidates[at]!, similarity: similarities[at]! }));
  }
}
