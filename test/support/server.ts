import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { startServer, type RunningServer } from "../../src/server.js";

export interface TestServer extends RunningServer {
  /** Fetches a path of the server. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Asserts that a response body fits the contract for its route and status. */
  expectContractShape(method: string, path: string, status: number, body: unknown): void;
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), "marketplace-test-")), "marketplace.db")}`;
  const config = loadConfig({ PORT: "0", LOG_LEVEL: "silent", LOAD_SEED: "false", DATABASE_URL: databaseUrl, ...env });
  const running = await startServer(config, createLogger(config.logLevel));
  const { api } = running.router;
  return {
    ...running,
    fetch: (path, init) => fetch(`${running.url}${path}`, init),
    expectContractShape(method, path, status, body) {
      const operation = api.router.matchOperation({ method: method.toLowerCase(), path: path.split("?")[0]!, headers: {}, query: {} });
      expect(operation, `${method} ${path} is routed`).toBeDefined();
      const result = api.validateResponse(body, operation!, status);
      expect(result.errors ?? [], `${method} ${path} ${status} fits the contract`).toEqual([]);
    },
  };
}
