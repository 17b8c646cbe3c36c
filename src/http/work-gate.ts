import { HttpError } from "../contract/errors.js";
import { metrics } from "../metrics.js";

export interface WorkGateOptions {
  /** Work running at once, at most. */
  concurrency: number;
  /** Work waiting for a turn, at most; more is refused at once. */
  maxWaiting: number;
  /** How long work waits for a turn before it is refused. */
  maxWaitMs: number;
}

/** Seconds a refused client is asked to wait: the queue drains in well under a second when it can. */
const RETRY_AFTER_SECONDS = 1;

function busy(): HttpError {
  return new HttpError(
    503,
    "busy",
    `The catalog is answering too many uncached requests right now; retry in ${RETRY_AFTER_SECONDS} s. Cached pages are not affected.`,
    undefined,
    { "Retry-After": String(RETRY_AFTER_SECONDS) },
  );
}

/**
 * A bound on the uncached catalog work of this instance, from every client together: the per-client
 * budget (QUERY_RATE_PER_CLIENT) stops one address, this stops many addresses each under it from
 * taking the request thread from the cached reads, which the response cache answers without a turn.
 * Work past `concurrency` waits in order, at most `maxWaitMs`, then is refused with 503 busy.
 */
export class WorkGate {
  private running = 0;
  private readonly waiting: Array<{ grant: () => void; timer: NodeJS.Timeout }> = [];

  constructor(private readonly options: WorkGateOptions) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.turn();
    try {
      // SQLite reads are synchronous: work that began at once would run to its end before the next
      // socket is read, so no two would ever wait for each other and the bound would never hold.
      // Starting after the poll phase lets every request that arrived with it reach the gate (the
      // excess waits) and every cached read be answered first.
      await new Promise((resolve) => setImmediate(resolve));
      return await work();
    } finally {
      this.release();
    }
  }

  private turn(): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxWaiting || this.options.maxWaitMs === 0) {
      metrics.uncachedRefusals.inc();
      return Promise.reject(busy());
    }
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          metrics.uncachedRefusals.inc();
          reject(busy());
        }, this.options.maxWaitMs),
      };
      this.waiting.push(entry);
    });
  }

  /** The turn passes to the longest waiting, or is given back. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.running--;
  }
}
