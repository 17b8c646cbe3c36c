// Runs a batch of probes politely: at most `concurrency` at once, at most one per host at a time,
// and at least `hostGapMs` between the end of one probe of a host and the start of the next.
// A host's probes run in the order given; hosts take turns. The gap holds across batches through
// the caller's hostReadyAt map. With a pace (the instance's probe budget), probes also start at
// least its gap apart, whatever their hosts.

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
  /** The instance's probe budget: probes start at least `gapMs` apart, held across batches like hostReadyAt. */
  pace?: Pace;
}

/** Starts spaced at least gapMs apart; nextStartAt (performance.now() time) is updated here. */
export interface Pace {
  gapMs: number;
  nextStartAt: number;
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
  let paceTimer: NodeJS.Timeout | undefined;

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
      if (active === 0 && resting === 0 && (ready.length === 0 || options.signal?.aborted)) {
        clearTimeout(paceTimer);
        resolve(results);
      }
    };
    /** Whether the budget lets a probe start now; if not, pump runs again when it does. */
    const paced = (): boolean => {
      const { pace } = options;
      if (!pace) return true;
      const now = performance.now();
      if (pace.nextStartAt > now) {
        paceTimer ??= setTimeout(() => {
          paceTimer = undefined;
          pump();
        }, pace.nextStartAt - now);
        return false;
      }
      pace.nextStartAt = Math.max(now, pace.nextStartAt) + pace.gapMs;
      return true;
    };
    const pump = () => {
      while (!options.signal?.aborted && active < options.concurrency && ready.length > 0 && paced()) {
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
