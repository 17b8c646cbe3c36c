// Runs a batch of probes politely: at most `concurrency` at once, at most one per host at a time,
// and at least `hostGapMs` between the end of one probe of a host and the start of the next.
// A host's probes run in the order given; hosts take turns.

export interface PolitenessOptions {
  concurrency: number;
  hostGapMs: number;
  /** Stops starting probes (those in flight finish); the ones never started get no result. */
  signal?: AbortSignal;
}

export async function runPolitely<T, R>(items: T[], hostOf: (item: T) => string, work: (item: T) => Promise<R>, options: PolitenessOptions): Promise<Array<R | undefined>> {
  const results: Array<R | undefined> = new Array(items.length);
  const queues = new Map<string, number[]>();
  items.forEach((item, index) => {
    const host = hostOf(item);
    const queue = queues.get(host);
    if (queue) queue.push(index);
    else queues.set(host, [index]);
  });
  const ready = [...queues.keys()];
  let resting = 0;
  let active = 0;

  return new Promise((resolve) => {
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
            if (queues.get(host)!.length > 0) {
              if (options.hostGapMs > 0) {
                resting++;
                setTimeout(() => {
                  resting--;
                  ready.push(host);
                  pump();
                }, options.hostGapMs);
              } else ready.push(host);
            }
            pump();
          });
      }
      finishIfDone();
    };
    pump();
  });
}
