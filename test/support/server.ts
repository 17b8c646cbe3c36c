import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { startServer, type RunningServer, type ServerOptions } from "../../src/server.js";
import { checkEveryAnswer } from "./contract-check.js";
import { contractApi } from "./harness.js";
import { offlinePayments } from "./payments.js";

export interface TestServer extends RunningServer {
  /** Fetches a path of the server. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * A server on a free port over a fresh SQLite file, unless `env.DATABASE_URL` names another database.
 * Every answer it gives is checked against the contract; a drifting one fails the running test
 * (test/support/contract-check.ts).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: ServerOptions = {},
): Promise<TestServer> {
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), "marketplace-test-")), "marketplace.db")}`;
  // Listing health re-probes only when a test runs a round (contexts.listings.health.prober.runRound) or turns it on.
  const config = loadConfig({
    PORT: "0",
    LOG_LEVEL: "silent",
    LOAD_SEED: "false",
    DATABASE_URL: databaseUrl,
    HEALTH_PROBE_INTERVAL_MS: "0",
    // Expiry events and webhook deliveries run when a test asks (server.jobs.runNow).
    TERM_EVENTS_INTERVAL_SECONDS: "0",
    WEBHOOK_INTERVAL_MS: "0",
    INDEX_INTERVAL_SECONDS: "0",
    SEARCH_SEMANTIC: "false",
    // Tests ask many questions from one address; the query limit's own tests set it low.
    QUERY_RATE_PER_CLIENT: "1000000",
    // Nor do they meet the instance's bound on uncached work, unless a test sets it (test/http/uncached-work.test.ts).
    UNCACHED_CONCURRENCY: "1000",
    UNCACHED_SHARE: "1",
    ...env,
  });
  // No chain unless a test brings one: payments default to an offline facilitator.
  const payments = options.payments ?? (await offlinePayments(config));
  const running = await startServer(config, createLogger(config.logLevel), {
    shutdownGraceMs: 1000,
    ...options,
    payments,
  });
  checkEveryAnswer(running.server, await contractApi());
  return {
    ...running,
    fetch: (path, init) => fetch(`${running.url}${path}`, init),
  };
}
