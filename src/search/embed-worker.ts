// The embedding worker (a piscina task module): the model lives here, on its own thread, never on
// the request thread. A task is a batch of texts; the answer their unit vectors, packed in one
// transferable Float32Array (row after row of DIMENSIONS).
import { DIMENSIONS, embedTexts } from "./sentence-model.js";

export default async function embed(texts: string[]): Promise<Float32Array> {
  const vectors = await embedTexts(texts);
  const packed = new Float32Array(vectors.length * DIMENSIONS);
  vectors.forEach((vector, row) => packed.set(vector, row * DIMENSIONS));
  return packed;
}
