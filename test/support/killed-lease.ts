// A job's lease left by a process killed with SIGKILL, as the instance that takes the job over sees
// it: the dead holder's, renewed during its work, running out within the lease's 30 s. The lease is
// not waited out: once checked, its end is moved to a moment ago, written as its holder would write
// it (JobLeases.acquire), so the takeover compares the production write's dates.
import { expect } from "vitest";
import { JobLeases } from "../../src/storage/job-leases.js";
import type { TestServer } from "./server.js";

const LEASE_MS = 30_000;

export async function expireKilledHoldersLease(
  survivor: TestServer,
  job: string,
  killed: { pid: number; startedAt: number; killedAt: number },
): Promise<void> {
  const lease = (await survivor.repositories.leases.holderOf(job))!;
  expect(lease.holder).toContain(`:${killed.pid}:`);
  expect(lease.expiresAt.getTime()).toBeGreaterThan(killed.startedAt);
  expect(lease.expiresAt.getTime()).toBeLessThanOrEqual(killed.killedAt + LEASE_MS);
  // While it lasts the survivor is turned away (checked only with time to spare: no race with its end).
  if (Date.now() < lease.expiresAt.getTime() - 5_000) {
    expect(await survivor.jobs.runNow(job)).toEqual({ ran: false, reason: "lease_held_elsewhere" });
  }
  await new JobLeases(survivor.database, lease.holder).acquire(job, 0, new Date(Date.now() - 1));
}
