// Pauses one thread of a running process while its other threads go on: the backfill bench freezes
// the service's model thread so that reads with the backfill paused and running alternate in the
// same instance (a stopped process would stop its request thread too). Linux's cgroup v1 freezer
// takes single thread ids in its `tasks` file; it needs root and a writable freezer hierarchy.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FREEZER = "/sys/fs/cgroup/freezer";
/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = 100;

export interface ThreadStat {
  tid: number;
  /** User + system CPU so far, ms. */
  cpuMs: number;
  nice: number;
}

/** The threads of process `pid` with their CPU time and nice value (a thread gone meanwhile is left out). */
export function threadStats(pid: number): ThreadStat[] {
  const out: ThreadStat[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      out.push(threadStat(pid, tid));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

export function threadStat(pid: number, tid: number): ThreadStat {
  // Fields after the command's closing parenthesis: state is [0], utime [11], stime [12], nice [16].
  const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { tid, cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS, nice: Number(fields[16]) };
}

export class ThreadFreezer {
  private readonly dir: string;

  /** Why freezing cannot work here, or null when it can. */
  static unavailable(): string | null {
    if (process.platform !== "linux") return "not Linux";
    if (!existsSync(join(FREEZER, "tasks"))) return `no cgroup v1 freezer at ${FREEZER}`;
    if (process.getuid?.() !== 0) return "not root (the freezer's files are root's)";
    return null;
  }

  constructor(name: string) {
    this.dir = join(FREEZER, name);
    mkdirSync(this.dir, { recursive: true });
  }

  /** Freezes these threads (and keeps frozen any frozen before); resolves once the kernel says FROZEN. */
  async freeze(tids: number[]): Promise<void> {
    for (const tid of tids) writeFileSync(join(this.dir, "tasks"), String(tid));
    writeFileSync(join(this.dir, "freezer.state"), "FROZEN");
    for (let waited = 0; readFileSync(join(this.dir, "freezer.state"), "utf8").trim() !== "FROZEN"; waited += 10) {
      if (waited > 5000) throw new Error("the freezer did not reach FROZEN in 5 s");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  thaw(): void {
    writeFileSync(join(this.dir, "freezer.state"), "THAWED");
  }

  /** Thaws, gives the threads back to the root group and removes the group. */
  close(): void {
    if (!existsSync(this.dir)) return;
    this.thaw();
    const tids = readFileSync(join(this.dir, "tasks"), "utf8").split("\n").filter(Boolean);
    for (const tid of tids) {
      try {
        writeFileSync(join(FREEZER, "tasks"), tid);
      } catch {
        // The thread ended meanwhile.
      }
    }
    rmdirSync(this.dir);
  }
}
