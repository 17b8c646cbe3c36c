// What every process-level run must show: steady correct answers for at least a minute, no
// error-level log line, and a clean stop on SIGTERM.
import { expect } from "vitest";
import type { ServiceProcess } from "../support/process.js";
import type { TrafficReport } from "../support/traffic.js";

/** How long each run serves light traffic before it is stopped. */
export const RUN_MS = 60_000;
/** Per test: a run of RUN_MS plus start-up, a paid listing and the stop, on a busy 2-core machine. */
export const TEST_TIMEOUT_MS = 150_000;

export const sleepUntil = (time: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, time - Date.now())));

/** Every service still runs after RUN_MS, every request of the run got a right answer, nothing was logged at error level. */
export function expectSteadyRun(services: ServiceProcess[], report: TrafficReport, ranMs: number): void {
  expect(ranMs).toBeGreaterThanOrEqual(RUN_MS);
  for (const service of services) {
    expect(service.exit, `the service at ${service.url} exited during the run:\n${service.stderr()}`).toBeNull();
    expect(service.problems()).toEqual([]);
  }
  expect(report.failures).toEqual([]);
  // About 4 requests a second over a minute, every kind of request many times.
  expect(report.requests).toBeGreaterThanOrEqual(150);
  expect(
    Object.values(report.perRoute).every((count) => count >= 10),
    JSON.stringify(report.perRoute),
  ).toBe(true);
}

/** SIGTERM: npm start exits 0 within a few seconds, the service logs "stopped", nothing of the group is left. */
export async function expectCleanStop(service: ServiceProcess): Promise<void> {
  const result = await service.stop();
  // On failure, say what the service last logged and printed.
  const context = `last log lines: ${JSON.stringify(service.logs.slice(-5))}\nstderr: ${service.stderr().slice(-2000)}`;
  expect(result, context).toMatchObject({ code: 0, signal: null, leftovers: [] });
  expect(result.ms, context).toBeLessThan(5_000);
  const messages = service.logs.map((log) => log.msg);
  expect(messages, context).toContain("shutting down");
  expect(messages.at(-1), context).toBe("stopped");
  expect(service.problems(), context).toEqual([]);
}
