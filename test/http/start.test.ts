import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("npm start", () => {
  it("serves the contract with nothing else configured, logs JSON, and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), "start-"));
    const child = spawn("npm", ["start", "--silent"], {
      env: { ...process.env, PORT: String(port), DATABASE_URL: `file:${join(dataDir, "marketplace.db")}`, DEV_CHAIN_FILE: join(dataDir, "chain.json"), NODE_ENV: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      const deadline = Date.now() + 30_000;
      let response: Response | undefined;
      while (!response && Date.now() < deadline) {
        response = await fetch(`http://127.0.0.1:${port}/openapi.json`).catch(() => undefined);
        if (!response) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(response?.status, output).toBe(200);
      // Signal the whole group, as a process manager stopping `npm start` does.
      // "close": npm exits on the signal at once; the service's own output ends when it has stopped.
      const exited = once(child, "close");
      process.kill(-child.pid!, "SIGTERM");
      await exited;
      const lines = output.trim().split("\n").filter((line) => line.startsWith("{"));
      const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toContain("marketplace listening");
      expect(messages).toContain("stopped");
      // Without payment configuration: the embedded local chain, said plainly, its file written.
      expect(messages.some((message) => message.startsWith("LOCAL CHAIN, NOT REAL MONEY"))).toBe(true);
      const chainFile = JSON.parse(readFileSync(join(dataDir, "chain.json"), "utf8")) as { chainId: number; buyers: unknown[] };
      expect(chainFile).toMatchObject({ chainId: 8453, buyers: expect.arrayContaining([expect.objectContaining({ privateKey: expect.any(String) })]) });
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
    }
  });
});
