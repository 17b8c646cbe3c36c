// The worker pool (piscina) that takes CPU-heavy steps of requests anyone can send off the request
// thread: an owner signature's ECDSA recovery costs 5-15 ms of pure JavaScript, and a flood of junk
// signatures run on the request thread stalled every other route. The pool bounds the work waiting
// for a thread (maxQueue): beyond it a recovery is refused at once (WorkBusyError, answered 503 with
// Retry-After) rather than queued without end.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import type { Hex, TypedDataDefinition } from "viem";
import { recoverSigner, type WorkTask } from "./tasks.js";

export class WorkBusyError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super("too much signature work in progress");
    this.name = "WorkBusyError";
  }
}

export interface WorkPool {
  /** The address that signed `typedData`, or null when the signature is no valid signature of it. */
  recoverTypedDataAddress(typedData: TypedDataDefinition, signature: Hex): Promise<Hex | null>;
  /** Tasks running or waiting, for metrics and tests. */
  readonly pending: number;
  close(): Promise<void>;
}

/**
 * The worker module: the compiled `tasks.js` beside this file under dist/ (npm start), or, when this
 * module runs from its TypeScript source (tsx, vitest), `tasks.ts` loaded through tsx's loader.
 */
function workerModule(): { filename: string; execArgv: string[] } {
  const compiled = import.meta.url.endsWith(".js");
  const filename = fileURLToPath(new URL(compiled ? "./tasks.js" : "./tasks.ts", import.meta.url));
  return { filename, execArgv: compiled ? [] : ["--import", "tsx"] };
}

/** Recovery on the calling thread: WORKER_THREADS=0, and callers built without a pool (the CLI, unit tests). */
export function inlineWorkPool(): WorkPool {
  return {
    recoverTypedDataAddress: (typedData, signature) =>
      recoverSigner({ kind: "recoverTypedDataAddress", typedData, signature }),
    pending: 0,
    close: async () => {},
  };
}

export function createWorkPool(options: { threads: number; maxQueue: number }): WorkPool {
  if (options.threads === 0) return inlineWorkPool();
  const { filename, execArgv } = workerModule();
  const pool = new Piscina<WorkTask, Hex | null>({
    filename,
    execArgv,
    minThreads: 0,
    maxThreads: Math.max(1, Math.min(options.threads, availableParallelism())),
    maxQueue: options.maxQueue,
    // Threads start on the first recovery (most instances never see one) and stop after a minute idle.
    idleTimeout: 60_000,
    // Each thread loads viem: a small heap is enough and keeps the instance's memory bounded.
    resourceLimits: { maxOldGenerationSizeMb: 64 },
    // A lower CPU priority (Linux nice 10, per thread): on a machine with few cores, a flood of
    // recoveries gets little more than the CPU the request thread leaves, instead of an even share.
    // Not 19: on a busy shared host that starves even an owner's own claim (and the thread's start).
    niceIncrement: 10,
  });
  let running = 0;
  return {
    async recoverTypedDataAddress(typedData, signature) {
      if (pool.queueSize >= options.maxQueue) throw new WorkBusyError(1);
      running++;
      try {
        return await pool.run({ kind: "recoverTypedDataAddress", typedData, signature });
      } catch (error) {
        if (error instanceof Error && /queue is at limit/i.test(error.message)) throw new WorkBusyError(1);
        throw error;
      } finally {
        running--;
      }
    },
    get pending() {
      return running;
    },
    close: () => pool.destroy(),
  };
}

/** A module the document pool runs: its default export takes the task; `inline` is the same function, for WORKER_THREADS=0. */
export interface TaskModule<In, Out> {
  /** The module's file: `moduleBeside(import.meta.url, name)` from the module that defines the task. */
  filename: string;
  inline(task: In): Promise<Out>;
}

/** A module beside `base` (a module's import.meta.url): compiled `.js` under dist/, `.ts` from the source (tsx, vitest). */
export function moduleBeside(base: string, name: string): string {
  return fileURLToPath(new URL(`./${name}.${base.endsWith(".js") ? "js" : "ts"}`, base));
}

/**
 * Large documents parsed and hashed off the event loop (a mirrored marketplace's snapshot, up to
 * INDEX_MAX_SNAPSHOT_BYTES): one thread, started for a document and stopped a second after it, so
 * the few hundred MB a 64 MiB document's parse takes are given back (measured: RSS 719 MiB held for
 * as long as the thread lived, 428 MiB once it stopped); its heap bounded (`heapMb`): a document
 * that needs more ends its thread and is refused.
 */
export interface DocumentPool {
  /** `transfer`: buffers moved to the thread (the caller no longer uses them). */
  run<In, Out>(module: TaskModule<In, Out>, task: In, transfer?: ArrayBuffer[]): Promise<Out>;
  close(): Promise<void>;
}

export function createDocumentPool(options: { threads: number; heapMb: number }): DocumentPool {
  if (options.threads === 0) return { run: (module, task) => module.inline(task), close: async () => {} };
  const { execArgv } = workerModule();
  const fromSource = !import.meta.url.endsWith(".js");
  const sourceLoader = moduleBeside(import.meta.url, "source-loader");
  const pool = new Piscina({
    execArgv,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 1000,
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb },
    niceIncrement: 10,
  });
  return {
    run: (module, task, transfer = []) =>
      fromSource
        ? pool.run({ filename: module.filename, task }, { filename: sourceLoader, transferList: transfer })
        : pool.run(task, { filename: module.filename, transferList: transfer }),
    close: () => pool.destroy(),
  };
}
