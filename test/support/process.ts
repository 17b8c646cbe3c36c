// The service as users run it: `npm start` in its own process group, configured by environment
// only, its URL read from the "marketplace listening" log line. Also: light mixed traffic.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync, readdirSync } from "node:fs";

const repoRoot = new URL("../../", import.meta.url);

/** Every variable the service reads (the names in .env.example): none leaks in from the caller's shell. */
const SERVICE_VARIABLES = readFileSync(new URL(".env.example", repoRoot), "utf8")
  .split("\n")
  .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
  .filter((name): name is string => name !== undefined);

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface StopResult {
  /** npm's exit code, which is the service's own: npm relays its script's status. */
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
  /** Processes of the group still alive after npm closed (an orphaned service or chain). */
  leftovers: number[];
}

export interface ServiceProcess {
  url: string;
  /** The service's node process (npm -> sh -> node). */
  pid: number;
  /** The process group npm leads: npm, its shell, the service and whatever the service started. */
  pgid: number;
  logs: LogLine[];
  stderr(): string;
  /** Set once npm has exited. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Error-level log lines and stderr that is not npm's own chatter: each one is a defect. */
  problems(): string[];
  /** SIGTERM to the service, as a process manager stopping it does, then waits for npm to close. */
  stop(timeoutMs?: number): Promise<StopResult>;
  /** SIGKILL to the whole group, for cleanup after a failure. */
  kill(): void;
}

/** Pids of live (not zombie) processes in a process group, from /proc. */
export function processGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") members.push(Number(entry));
  }
  return members;
}

function servicePid(pgid: number): number | undefined {
  return processGroupMembers(pgid).find((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      // `npm start` runs the compiled service (dist/src/main.js).
      return /(^|\/)node$/.test(argv[0]!) && argv.includes("dist/src/main.js");
    } catch {
      return false;
    }
  });
}

const isNpmChatter = (line: string) => /^npm (warn|notice)\b/.test(line) || line.trim() === "";

/**
 * Runs `npm start` with `env` over a clean service environment (PORT=0: a free port) and resolves
 * once the service logs that it listens. Rejects, with its output, if it exits or stays silent.
 */
export async function startService(
  env: Record<string, string>,
  options: { readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const inherited = { ...process.env };
  for (const name of SERVICE_VARIABLES) delete inherited[name];
  const child: ChildProcess = spawn("npm", ["start", "--silent"], {
    cwd: repoRoot,
    env: { ...inherited, NODE_ENV: "", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so cleanup reaches the service and anything it started.
    detached: true,
  });
  const pgid = child.pid!;
  const logs: LogLine[] = [];
  const stdoutNoise: string[] = [];
  let stderr = "";
  let pending = "";
  let listening: (url: string) => void;
  const ready = new Promise<string>((resolve) => (listening = resolve));
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      let parsed: LogLine | undefined;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch {
        if (line.trim() !== "") stdoutNoise.push(line);
        continue;
      }
      logs.push(parsed);
      if (parsed.msg === "marketplace listening") listening(parsed.url as string);
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const closed = once(child, "close") as Promise<[number | null, NodeJS.Signals | null]>;

  const service = {
    url: "",
    pid: 0,
    pgid,
    logs,
    stderr: () => stderr,
    exit: null,
    fetch: (path, init) => fetch(`${service.url}${path}`, init),
    problems: () => [
      ...logs.filter((log) => log.level >= 50).map((log) => `error log: ${JSON.stringify(log)}`),
      ...stderr
        .split("\n")
        .filter((line) => !isNpmChatter(line))
        .map((line) => `stderr: ${line}`),
      ...stdoutNoise.map((line) => `stdout (not JSON): ${line}`),
    ],
    async stop(timeoutMs = 10_000) {
      const started = Date.now();
      if (service.exit === null) process.kill(service.pid, "SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`npm start did not close within ${timeoutMs} ms of SIGTERM`)),
          timeoutMs,
        );
      });
      try {
        const [code, signal] = await Promise.race([closed, timeout]);
        const ms = Date.now() - started;
        // What the service started (the embedded chain) goes down with it, within moments.
        for (const deadline = Date.now() + 3_000; processGroupMembers(pgid).length > 0 && Date.now() < deadline;) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return { code, signal, ms, leftovers: processGroupMembers(pgid) };
      } finally {
        clearTimeout(timer);
      }
    },
    kill() {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // the group is gone already
      }
    },
  } satisfies ServiceProcess as ServiceProcess;
  void closed.then(([code, signal]) => (service.exit = { code, signal }));

  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    service.url = await Promise.race([
      ready,
      closed.then(([code, signal]) =>
        Promise.reject(new Error(`npm start exited (${code ?? signal}) before listening`)),
      ),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`npm start did not log "marketplace listening" within ${readyTimeoutMs} ms`)),
          readyTimeoutMs,
        );
      }),
    ]);
    const pid = servicePid(pgid);
    if (pid === undefined) throw new Error("the service's node process is not in npm's process group");
    service.pid = pid;
    return service;
  } catch (error) {
    service.kill();
    throw new Error(
      `${(error as Error).message}\n--- stdout\n${logs.map((log) => JSON.stringify(log)).join("\n")}\n--- stderr\n${stderr}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}
