import { performance } from "node:perf_hooks";
import { HttpError } from "../contract/errors.js";
import { metrics } from "../metrics.js";

export interface WorkGateOptions {
  /** Work running at once, at most. */
  concurrency: number;
  /** Work waiting for a turn, at most; more is refused at once. */
  maxWaiting: number;
  /** How long work waits for a turn before it is refused. */
  maxWaitMs: number;
  /** The share of the CPU uncached work may take, over 0 up to 1 (1: no rest between turns). */
  share: number;
}

/**
 * Rest owed below which work still starts at once. Light traffic owes a little after each unit and
 * pays it back between units, so it never waits; a flood owes more than this after a few units and
 * is paced at `share` as before, after one allowance.
 */
export const REST_ALLOWANCE_MS = 250;

/**
 * The most of a unit's busy time that counts. It is the thread's busy time during the unit, so a
 * job's batch, a cold compile or another process holding the core while the unit ran counted as the
 * unit's; an uncached page or search costs a few ms. Past this, one request alone made the next,
 * sent after it, wait out its rest and meet 503 on a loaded machine.
 */
export const MAX_UNIT_BUSY_MS = 100;

/** Seconds a refused client is asked to wait: the queue drains in well under a second when it can. */
const RETRY_AFTER_SECONDS = 1;
const BUSY_MESSAGE = `The catalog is answering too many uncached requests right now; retry in ${RETRY_AFTER_SECONDS} s. Cached pages are not affected.`;

function busy(): HttpError {
  return new HttpError(503, "busy", BUSY_MESSAGE, undefined, { "Retry-After": String(RETRY_AFTER_SECONDS) });
}

/** Whether `error` is the gate's refusal (an MCP tool answers it as a tool error, not a failure). */
export const isBusy = (error: unknown): error is HttpError =>
  error instanceof HttpError && error.status === 503 && error.code === "busy";

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/**
 * A bound on the uncached catalog work of this instance, from every client together: the per-client
 * budget (QUERY_RATE_PER_CLIENT) stops one address, this stops many addresses each under it from
 * taking the request thread from the cached reads, which the response cache answers without a turn.
 *  - at most `concurrency` units run at once; the others wait in order, at most `maxWaitMs`, then
 *    are refused with 503 busy (at once when `maxWaiting` already wait);
 *  - after each unit the gate owes a rest so that uncached work keeps to `share` of the request thread:
 *    the time the thread was busy during the unit (its wall time times the event loop's utilisation,
 *    so time spent waiting for PostgreSQL does not count; at most MAX_UNIT_BUSY_MS) times
 *    (1 - share) / share. The rest owed
 *    runs down with wall time, and new work starts while it is under REST_ALLOWANCE_MS.
 */
export class WorkGate {
  private running = 0;
  private restUntil = 0;
  private wakeUp: NodeJS.Timeout | undefined;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: WorkGateOptions) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.turn();
    const loop = performance.eventLoopUtilization();
    // Rest still owed when the unit starts (within the allowance) is not paid back while it runs.
    const owedAtStart = Math.max(0, this.restUntil - performance.now());
    try {
      // SQLite reads are synchronous: work that began at once would run to its end before the next
      // socket is read, so the cached reads that arrived with it would wait behind it. Starting after
      // the poll phase answers them first.
      await new Promise((resolve) => setImmediate(resolve));
      return await work();
    } finally {
      // The request thread's busy time, not the process's CPU: the sentence model's thread (a first
      // ask's 40-100 ms, the backfill's batches) runs beside it at a lower priority, and counting it
      // rested the gate long enough that light traffic (4 requests a second) met 503 busy.
      const busyMs = performance.eventLoopUtilization(loop).active;
      const share = this.options.share;
      if (share < 1)
        this.restUntil =
          Math.max(this.restUntil, performance.now() + owedAtStart) +
          (Math.min(busyMs, MAX_UNIT_BUSY_MS) * (1 - share)) / share;
      this.running--;
      this.grantNext();
    }
  }

  /**
   * A lane of this gate: its units take turns one after another, so a batch (the requests of one
   * POST /mcp) waits in the queue as one, never as a hundred.
   */
  lane(): <T>(work: () => Promise<T>) => Promise<T> {
    let tail: Promise<unknown> = Promise.resolve();
    return (work) => {
      const next = tail.then(() => this.run(work));
      tail = next.catch(() => {});
      return next;
    };
  }

  private turn(): Promise<void> {
    if (this.running < this.options.concurrency && this.waiting.length === 0 && this.restOwed() <= 0) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxWaiting || this.options.maxWaitMs === 0) {
      metrics.uncachedRefusals.inc();
      return Promise.reject(busy());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          metrics.uncachedRefusals.inc();
          reject(busy());
        }, this.options.maxWaitMs),
      };
      this.waiting.push(waiter);
      this.grantNext();
    });
  }

  /** How long new work must still wait for the rest: the rest owed beyond the allowance. */
  private restOwed(): number {
    return this.restUntil - REST_ALLOWANCE_MS - performance.now();
  }

  /** Gives free turns to the longest waiting, now or when the rest is over. */
  private grantNext(): void {
    while (this.waiting.length > 0 && this.running < this.options.concurrency) {
      const wait = this.restOwed();
      if (wait > 0) {
        this.wakeUp ??= setTimeout(() => {
          this.wakeUp = undefined;
          this.grantNext();
        }, Math.ceil(wait));
        return;
      }
      this.running++;
      this.waiting.shift()!.grant();
    }
  }
}
