// Outbound webhook requests in flight, so that a slow subscriber cannot hold up the others: at most
// one request per subscription at a time, each holding one of a lane's few slots for a short budget
// only; an endpoint slower than that waits for its answer (up to the transport's deadline) outside
// the slots, where waiting costs a socket and no work, up to a cap.

export interface AttemptsOptions {
  /** How long one request may hold a slot before it waits outside the slots. */
  slotMs: number;
  /** Requests waiting outside the slots, at most; past it a request keeps its slot until it ends. */
  maxWaiting: number;
  /** A request that waited outside the slots failed to record its outcome (nobody awaits it). */
  onError(error: unknown): void;
}

export class AttemptsInFlight {
  private readonly busy = new Set<string>();
  private readonly waiting = new Set<Promise<void>>();

  constructor(private readonly options: AttemptsOptions) {}

  /** Whether a request for this subscription is in flight. */
  has(key: string): boolean {
    return this.busy.has(key);
  }

  /** Requests in flight, in slots or waiting outside them. */
  get size(): number {
    return this.busy.size;
  }

  /**
   * What `read` returns, less the subscriptions with a request in flight when it began or now: one
   * that ended while `read` ran may have been read before its outcome was written.
   */
  async notInFlight<T>(read: () => Promise<T[]>, key: (item: T) => string): Promise<T[]> {
    const before = new Set(this.busy);
    return (await read()).filter((item) => !before.has(key(item)) && !this.busy.has(key(item)));
  }

  /**
   * Sends each item's request (skipping a subscription with one in flight), `concurrency` at a time,
   * in order; resolves once every one has ended or waits outside the slots. Returns how many started.
   */
  async dispatch<T>(items: T[], key: (item: T) => string, concurrency: number, send: (item: T) => Promise<void>): Promise<number> {
    let started = 0;
    await eachConcurrently(items, concurrency, async (item) => {
      const id = key(item);
      if (this.busy.has(id)) return;
      this.busy.add(id);
      started++;
      const running = send(item).finally(() => this.busy.delete(id));
      if (this.waiting.size >= this.options.maxWaiting) return running;
      let timer: NodeJS.Timeout | undefined;
      const slotSpent = new Promise<"slow">((resolve) => {
        timer = setTimeout(() => resolve("slow"), this.options.slotMs);
      });
      const first = await Promise.race([running.then(() => "done" as const), slotSpent]);
      clearTimeout(timer);
      if (first === "slow") {
        const parked = running.catch((error: unknown) => this.options.onError(error));
        this.waiting.add(parked);
        void parked.finally(() => this.waiting.delete(parked));
      }
    });
    return started;
  }

  /** Resolves when a request waiting outside the slots ends, or after `ms`, whichever is first. */
  async someEnded(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([...this.waiting, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }
}

export async function eachConcurrently<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
