import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface BenchServer {
  url: string;
  /** Resident set size of the server process, in MiB. */
  rssMiB(): number;
  stop(): void;
}

/** The command of `npm start`, so the service is measured exactly as it runs. */
function startCommand(): string[] {
  const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } };
  const [node, ...args] = scripts.start.split(/\s+/);
  if (node !== "node") throw new Error(`npm start should run node directly, not ${node}`);
  return args;
}

async function firstLine(child: ChildProcess, matches: (line: string) => boolean): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) if (matches(line)) return line;
  throw new Error("the server exited before it was listening");
}

/** Starts a server in its own process: bare node:http or Koa (tools/bench/serve.ts), or the service as `npm start` runs it. */
export async function serve(kind: "node" | "koa" | "app", args: string[] = [], env: Record<string, string> = {}): Promise<BenchServer> {
  const command = kind === "app" ? startCommand() : ["--import", "tsx", "tools/bench/serve.ts", kind, ...args];
  const child = spawn(process.execPath, command, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, PORT: "0", LOG_LEVEL: "info", LOAD_SEED: "false", ...env },
  });
  const line = await firstLine(child, (text) => text.includes('"url"'));
  const { url } = JSON.parse(line) as { url: string };
  const pid = child.pid!;
  return {
    url,
    rssMiB: () => {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
    },
    stop: () => child.kill(),
  };
}

/** Writes bytes to a temporary file for `serve node|koa`. */
export function bodyFile(bytes: string | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), "bench-body-")), "body");
  writeFileSync(path, bytes);
  return path;
}
