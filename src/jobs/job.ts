// What a background job is: one definition. The registry (registry.ts) runs every definition the
// same way: on an unref'd timer with jitter, one run at a time, under a database lease when it
// names one, timed and counted in /metrics; stop() waits for the run in progress.
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";

export interface JobContext {
  /**
   * Renews the job's lease (true: still ours). A long run calls it before each commit, so an
   * instance that lost the lease stops writing. Always true for a job without a lease.
   */
  renewLease(): Promise<boolean>;
}

export interface JobDefinition<Result = unknown> {
  /** Lower-case words joined by "-": the `job` label in /metrics and the name in logs. */
  name: string;
  /** Wait between runs; 0 or less: never on a timer (runs only when asked, see JobRegistry.runNow). */
  intervalMs: number;
  /** Each wait is intervalMs plus or minus this share of it (0 to 1); default 0.1. */
  jitter?: number;
  /** Wait before the first timed run; default 0 (at once). */
  firstDelayMs?: number;
  /** The first run completes (or throws) before JobRegistry.start() returns: the server takes no traffic before it. */
  awaitFirstRun?: boolean;
  /** Runs on one instance at a time across every instance sharing the database: taken (or renewed) before each run. */
  lease?: { name: string; ttlMs: number };
  /** How far behind the job is after a run, in seconds, when the job has a notion of lag (null: unknown yet). */
  lagSeconds?(): number | null;
  /** One run. `signal` aborts at stop(): a long run checks it between steps and returns. */
  run(signal: AbortSignal, context: JobContext): Promise<Result>;
}

/** One run asked for through JobRegistry.runNow(). */
export type JobRun<Result = unknown> =
  | { ran: true; ok: true; result: Result }
  | { ran: true; ok: false; error: string }
  /** Not run: the lease is held by another instance, or the job was stopped. */
  | { ran: false; reason: "lease_held_elsewhere" | "stopped" };

/** A job's last run as this instance saw it. */
export interface JobStatus {
  name: string;
  /** When the last run (this instance's) finished; null before the first. */
  lastRunAt: Date | null;
  lastDurationMs: number | null;
  /** Why the last run failed, safe to show (an error code or class, never its message); null when it succeeded. */
  lastError: string | null;
  lagSeconds: number | null;
  running: boolean;
}

/**
 * What every job may use, given once by src/background-jobs.ts (the composition). A job that needs
 * more (an area's service, or the stores it uses out of `repositories`, src/repositories.ts) names
 * it beside these in its own `BackgroundJob<...>` type: jobs/ sits below the areas whose stores
 * those are, so it names none of them.
 */
export interface JobBasics {
  config: Config;
  logger: Logger;
  /** The clock every read and write uses (tests move it). */
  now(): Date;
}

/**
 * A job as its area exports it (`<area>/job.ts`): its name, and how it is made from the services
 * it names (interval from its configuration key, lease or not, `run`). src/background-jobs.ts lists
 * each one on a line and makes it once with the server's services.
 */
export interface BackgroundJob<Services extends JobBasics = JobBasics> {
  /** Lower-case words joined by "-": the `job` label in /metrics and the name in logs. */
  name: string;
  /** The job's definition; null: off with this configuration (no chain, no sources, ...). */
  create: (services: Services) => Omit<JobDefinition, "name"> | null;
}
