// The database's share of a request's CPU.
// - SQLite runs inside the service's process, so its CPU cannot be told apart there: the bench
//   makes the same catalog reads itself (the service's CatalogReads, on a read-only connection like
//   the service's, same memo per catalog state) for fresh inputs of the scenario, and times the SQL.
// - PostgreSQL runs in backends of its own: the CPU of those serving the service's connections
//   (found by application_name in pg_stat_activity, read from /proc/<pid>/stat). pg_stat_statements
//   would need shared_preload_libraries, which a shared server seldom has.
import { readFileSync } from "node:fs";
import pg from "pg";
import { CatalogReads } from "../../src/storage/catalog/catalog-reads.js";
import { openSqliteReader, type CatalogReader } from "../../src/storage/catalog-reader.js";
import { StateMemo } from "../../src/storage/catalog/state-memo.js";
import { readOf, type Scenario } from "./scenarios.js";

const CLOCK_TICKS = 100;

export interface SqliteDbTimer {
  /** Milliseconds of CPU the scenario's reads spend in SQLite, per request, over `count` fresh inputs after as many to warm up. */
  msPerRequest(scenario: Scenario, count: number): Promise<number>;
  close(): void;
}

export function sqliteDbTimer(file: string): SqliteDbTimer {
  const inner = openSqliteReader(file);
  let spentMicros = 0;
  const timed: CatalogReader = {
    // better-sqlite3 runs a statement synchronously: the process's CPU across the call is the statement's.
    rows: async (sql) => {
      const before = process.cpuUsage();
      const rows = await inner.rows(sql);
      const used = process.cpuUsage(before);
      spentMicros += used.user + used.system;
      return rows;
    },
    close: () => inner.close(),
  };
  const reads = new CatalogReads("sqlite", timed, new StateMemo({ maxWeight: 8192 }));
  const token = "bench";
  return {
    async msPerRequest(scenario, count) {
      for (let i = 0; i < count; i++) await readOf(scenario.nextPath())(reads, new Date(), token);
      spentMicros = 0;
      for (let i = 0; i < count; i++) await readOf(scenario.nextPath())(reads, new Date(), token);
      return spentMicros / 1000 / count;
    },
    close: () => timed.close(),
  };
}

function cpuMsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined; // gone, or not on this machine
  }
}

export interface BackendCpu {
  /** Starts following the backends; returns a function that stops and gives their CPU ms since. */
  follow(): () => Promise<number>;
  close(): Promise<void>;
}

/** Follows the PostgreSQL backends whose application_name is `applicationName` (they must run on this machine). */
export async function postgresBackendCpu(adminUrl: string, applicationName: string): Promise<BackendCpu> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const pids = async () =>
    (
      await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [
        applicationName,
      ])
    ).rows.map((row) => row.pid);
  return {
    follow() {
      // Per backend: CPU when first seen (0 for one that starts during the run) and when last seen.
      const first = new Map<number, number>();
      const last = new Map<number, number>();
      const sample = async (initial: boolean) => {
        for (const pid of await pids()) {
          const cpu = cpuMsOf(pid);
          if (cpu === undefined) continue;
          if (!first.has(pid)) first.set(pid, initial ? cpu : 0);
          last.set(pid, cpu);
        }
      };
      const started = sample(true);
      let sampling = Promise.resolve();
      const timer = setInterval(() => {
        sampling = sampling.then(() => sample(false)).catch(() => {});
      }, 250);
      return async () => {
        clearInterval(timer);
        await started;
        await sampling;
        await sample(false);
        let total = 0;
        for (const [pid, cpu] of last) total += cpu - first.get(pid)!;
        return total;
      };
    },
    close: () => client.end(),
  };
}
