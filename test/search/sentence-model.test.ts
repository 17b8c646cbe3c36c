// The sentence model as the embedding worker runs it: the loaded copy of the weights XNNPACK packs is
// freed after the first run, so batches of listing texts run in that room (WebAssembly memory never
// shrinks), and the vectors are the same as ever: a text alone and in a batch with long ones.
import { describe, expect, it } from "vitest";
import { BATCH } from "../../src/search/embedding-pool.js";
import { embedTexts, loadSentenceModel, modelMemoryBytes } from "../../src/search/sentence-model.js";

const LISTING =
  "Speech-to-text for audio files: a transcript with word timestamps and speaker labels, in 40 languages.";
const LONG = Array.from(
  { length: 6 },
  (_, i) => `${LISTING} Section ${i}: hourly weather, exchange rates, invoices and receipts read by OCR.`,
).join(" ");

describe("the sentence model", () => {
  it("runs batches of long listing texts without growing its memory past the loaded model's", async () => {
    await loadSentenceModel();
    const loaded = modelMemoryBytes();
    expect(loaded).toBeGreaterThan(27_000_000);
    for (let round = 0; round < 3; round++)
      await embedTexts(Array.from({ length: BATCH }, (_, i) => `${LONG} ${round} ${i}`));
    expect(modelMemoryBytes()).toBe(loaded);
  }, 120_000);

  it("gives a text the same vector alone as in a batch beside long texts", async () => {
    const [alone] = await embedTexts([LISTING]);
    const batch = await embedTexts([LONG, LISTING, `${LONG} again`, "weather"].slice(0, Math.max(2, BATCH)));
    const inBatch = batch[1]!;
    expect(inBatch).toHaveLength(512);
    let largest = 0;
    for (let i = 0; i < 512; i++) largest = Math.max(largest, Math.abs(inBatch[i]! - alone![i]!));
    expect(largest).toBeLessThan(1e-5);
    expect(alone!.every(Number.isFinite)).toBe(true);
  }, 120_000);
});
