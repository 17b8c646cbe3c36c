// Runs a batch of probes politely: at most `concurrency` at once, at most one per host at a time,
// and at least `hostGapMs` between the end of one probe of a host and the start of the next.
// A host's probes run in the order given; hosts take turns. The gap holds across batches through
// the caller's hostReadyAt map.

export interface PolitenessOptions {
  concurrency: number;
  hostGapMs: number;
  /** Stops starting probes (those in flight finish); the ones never started get no result. */
  signal?: AbortSignal;
  /**
   * When each host may be probed next (performance.now() time), kept by the caller across batches
   * so the gap holds from one batch to the next too; updated here.
   */
  hostReadyAt?: Map<string, number>;
}

export async function runPolitely<T, R>(
  items: T[],
  hostOf: (item: T) => string,
  work: (item: T) => Promise<R>,
  options: PolitenessOptions,
): Promise<Array<R | undefined>> {
  const results: Array<R | undefined> = new Array(items.length);
  const queues = new Map<string, number[]>();
  items.forEach((item, index) => {
    const host = hostOf(item);
    const queue = queues.get(host);
    if (queue) queue.push(index);
    else queues.set(host, [index]);
  });
  const readyAt = options.hostReadyAt ?? new Map<string, number>();
  const ready: string[] = [];
  let resting = 0;
  let active = 0;

  return new Promise((resolve) => {
    const rest = (host: string, ms: number) => {
      resting++;
      setTimeout(() => {
        resting--;
        ready.push(host);
        pump();
      }, ms);
    };
    const finishIfDone = () => {
      if (active === 0 && resting === 0 && (ready.length === 0 || options.signal?.aborted)) resolve(results);
    };
    const pump = () => {
      while (!options.signal?.aborted && active < options.concurrency && ready.length > 0) {
        const host = ready.shift()!;
        const index = queues.get(host)!.shift()!;
        active++;
        void work(items[index]!)
          .then(
            (result) => {
              results[index] = result;
            },
            () => {},
          )
          .finally(() => {
            active--;
            readyAt.set(host, performance.now() + options.hostGapMs);
            if (queues.get(host)!.length > 0) {
              if (options.hostGapMs > 0) rest(host, options.hostGapMs);
              else ready.push(host);
            }
            pump();
          });
      }
      finishIfDone();
    };
    const now = performance.now();
    for (const host of queues.keys()) {
      const wait = (readyAt.get(host) ?? 0) - now;
      if (wait > 0) rest(host, wait);
      else ready.push(host);
    }
    pump();
  });
}
