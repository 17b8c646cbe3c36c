import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalChain } from "../../src/chain/local-chain.js";

export interface BenchServer {
  url: string;
  /** The server's process id (its main thread's id too: /proc/<pid>/task/<pid>). */
  pid: number;
  /** Resident set size of the server process, in MiB. */
  rssMiB(): number;
  /** CPU time the server process has used so far (user + system), in ms: per request, steadier than req/s on a shared machine. */
  cpuMs(): number;
  /** CPU time (ms) so far of the main thread ("main") and of the others by name (/proc/<pid>/task/<tid>/comm; Node 20 names them all "node"). */
  cpuMsByThread(): Map<string, number>;
  /** Ends the process; resolves when it has exited. */
  stop(): Promise<void>;
}

/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = 100;

/**
 * The command of `npm start`, so the service is measured exactly as it runs. What the script runs
 * before it (`node tools/build.mjs --if-stale &&`: the compiled build) runs here first.
 */
function startCommand(cwd: string): { args: string[]; env: Record<string, string> } {
  const { scripts } = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")) as { scripts: { start: string } };
  const steps = scripts.start.split("&&").map((step) => step.trim());
  const service = steps.pop()!;
  for (const step of steps) execFileSync("sh", ["-c", step], { cwd, stdio: ["ignore", "ignore", "inherit"] });
  const words = service.split(/\s+/);
  // Settings the script gives node's environment (NAME=value before the command: glibc's malloc).
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split("=");
    env[name!] = value.join("=");
  }
  const [node, ...args] = words;
  if (node !== "node") throw new Error(`npm start should run node directly, not ${node}`);
  return { args, env };
}

async function firstLine(child: ChildProcess, matches: (line: string) => boolean): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    if (!matches(line)) continue;
    // Keep reading what it prints after: a full pipe would stall the server.
    lines.close();
    child.stdout!.resume();
    return line;
  }
  throw new Error("the server exited before it was listening");
}

/** Starts a server in its own process: bare node:http or Koa (tools/bench/serve.ts), or the service as `npm start` runs it. */
export async function serve(
  kind: "node" | "koa" | "app",
  args: string[] = [],
  env: Record<string, string> = {},
  cwd = process.cwd(),
): Promise<BenchServer> {
  const start =
    kind === "app" ? startCommand(cwd) : { args: ["--import", "tsx", "tools/bench/serve.ts", kind, ...args], env: {} };
  const child = spawn(process.execPath, start.args, {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
    // Every bench's load comes from this one address: the per-client query limit (searches, MCP, A2A)
    // would refuse most of it, so it is out of reach unless the bench sets it. So is the bound on
    // uncached work, which would cap the throughput the other benches measure (bench:flood sets it).
    env: {
      ...process.env,
      PORT: "0",
      LOG_LEVEL: "info",
      LOAD_SEED: "false",
      QUERY_RATE_PER_CLIENT: "1000000",
      UNCACHED_CONCURRENCY: "1000",
      UNCACHED_SHARE: "1",
      ...start.env,
      ...env,
    },
  });
  const line = await firstLine(child, (text) => text.includes('"url"'));
  const { url } = JSON.parse(line) as { url: string };
  const pid = child.pid!;
  return {
    url,
    pid,
    rssMiB: () => {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
    },
    cpuMs: () => {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    },
    cpuMsByThread: () => {
      const byName = new Map<string, number>();
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        try {
          const name =
            Number(tid) === pid
              ? "main"
              : `other threads (${readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim()})`;
          const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
          byName.set(name, (byName.get(name) ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
        } catch {
          // The thread ended between the listing and the read.
        }
      }
      return byName;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill();
      }),
  };
}

/** Writes bytes to a temporary file for `serve node|koa`. */
export function bodyFile(bytes: string | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), "bench-body-")), "body");
  writeFileSync(path, bytes);
  return path;
}

/**
 * `BENCH_BASELINE=<git revision>`: a checkout of that revision (sharing this node_modules), so a
 * benchmark measures the service as it was beside the service as it is, in the same run.
 */
export function baselineCheckout(): { ref: string; dir: string; remove(): void } | null {
  const ref = process.env.BENCH_BASELINE;
  if (!ref) return null;
  const dir = join(mkdtempSync(join(tmpdir(), "bench-baseline-")), "tree");
  execFileSync("git", ["worktree", "add", "--detach", dir, ref], { stdio: "ignore" });
  if (!existsSync(join(dir, "node_modules")))
    symlinkSync(join(process.cwd(), "node_modules"), join(dir, "node_modules"), "dir");
  return {
    ref,
    dir,
    remove: () => {
      execFileSync("git", ["worktree", "remove", "--force", dir], { stdio: "ignore" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The settings that make an instance settle on a local chain the bench started (instances sharing a database share a chain). */
export function settlingOn(chain: LocalChain): Record<string, string> {
  return {
    SETTLEMENT_RPC_URL: chain.rpcUrl,
    SETTLER_PRIVATE_KEY: chain.settler.privateKey,
    MARKETPLACE_PAY_TO: chain.marketplacePayTo,
    ASSET_ADDRESS: chain.asset,
  };
}
