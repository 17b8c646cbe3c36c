// The x402-market CLI as a subprocess, exactly as the bin runs it (no terminal on stdin).
import { execFile, spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";

/**
 * The package's bin (package.json "bin"): the compiled CLI, built first if src/ changed since, as
 * `npm start` does (a few ms when fresh). Started in a third of the time the tsx wrapper takes.
 */
const BIN = resolve("dist/src/cli/main.js");
/** The TypeScript entry through tsx (src/cli/x402-market.mjs), for a run that proves the wrapper too. */
export const TSX_BIN = resolve("src/cli/x402-market.mjs");
const built = spawnSync(process.execPath, ["tools/build.mjs", "--if-stale", "--transpile-only"], { encoding: "utf8" });
if (built.status !== 0) throw new Error(`building dist/ for the CLI failed:\n${built.stderr}`);
/** The demo seller's self-signed certificate, trusted by the CLI's fetch. */
const CA = resolve("tools/demo/tls/localhost.crt");

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function childEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", NODE_EXTRA_CA_CERTS: CA, ...env };
}

export function runCli(args: string[], env: Record<string, string> = {}, bin = BIN): Promise<CliRun> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { env: childEnv(env), timeout: 90_000 }, (error, stdout, stderr) => {
      done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The first JSON line of stdout. */
export function jsonOf<T = Record<string, unknown>>(run: CliRun): T {
  return JSON.parse(run.stdout.split("\n")[0]!) as T;
}

/** A CLI run in the background (watch), finished when it exits. */
export function startCli(
  args: string[],
  env: Record<string, string> = {},
): { stderr: () => string; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill(), 90_000);
  const done = new Promise<CliRun>((resolveRun) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolveRun({ code: code ?? 1, stdout, stderr });
    }),
  );
  return { stderr: () => stderr, done };
}
