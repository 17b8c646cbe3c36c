// The worker threads that run the sentence model (embed-worker.ts), through piscina: the request
// thread only posts texts and receives vectors. Batches are bounded, and the queue too: when it is
// full, `tryEmbed` says so at once instead of waiting (the caller then answers without the model).
import { Piscina } from "piscina";
import { DIMENSIONS } from "./types.js";

/**
 * Texts per task. The model's cost per text falls about half from single texts to batches of 8, and
 * no further at 32 (32.7 ms a text either way, measured), while its WebAssembly memory, which never
 * shrinks, grows with the batch: about 20 MB more RSS at 32.
 */
export const BATCH = 8;

const workerFile = (): { filename: string; execArgv: string[] } => {
  // Under tsx (tests, tools) the worker is the .ts source, loaded through tsx; built, the .js beside this file.
  const compiled = import.meta.url.endsWith(".js");
  return {
    filename: new URL(compiled ? "./embed-worker.js" : "./embed-worker.ts", import.meta.url).href,
    execArgv: compiled ? [] : ["--import", "tsx"],
  };
};

export interface EmbeddingPoolOptions {
  threads?: number;
  /** Tasks waiting beyond the running ones before tryEmbed refuses. */
  maxQueue?: number;
}

export class EmbeddingPool {
  private readonly pool: Piscina;

  constructor(options: EmbeddingPoolOptions = {}) {
    const { filename, execArgv } = workerFile();
    const threads = options.threads ?? 1;
    this.pool = new Piscina({
      filename,
      execArgv,
      minThreads: threads,
      maxThreads: threads,
      maxQueue: options.maxQueue ?? 64,
      // The model stays loaded: a thread that went idle would load it again (about a second of CPU).
      idleTimeout: 2 ** 31 - 1,
      concurrentTasksPerWorker: 1,
    });
  }

  get saturated(): boolean {
    return this.pool.queueSize >= (this.pool.options.maxQueue as number);
  }

  /** The texts' unit vectors, in order (batched). */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      const packed = (await this.pool.run(texts.slice(i, i + BATCH))) as Float32Array;
      for (let row = 0; row * DIMENSIONS < packed.length; row++) out.push(packed.subarray(row * DIMENSIONS, (row + 1) * DIMENSIONS));
    }
    return out;
  }

  /** Like embed for one batch, but null at once when the queue is full. */
  async tryEmbed(texts: string[]): Promise<Float32Array[] | null> {
    if (this.saturated) return null;
    return this.embed(texts);
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
