// A background job's loop: runs `run` now and then every interval (with jitter, so instances that
// started together do not probe or poll in step), never two runs at once, never blocking a request
// (timers are unref'd; a failed run is logged and the next one comes). stop() waits for the run
// in progress, so a shutdown does not cut a database write in half.
import type { Logger } from "../logger.js";

export interface PeriodicJob {
  /** Stops scheduling and waits for the run in progress. */
  stop(): Promise<void>;
  /** Runs once more now (after the run in progress): tests and "refresh" requests. */
  runNow(): Promise<void>;
}

export interface PeriodicOptions {
  name: string;
  intervalMs: number;
  /** Each wait is intervalMs plus or minus this share of it (0 to 1); default 0.1. */
  jitter?: number;
  /** Wait before the first run (default 0: at once). */
  firstDelayMs?: number;
  logger: Logger;
  run(signal: AbortSignal): Promise<void>;
}

export function startPeriodic(options: PeriodicOptions): PeriodicJob {
  const { name, intervalMs, logger } = options;
  const jitter = Math.min(Math.max(options.jitter ?? 0.1, 0), 1);
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;

  const once = (): Promise<void> => {
    current = current.then(async () => {
      if (abort.signal.aborted) return;
      try {
        await options.run(abort.signal);
      } catch (error) {
        if (!abort.signal.aborted) logger.error({ err: error, job: name }, `${name} failed; it runs again in ${Math.round(intervalMs / 1000)} s`);
      }
    });
    return current;
  };
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void once().then(() => schedule(intervalMs * (1 + jitter * (2 * Math.random() - 1))));
    }, delayMs);
    timer.unref();
  };
  schedule(options.firstDelayMs ?? 0);

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      abort.abort();
      await current;
    },
    runNow: () => once(),
  };
}
