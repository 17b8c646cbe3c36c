import type { BackgroundJob, JobBasics } from "../jobs/job.js";
import { TICK_MS, type HealthProber } from "./prober.js";

/** The prober's rounds (off when HEALTH_PROBE_INTERVAL_MS is 0); the first tick comes after one tick time, not at start. */
export const healthProberJob: BackgroundJob<JobBasics & { prober: HealthProber }> = {
  name: "health-prober",
  create: ({ config, prober }) => {
    const { intervalMs } = config.health;
    const tickMs = intervalMs > 0 ? Math.min(intervalMs, TICK_MS) : 0;
    return { intervalMs: tickMs, firstDelayMs: tickMs, run: (signal) => prober.runRound(signal) };
  },
};
