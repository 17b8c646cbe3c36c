// The request thread's end of the search engine's thread (engine-worker.ts): requests posted in
// order, each answered by one reply. A search waits behind at most MAX_WAITING_SEARCHES others;
// beyond that, or once the thread has failed, there is no engine answer and the caller answers with
// substring matching (and says so).
import { Worker } from "node:worker_threads";
import type { EngineReply, EngineRequest, EngineResults } from "./engine-protocol.js";
import type { SearchOutcome } from "./types.js";

/**
 * Searches sent to the engine's thread and not answered yet, at most (1-3 ms of its CPU each at 10k
 * listings, the model's work being on its own thread): past it a question is answered without the
 * engine, by substring. At 16, a burst of 150 distinct questions a second on 16 connections had half
 * its answers fall back to substring matching (and many of them empty).
 */
export const MAX_WAITING_SEARCHES = 64;

type Op = EngineRequest["op"];
type Args<K extends Op> = Omit<Extract<EngineRequest, { op: K }>, "id" | "op">;
type SearchOptions = Args<"search">["options"];

/** Built, the .js beside this file; under tsx (tests, tools) the .ts source, imported once tsx's loader is registered in the thread. */
function startWorker(): Worker {
  if (import.meta.url.endsWith(".js")) return new Worker(new URL("./engine-worker.js", import.meta.url));
  const source = new URL("./engine-worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((tsx) => tsx.tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}))`,
    { eval: true },
  );
}

export class EngineThread {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private searches = 0;
  private failure: Error | null = null;
  /** Whether the query encoder loaded (else the engine answers lexically), once the thread is up. */
  readonly loaded: Promise<{ encoder: boolean; error?: string | undefined }>;

  /** `onFailure`: told once if the thread stops or fails without close() (searches then answer without it). */
  constructor(private readonly onFailure: (error: Error) => void = () => {}) {
    this.worker = startWorker();
    this.loaded = new Promise((resolve, reject) =>
      this.waiting.set(0, { resolve: resolve as (value: unknown) => void, reject }),
    );
    this.loaded.catch(() => {});
    this.worker.on("message", (reply: EngineReply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      // The thread keeps the process alive only while an answer is awaited.
      if (this.waiting.size === 0) this.worker.unref();
      if (reply.error !== undefined) waiter.reject(new Error(`search engine: ${reply.error}`));
      else waiter.resolve(reply.result);
    });
    this.worker.on("error", (error) => this.fail(error));
    this.worker.on("exit", (code) => this.fail(new Error(`the search engine's thread stopped (exit code ${code})`)));
  }

  /** False once the thread has failed or been closed. */
  get usable(): boolean {
    return this.failure === null;
  }

  call<K extends Op>(op: K, args: Args<K>, transfer: ArrayBuffer[] = []): Promise<EngineResults[K]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<EngineResults[K]>((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, op, ...args }, transfer);
    });
  }

  /** The engine's answer, or null when too many searches wait already or the thread has failed (also while this one waited). */
  async search(query: string, options: SearchOptions): Promise<SearchOutcome | null> {
    if (this.failure || this.searches >= MAX_WAITING_SEARCHES) return null;
    this.searches++;
    try {
      return await this.call("search", { query, options });
    } catch (error) {
      // The thread died with this search in it: answered without the engine, like the next ones. An
      // error the engine raised for this search still throws.
      if (this.failure) return null;
      throw error;
    } finally {
      this.searches--;
    }
  }

  private fail(error: Error): void {
    if (this.failure === null) this.onFailure(error);
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(this.failure);
    this.waiting.clear();
  }

  async close(): Promise<void> {
    this.failure ??= new Error("the search engine's thread was closed");
    await this.worker.terminate();
  }
}
