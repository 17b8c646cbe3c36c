// What tests reach into a running server for, kept out of the production objects: running a
// background job now (and reading its report), stopping one job, the stores, and the contract's
// validator for checking every answer (test/support/contract-check.ts).
import type { OpenAPIBackend } from "openapi-backend";
import { loadContract } from "../../src/contract/load.js";
import { createContractBackend } from "../../src/http/router.js";
import type { RunningServer } from "../../src/server.js";
import type { JobRun } from "../../src/jobs/job.js";
import type { PassReport } from "../../src/usage/indexer.js";
import type { UsageStore } from "../../src/usage/usage-store.js";

/** Runs the declared job `name` once now (after its run in progress) and returns how it went; a failed run does not throw. */
export function runJob<Result = unknown>(server: RunningServer, name: string): Promise<JobRun<Result>> {
  return server.jobs.runNow(name) as Promise<JobRun<Result>>;
}

/** One usage indexer pass now: its report, or null when another instance holds the indexer's lease (or the pass failed). */
export async function runUsagePass(server: RunningServer): Promise<PassReport | null> {
  const run = await runJob<PassReport>(server, "usage-indexer");
  return run.ran && run.ok ? run.result : null;
}

/** Stops one job (waiting for its run in progress and giving its lease up) while the server keeps serving. */
export function stopJob(server: RunningServer, name: string): Promise<void> {
  return server.jobs.stop([name]);
}

export function usageStore(server: RunningServer): UsageStore {
  return server.repositories.usage;
}

let backend: Promise<OpenAPIBackend> | undefined;

/** openapi-backend over the contract, as the router validates requests with it; one per test process. */
export function contractApi(): Promise<OpenAPIBackend> {
  return (backend ??= createContractBackend(loadContract()));
}
