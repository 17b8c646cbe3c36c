// Outbound webhook requests, so that a slow subscriber cannot hold up the others: lanes of queued
// requests, each served by a few workers (its slots); at most one request per subscription at a
// time; a request holds its slot for a short budget only, and an endpoint slower than that waits for
// its answer (up to the transport's deadline) outside the slots, where waiting costs a socket and no
// work, up to a cap. A lane's queue is replaced by each fresh read of what is due, in its order, so a
// healthy subscriber's new event goes ahead of requests queued earlier for hanging ones.

export interface AttemptsOptions {
  /** How long one request may hold a slot before it waits outside the slots. */
  slotMs: number;
  /** Requests waiting outside the slots, at most; past it a request keeps its slot until it ends. */
  maxWaiting: number;
  /** A request's outcome could not be recorded (a database error): logged, and the request is due again. */
  onError(error: unknown): void;
}

interface Queued {
  key: string;
  /** Sends the request and records its outcome; true when the subscription stays busy until `release(key)`. */
  send(): Promise<boolean>;
}

interface Lane {
  queue: Queued[];
  workers: number;
}

export class AttemptsInFlight {
  /** Subscriptions with a request started and its outcome not yet recorded. */
  private readonly busy = new Set<string>();
  /** Of those, the ones whose request ended and whose caller records the outcome (then `release`). */
  private readonly held = new Set<string>();
  private readonly waiting = new Set<Promise<void>>();
  private readonly lanes = new Map<string, Lane>();
  private wake: (() => void) | null = null;

  constructor(private readonly options: AttemptsOptions) {}

  /** Requests started and not yet recorded, plus requests queued. */
  get size(): number {
    let queued = 0;
    for (const lane of this.lanes.values()) queued += lane.queue.length;
    return this.busy.size + queued;
  }

  /**
   * What `read` returns, less the subscriptions with a request started when it began or now: one
   * that ended while `read` ran may have been read before its outcome was written.
   */
  async notInFlight<T>(read: () => Promise<T[]>, key: (item: T) => string): Promise<T[]> {
    const before = new Set(this.busy);
    return (await read()).filter((item) => !before.has(key(item)) && !this.busy.has(key(item)));
  }

  /**
   * Makes `items` the lane's queue, in their order (replacing what was queued and not started), and
   * starts up to `concurrency` workers on it. Returns how many of them were not queued before.
   */
  offer<T>(
    lane: string,
    items: T[],
    key: (item: T) => string,
    concurrency: number,
    send: (item: T) => Promise<boolean>,
  ): number {
    const state = this.lanes.get(lane) ?? { queue: [], workers: 0 };
    this.lanes.set(lane, state);
    const before = new Set(state.queue.map((queued) => queued.key));
    const seen = new Set<string>();
    state.queue = [];
    for (const item of items) {
      const id = key(item);
      if (this.busy.has(id) || seen.has(id)) continue;
      seen.add(id);
      state.queue.push({ key: id, send: () => send(item) });
    }
    while (state.workers < concurrency && state.workers < state.queue.length) void this.work(state);
    return state.queue.filter((queued) => !before.has(queued.key)).length;
  }

  /** Frees a subscription whose outcome `send` left to its caller to record (true), once recorded. */
  release(key: string): void {
    this.busy.delete(key);
    this.held.delete(key);
    this.nudgeWhenQuiet();
  }

  /** Forgets what is queued and not started (the requests started go on and record their outcome). */
  dropQueued(): void {
    for (const lane of this.lanes.values()) lane.queue = [];
  }

  /** Resolves when a lane's queue empties or every started request has ended, or after `ms`, whichever is first. */
  async change(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
    this.wake = null;
  }

  private nudge(): void {
    this.wake?.();
  }

  private nudgeWhenQuiet(): void {
    if (this.busy.size === this.held.size) this.nudge();
  }

  private async work(lane: Lane): Promise<void> {
    lane.workers++;
    try {
      for (let next = lane.queue.shift(); next; next = lane.queue.shift()) {
        if (lane.queue.length === 0) this.nudge();
        const { key } = next;
        if (this.busy.has(key)) continue;
        this.busy.add(key);
        const running = next.send().then(
          (held) => {
            if (!held) return this.release(key);
            this.held.add(key);
            this.nudgeWhenQuiet();
          },
          (error: unknown) => {
            this.release(key);
            this.options.onError(error);
          },
        );
        if (this.waiting.size >= this.options.maxWaiting) {
          await running;
          continue;
        }
        let timer: NodeJS.Timeout | undefined;
        const slotSpent = new Promise<"slow">((resolve) => {
          timer = setTimeout(() => resolve("slow"), this.options.slotMs);
        });
        const first = await Promise.race([running.then(() => "done" as const), slotSpent]);
        clearTimeout(timer);
        if (first === "slow") {
          this.waiting.add(running);
          void running.finally(() => this.waiting.delete(running));
        }
      }
    } finally {
      lane.workers--;
    }
  }
}
