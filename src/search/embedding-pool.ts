// The worker threads that run the sentence model (embed-worker.ts), through piscina: the request
// thread only posts texts and receives vectors. Batches are bounded, and the queue too: beyond it
// piscina refuses a task at once.
import { Piscina } from "piscina";
import { DIMENSIONS } from "./types.js";

/**
 * Texts per task. The model's cost per text falls about half from single texts to batches of 8, and
 * no further at 32 (32.7 ms a text either way, measured); 4 cost the same as 8 (30.2 and 29.4-34.6
 * ms a text, 2026-11-28). Its WebAssembly memory, which never shrinks, grows with the batch: after
 * a run of batches with long texts 50.7 MB resident at 4 against 70.0 at 8 (the weights' loaded
 * copy freed, sentence-model.ts, makes room that batches of 4 fit in, and those of 8 do not).
 */
export const BATCH = 4;

const workerFile = (): { filename: string; execArgv: string[] } => {
  // Under tsx (tests, tools) the worker is the .ts source, loaded through tsx; built, the .js beside this file.
  const compiled = import.meta.url.endsWith(".js");
  return {
    filename: new URL(compiled ? "./embed-worker.js" : "./embed-worker.ts", import.meta.url).href,
    execArgv: compiled ? [] : ["--import", "tsx"],
  };
};

/** How long the model's thread may sit idle before it stops and gives its memory back (it starts again on the next text). */
export const MODEL_IDLE_MS = 120_000;

export interface EmbeddingPoolOptions {
  threads?: number;
  /** Tasks waiting beyond the running ones before piscina refuses one. */
  maxQueue?: number;
  /** Idle time after which the thread stops (default MODEL_IDLE_MS). */
  idleMs?: number;
}

export class EmbeddingPool {
  private readonly pool: Piscina;

  constructor(options: EmbeddingPoolOptions = {}) {
    const { filename, execArgv } = workerFile();
    const threads = options.threads ?? 1;
    this.pool = new Piscina({
      filename,
      execArgv,
      // Started by the first text and stopped after idleMs without one: the model holds about 130 MB
      // while loaded, and loading it again costs about a second of the worker's CPU.
      minThreads: 0,
      maxThreads: threads,
      maxQueue: options.maxQueue ?? 64,
      idleTimeout: options.idleMs ?? MODEL_IDLE_MS,
      concurrentTasksPerWorker: 1,
      // The model's JavaScript heap is small (its tensors live in WebAssembly memory): V8's default
      // young generation alone reserved tens of MB.
      resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 8 },
      // Below the request thread (Linux nice 10, as the signature workers): on two cores the model
      // otherwise takes an even share of the CPU that catalog reads need.
      niceIncrement: 10,
    });
  }

  /** Model threads running now (0 when stopped idle). */
  get threads(): number {
    return this.pool.threads.length;
  }

  /** The texts' unit vectors, in order (batched). */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      const packed = (await this.pool.run(texts.slice(i, i + BATCH))) as Float32Array;
      for (let row = 0; row * DIMENSIONS < packed.length; row++)
        out.push(packed.subarray(row * DIMENSIONS, (row + 1) * DIMENSIONS));
    }
    return out;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
