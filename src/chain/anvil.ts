// Runs the anvil binary shipped in foundry's per-platform npm package as a child process.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { createServer } from "node:net";

export interface AnvilOptions {
  /** 0 or undefined: a free port. */
  port?: number;
  chainId: number;
  mnemonic: string;
  accounts: number;
}

export interface AnvilProcess {
  rpcUrl: string;
  port: number;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
/** One readiness check's wait for an answer. */
const READY_CHECK_TIMEOUT_MS = 1_000;
const STOP_TIMEOUT_MS = 3_000;

/**
 * The anvil binary: ANVIL_PATH when set, else the per-platform package the @foundry-rs/anvil
 * wrapper would run. The project depends on that package directly (an optional dependency)
 * because the registry reachable here serves only the linux-amd64 build, and a lockfile naming
 * the wrapper's other platform packages cannot be installed with `npm ci`.
 */
export function anvilBinaryPath(): string {
  if (process.env.ANVIL_PATH) return process.env.ANVIL_PATH;
  const require = createRequire(import.meta.url);
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const exe = process.platform === "win32" ? "anvil.exe" : "anvil";
  const name = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    return require.resolve(`${name}/bin/${exe}`);
  } catch {
    throw new Error(
      `anvil is not installed for ${process.platform}-${arch} (npm package ${name}); install foundry's anvil and set ANVIL_PATH to it`,
    );
  }
}

/** Checks that `port` is free (0: picks a free one) so that we never mistake another node there for ours. */
async function freePort(port = 0): Promise<number> {
  const server = createServer();
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("could not pick a free port");
  return address.port;
}

// On POSIX a shell sits between us and anvil and kills it once our end of its stdin closes, which
// the OS does however this process dies (even SIGKILL), so no anvil outlives the service or a test
// worker. fd 3 keeps the pipe readable from the background job, whose stdin sh sets to /dev/null.
const WATCHDOG =
  'exec 3<&0; "$0" "$@" </dev/null 3<&- & c=$!; echo "$c"; (cat <&3 >/dev/null; kill "$c" 2>/dev/null) & wait "$c"';

function spawnAnvil(args: string[]): ChildProcess {
  const binary = anvilBinaryPath();
  const stdio: ["pipe", "pipe", "pipe"] = ["pipe", "pipe", "pipe"];
  if (process.platform === "win32") return spawn(binary, args, { stdio, windowsHide: true });
  return spawn("/bin/sh", ["-c", WATCHDOG, binary, ...args], { stdio });
}

/**
 * Whether anvil answers on its port. Bounded: the port is free when picked but another process can
 * take it before anvil binds it, and a server there that never answers would hold this check (and the
 * start) for good instead of letting it see anvil's exit and try another port.
 */
async function isReady(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(READY_CHECK_TIMEOUT_MS),
    });
    // Anvil's answer, not another server's that took the port.
    return response.ok && typeof ((await response.json()) as { result?: unknown }).result === "string";
  } catch {
    return false;
  }
}

class AnvilExitError extends Error {
  constructor(
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`anvil exited with code ${code}: ${stderr || "(no output)"}`);
  }
}

async function startOnce(options: AnvilOptions, port: number): Promise<AnvilProcess> {
  const args = [
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
    "--chain-id",
    String(options.chainId),
    "--mnemonic",
    options.mnemonic,
    "--accounts",
    String(options.accounts),
    "--quiet",
  ];
  const child = spawnAnvil(args);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let anvilPid = child.pid;
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    const pid = Number.parseInt(chunk, 10);
    if (process.platform !== "win32" && Number.isInteger(pid)) anvilPid = pid;
  });
  const exited = once(child, "exit");
  let exitCode: number | null | undefined;
  void exited.then(([code]) => {
    exitCode = code as number | null;
  });

  const killOnExit = () => {
    try {
      if (anvilPid !== undefined) process.kill(anvilPid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  process.once("exit", killOnExit);

  const stop = async () => {
    process.off("exit", killOnExit);
    child.stdin!.end(); // also releases the watchdog when anvil has already exited
    if (exitCode !== undefined) return;
    if (process.platform === "win32") child.kill();
    const timer = setTimeout(killOnExit, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await isReady(rpcUrl))) {
    if (exitCode !== undefined) {
      await stop();
      throw new AnvilExitError(exitCode, stderr.trim());
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`anvil did not answer on ${rpcUrl} within ${READY_TIMEOUT_MS} ms: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { rpcUrl, port, stop };
}

export async function startAnvil(options: AnvilOptions): Promise<AnvilProcess> {
  if (options.port) return startOnce(options, await freePort(options.port));
  // A port picked by us can be taken before anvil binds it; try again with another.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, await freePort());
    } catch (error) {
      const inUse = error instanceof AnvilExitError && /address already in use/i.test(error.stderr);
      if (!inUse || attempt >= 5) throw error;
    }
  }
}
