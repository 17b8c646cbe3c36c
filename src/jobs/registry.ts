// Runs background jobs, each from one definition (job.ts): the server builds the list
// (src/background-jobs.ts), starts them all in one place and stops them all in one place.
// Never two runs of a job at once; timers are unref'd, so a job never keeps the process up;
// a failed run is logged and counted and the next one comes; stop() waits for runs in progress,
// so a shutdown does not cut a database write in half.
import type { Logger } from "../logger.js";
import { metrics, secondsSince } from "../metrics.js";
import type { JobDefinition, JobRun, JobStatus } from "./job.js";
import type { JobLeases } from "../storage/job-leases.js";

export interface JobRegistry {
  /** The declared jobs' names, in declaration order. */
  readonly names: readonly string[];
  /** Starts every job's timer; resolves once the jobs marked awaitFirstRun have run once (a failure of one of those rejects). */
  start(): Promise<void>;
  /** Stops the named jobs (default: all): no more timed runs; waits for runs in progress, then gives their leases up. */
  stop(names?: readonly string[]): Promise<void>;
  /** Runs `name` once now, after its run in progress if any. */
  runNow(name: string): Promise<JobRun>;
  status(): JobStatus[];
}

export interface JobRegistryDeps {
  logger: Logger;
  /** Required when a definition names a lease. */
  leases?: JobLeases;
}

/** An error as it may be shown: its code or class name, never its message (which may carry a URL or key). */
export function safeReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Za-z0-9_]{2,40}$/.test(code)) return code;
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" && /^[A-Za-z][A-Za-z0-9_]{1,40}$/.test(name) ? name : "error";
}

/**
 * A run starts without renewing its lease while this share of the lease time is still left: each run
 * then begins with at least that much of it, and renews before its commits as ever (JobContext).
 */
const LEASE_SPARE = 0.75;

class ScheduledJob {
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private running = false;
  /** Until when (performance.now() time) the job's lease is ours with time to spare, so a run need not renew it first. */
  private leaseFreshUntil = 0;
  private last: Omit<JobStatus, "name" | "running"> = {
    lastRunAt: null,
    lastDurationMs: null,
    lastError: null,
    lagSeconds: null,
  };

  constructor(
    readonly definition: JobDefinition,
    private readonly deps: JobRegistryDeps,
  ) {
    if (definition.lease && !deps.leases)
      throw new Error(`job ${definition.name} names a lease but the registry has no JobLeases`);
  }

  async start(): Promise<void> {
    const { intervalMs, awaitFirstRun, firstDelayMs } = this.definition;
    if (awaitFirstRun) {
      await this.enqueue(true);
      this.schedule(intervalMs);
    } else {
      this.schedule(firstDelayMs ?? 0);
    }
  }

  runNow(): Promise<JobRun> {
    return this.enqueue(false);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.current;
    const { lease } = this.definition;
    this.leaseFreshUntil = 0;
    if (lease) await this.deps.leases!.release(lease.name).catch(() => {});
  }

  status(): JobStatus {
    return { name: this.definition.name, running: this.running, ...this.last };
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.definition.intervalMs <= 0) return;
    this.timer = setTimeout(() => {
      void this.enqueue(false).then(() => {
        const { intervalMs } = this.definition;
        const jitter = Math.min(Math.max(this.definition.jitter ?? 0.1, 0), 1);
        this.schedule(intervalMs * (1 + jitter * (2 * Math.random() - 1)));
      });
    }, delayMs);
    this.timer.unref();
  }

  private enqueue(throwOnFailure: boolean): Promise<JobRun> {
    const run = this.current.then(() => this.execute(throwOnFailure));
    this.current = run.catch(() => undefined);
    return run;
  }

  private async execute(throwOnFailure: boolean): Promise<JobRun> {
    const { name, lease } = this.definition;
    const signal = this.abort.signal;
    if (signal.aborted) return { ran: false, reason: "stopped" };
    const renewLease = lease ? () => this.renewLease(lease) : () => Promise.resolve(true);
    const started = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    this.running = true;
    try {
      if (lease) {
        // A job polling every 2 s renewed a 30 s lease on each poll: a database write for nothing.
        const held = performance.now() < this.leaseFreshUntil || (await renewLease());
        metrics.jobLeaseHeld.set({ job: name }, held ? 1 : 0);
        if (!held) return { ran: false, reason: "lease_held_elsewhere" };
      }
      const result = await this.definition.run(signal, { renewLease });
      this.finished(started, cpuBefore, null);
      return { ran: true, ok: true, result };
    } catch (error) {
      if (throwOnFailure) throw error;
      const reason = safeReason(error);
      this.finished(started, cpuBefore, reason);
      if (!signal.aborted) {
        const every =
          this.definition.intervalMs > 0 ? `; it runs again in ${Math.round(this.definition.intervalMs / 1000)} s` : "";
        this.deps.logger.error({ err: error, job: name }, `${name} failed${every}`);
      }
      return { ran: true, ok: false, error: reason };
    } finally {
      this.running = false;
    }
  }

  /** Takes or renews the lease; while at least LEASE_SPARE of its time is left, the next run starts without renewing it. */
  private async renewLease(lease: { name: string; ttlMs: number }): Promise<boolean> {
    const asked = performance.now();
    const held = await this.deps.leases!.acquire(lease.name, lease.ttlMs);
    this.leaseFreshUntil = held ? asked + lease.ttlMs * (1 - LEASE_SPARE) : 0;
    return held;
  }

  private finished(started: bigint, cpuBefore: NodeJS.CpuUsage, error: string | null): void {
    const { name } = this.definition;
    const seconds = secondsSince(started);
    const cpu = process.cpuUsage(cpuBefore);
    metrics.jobCpu.inc({ job: name }, (cpu.user + cpu.system) / 1e6);
    const lagSeconds = this.definition.lagSeconds?.() ?? null;
    this.last = {
      lastRunAt: new Date(),
      lastDurationMs: Math.round(seconds * 1e6) / 1e3,
      lastError: error,
      lagSeconds,
    };
    metrics.jobRuns.inc({ job: name });
    metrics.jobDuration.observe({ job: name }, seconds);
    metrics.jobLastRun.set({ job: name }, Date.now() / 1000);
    metrics.jobLastRunFailed.set({ job: name }, error ? 1 : 0);
    if (error) metrics.jobFailures.inc({ job: name });
    if (lagSeconds !== null) metrics.jobLag.set({ job: name }, lagSeconds);
  }
}

export function createJobRegistry(definitions: readonly JobDefinition[], deps: JobRegistryDeps): JobRegistry {
  const jobs = new Map<string, ScheduledJob>();
  for (const definition of definitions) {
    if (jobs.has(definition.name)) throw new Error(`two jobs named ${definition.name}`);
    jobs.set(definition.name, new ScheduledJob(definition, deps));
  }
  const job = (name: string) => {
    const found = jobs.get(name);
    if (!found) throw new Error(`no job named ${name} (declared: ${[...jobs.keys()].join(", ")})`);
    return found;
  };
  return {
    names: [...jobs.keys()],
    start: async () => {
      // In declaration order: a job awaited at start runs before the ones declared after it begin.
      for (const scheduled of jobs.values()) await scheduled.start();
    },
    stop: async (names = [...jobs.keys()]) => {
      await Promise.all(names.map((name) => job(name).stop()));
    },
    runNow: (name) => job(name).runNow(),
    status: () => [...jobs.values()].map((scheduled) => scheduled.status()),
  };
}
