// The MCP project's conformance runner (@modelcontextprotocol/conformance, offline, against the
// real HTTP endpoint): its whole active server suite, with the scenarios that need its own fixture
// server listed in conformance-expected-failures.yaml. The runner fails on an unexpected failure
// and on a listed scenario that passes, so the baseline cannot go stale.
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";

const run = promisify(execFile);
const runner = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");
const baseline = join(dirname(fileURLToPath(import.meta.url)), "conformance-expected-failures.yaml");

describe("the MCP conformance runner's server suite", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ LOAD_SEED: "true" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("passes every scenario that does not need the runner's fixture server", async () => {
    // localhost, not 127.0.0.1: the dns-rebinding scenario sends Host headers relative to it.
    const url = `http://localhost:${new URL(server.url).port}/mcp`;
    const result = await run(process.execPath, [runner, "server", "--url", url, "--expected-failures", baseline], {
      maxBuffer: 16 * 1024 * 1024,
    }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    const summary = result.stdout.slice(result.stdout.indexOf("=== SUMMARY ==="));
    expect(summary, summary).toContain("Baseline check passed");
    for (const scenario of [
      "server-initialize",
      "ping",
      "tools-list",
      "logging-set-level",
      "resources-list",
      "prompts-list",
      "dns-rebinding-protection",
    ]) {
      expect(summary).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    }
    expect(result.code).toBe(0);
  }, 300_000);
});
