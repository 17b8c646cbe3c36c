// The job registry: every declared job starts, runs on its timer, and stops; stop() waits for the run
// in progress; a job awaited at start has run before start() returns; a job off by configuration never
// runs on a timer; a job with a lease runs on one holder at a time. Then a real server with a chain:
// its four jobs are declared, run, and each shows its last run in /metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { JobDefinition } from "../../src/jobs/job.js";
import { JobLeases } from "../../src/storage/job-leases.js";
import { createJobRegistry } from "../../src/jobs/registry.js";
import { createLogger } from "../../src/logger.js";
import type { Payments } from "../../src/payments/setup.js";
import { runJob } from "../support/harness.js";
import { parseMetrics, sampleSum } from "../support/metrics.js";
import { chainPayments } from "../support/payments.js";
import { startTestServer, type TestServer } from "../support/server.js";

const logger = createLogger("silent");

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("job registry", () => {
  it("starts every declared job, awaits the first run of those that ask, keeps jobs off by configuration off, and stop() waits for a run in progress", async () => {
    const runs = { upkeep: 0, quick: 0, slow: 0, off: 0 };
    let slowFinished = false;
    const slowGate = gate();
    const definitions: JobDefinition[] = [
      {
        name: "upkeep",
        intervalMs: 60_000,
        awaitFirstRun: true,
        run: async () => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          runs.upkeep++;
        },
      },
      { name: "quick", intervalMs: 20, run: async () => void runs.quick++ },
      {
        name: "slow",
        intervalMs: 20,
        run: async () => {
          runs.slow++;
          await slowGate.opened;
          slowFinished = true;
        },
      },
      { name: "off", intervalMs: 0, run: async () => void runs.off++ },
    ];
    const registry = createJobRegistry(definitions, { logger });
    expect(registry.names).toEqual(["upkeep", "quick", "slow", "off"]);
    await registry.start();
    expect(runs.upkeep).toBe(1);
    await until(() => runs.quick >= 2 && runs.slow === 1, "the timed jobs to run");
    expect(registry.status().find((status) => status.name === "slow")).toMatchObject({ running: true });

    let stopped = false;
    const stopping = registry.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    slowGate.open();
    await stopping;
    expect(slowFinished).toBe(true);

    const after = { ...runs };
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(runs).toEqual(after);
    expect(runs.off).toBe(0);
    expect(await registry.runNow("quick")).toEqual({ ran: false, reason: "stopped" });
  });

  it("counts a failed run, reports it without its message, and runs the job again", async () => {
    let attempts = 0;
    const registry = createJobRegistry(
      [
        {
          name: "flaky",
          intervalMs: 0,
          run: async () => {
            attempts++;
            if (attempts === 1)
              throw Object.assign(new Error("connect https://secret-key@rpc.example/ refused"), {
                code: "ECONNREFUSED",
              });
            return "done";
          },
        },
      ],
      { logger },
    );
    await registry.start();
    expect(await registry.runNow("flaky")).toEqual({ ran: true, ok: false, error: "ECONNREFUSED" });
    expect(registry.status()[0]).toMatchObject({ lastError: "ECONNREFUSED" });
    expect(await registry.runNow("flaky")).toEqual({ ran: true, ok: true, result: "done" });
    expect(registry.status()[0]).toMatchObject({ lastError: null });
    await registry.stop();
  });

  it("a failed first run of a job awaited at start fails start()", async () => {
    const registry = createJobRegistry(
      [{ name: "seed", intervalMs: 1000, awaitFirstRun: true, run: () => Promise.reject(new Error("no seed")) }],
      { logger },
    );
    await expect(registry.start()).rejects.toThrow("no seed");
    await registry.stop();
  });
});

describe("a job with a lease, two holders on one database", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("runs on the holder of the lease only, and hands over when that holder stops", async () => {
    const ran: string[] = [];
    const job = (holder: string): JobDefinition => ({
      name: "leased",
      intervalMs: 0,
      lease: { name: "test-leased", ttlMs: 60_000 },
      run: async () => void ran.push(holder),
    });
    const a = createJobRegistry([job("a")], { logger, leases: new JobLeases(server.database, "holder-a") });
    const b = createJobRegistry([job("b")], { logger, leases: new JobLeases(server.database, "holder-b") });
    await Promise.all([a.start(), b.start()]);
    expect(await a.runNow("leased")).toMatchObject({ ran: true, ok: true });
    expect(await b.runNow("leased")).toEqual({ ran: false, reason: "lease_held_elsewhere" });
    await a.stop();
    expect(await b.runNow("leased")).toMatchObject({ ran: true, ok: true });
    expect(ran).toEqual(["a", "b"]);
    await b.stop();
  });

  it("does not write its lease before every run while most of the lease time is left, and stays the only holder", async () => {
    const job = (): JobDefinition => ({
      name: "polled",
      intervalMs: 0,
      lease: { name: "test-polled", ttlMs: 60_000 },
      run: async () => {},
    });
    const leases = new JobLeases(server.database, "holder-a");
    let writes = 0;
    const acquire = leases.acquire.bind(leases);
    leases.acquire = (...args) => {
      writes++;
      return acquire(...args);
    };
    const a = createJobRegistry([job()], { logger, leases });
    const b = createJobRegistry([job()], { logger, leases: new JobLeases(server.database, "holder-b") });
    for (let poll = 0; poll < 5; poll++) expect(await a.runNow("polled")).toMatchObject({ ran: true, ok: true });
    expect(writes).toBe(1);
    expect(await b.runNow("polled")).toEqual({ ran: false, reason: "lease_held_elsewhere" });
    await a.stop();
    expect(await b.runNow("polled")).toMatchObject({ ran: true, ok: true });
    await b.stop();
  });
});

describe("the server's jobs, with a chain", () => {
  let chain: LocalChain;
  let payments: Payments;
  let server: TestServer;

  beforeAll(async () => {
    chain = await startLocalChain({ buyers: 1 });
    payments = await chainPayments(chain);
    server = await startTestServer(
      {
        HEALTH_PROBE_INTERVAL_MS: "50",
        RECONCILE_INTERVAL_SECONDS: "1",
        USAGE_INTERVAL_SECONDS: "1",
        USAGE_CONFIRMATIONS: "0",
        TERM_EVENTS_INTERVAL_SECONDS: "1",
        WEBHOOK_INTERVAL_MS: "100",
      },
      { payments },
    );
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await payments?.close();
    await chain?.stop();
  });

  it("declares catalog upkeep, read-path upkeep, the reconciler, the health prober, the usage indexer, listing terms and webhook delivery, and /metrics shows each one's last run", async () => {
    expect([...server.jobs.names].sort()).toEqual([
      "catalog-upkeep",
      "health-prober",
      "listing-terms",
      "read-path-upkeep",
      "reconciler",
      "usage-indexer",
      "webhook-delivery",
    ]);
    const metrics = async () => parseMetrics(await (await server.fetch("/metrics")).text());
    // Upkeep ran before the server took traffic: its last run is there at once.
    expect(
      sampleSum(await metrics(), "x402_job_last_run_timestamp_seconds", { job: "catalog-upkeep" }),
    ).toBeGreaterThan(0);
    await until(async () => {
      const samples = await metrics();
      return server.jobs.names.every((job) => sampleSum(samples, "x402_job_last_run_timestamp_seconds", { job }) > 0);
    }, "every job's last run in /metrics");
    const samples = await metrics();
    for (const job of server.jobs.names) {
      expect(sampleSum(samples, "x402_job_runs_total", { job })).toBeGreaterThan(0);
      expect(sampleSum(samples, "x402_job_duration_seconds_count", { job })).toBeGreaterThan(0);
      expect(sampleSum(samples, "x402_job_failures_total", { job })).toBe(0);
    }
    expect(sampleSum(samples, "x402_job_lease_held", { job: "usage-indexer" })).toBe(1);
    expect([...samples.keys()].some((key) => key.startsWith('x402_job_lag_seconds{job="usage-indexer"'))).toBe(true);
    expect(await runJob(server, "reconciler")).toMatchObject({
      ran: true,
      ok: true,
      result: { activated: 0, failed: 0, waiting: 0 },
    });
  }, 60_000);
});
