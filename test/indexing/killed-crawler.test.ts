// The crawling instance SIGKILLed in the middle of a pass, as a real `npm start` process on SQLite:
// another instance on the same database takes the crawl over once the lease runs out, and goes on
// from the page the killed one saved, not from the start. Nothing is lost or duplicated.
// The lease's 30 s are not waited out: the test reads the end the killed process wrote, then moves
// it to a moment ago, as its holder would write it (JobLeases.acquire).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_USDC } from "../../src/constants.js";
import { expireKilledHoldersLease } from "../support/killed-lease.js";
import { startService, type ServiceProcess } from "../support/process.js";
import { startSeller, type Seller } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";

const PAGES = 10;
const PAGE = 100;

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 240_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await condition());) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the index crawler killed mid-pass", () => {
  const dir = mkdtempSync(join(tmpdir(), "crawler-kill-"));
  const env = {
    DATABASE_URL: `file:${join(dir, "m.db")}`,
    ALLOW_LOOPBACK_SELLERS: "true",
    INDEX_HOST_GAP_MS: "0",
    LOAD_SEED: "false",
    SEARCH_SEMANTIC: "false",
    HEALTH_PROBE_INTERVAL_MS: "0",
  };
  const offsets: number[] = [];
  let source: Seller;
  let processAsset = BASE_USDC;
  let assetLearned: () => void;
  const processAssetKnown = new Promise<void>((resolve) => (assetLearned = resolve));
  let doomed: ServiceProcess | undefined;
  let survivor: TestServer | undefined;

  beforeAll(async () => {
    // A catalog of 1,000 resources, each page of 100 answered slowly: a pass takes seconds.
    source = await startSeller(async (request) => {
      const url = new URL(request.url ?? "/", "http://x");
      const offset = Number(url.searchParams.get("offset") ?? 0);
      offsets.push(offset);
      // Pages answer only once the test has read the process's token (the process crawls a second after start).
      await processAssetKnown;
      const items = Array.from({ length: Math.max(0, Math.min(PAGE, PAGES * PAGE - offset)) }, (_, i) => ({
        resource: `https://api.example.com/tool-${offset + i}`,
        type: "http",
        // The process lists in its local chain's token, the test server in USDC's address: one requirement for each.
        accepts: [BASE_USDC, processAsset].map((asset) => ({
          scheme: "exact",
          network: "eip155:8453",
          amount: "1000",
          asset,
          payTo: "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
        })),
        description: `Tool ${offset + i}`,
      }));
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items, pagination: { limit: PAGE, offset, total: PAGES * PAGE } }),
        delayMs: 400,
      };
    });
  });
  afterAll(async () => {
    doomed?.kill();
    await survivor?.close();
    await source?.close();
  });

  it("resumes from the saved page on another instance", { timeout: 480_000 }, async () => {
    const sources = `bazaar:${source.url}/discovery/resources`;
    const started = Date.now();
    doomed = await startService(
      { ...env, INDEX_SOURCES: sources, INDEX_INTERVAL_SECONDS: "1", DEV_CHAIN_FILE: join(dir, "chain.json") },
      { readyTimeoutMs: 240_000 },
    );
    const manifest = (await (await doomed.fetch("/.well-known/x402.json")).json()) as {
      items: Array<{ accepts: Array<{ asset: string }> }>;
    };
    processAsset = manifest.items[0]!.accepts[0]!.asset;
    assetLearned!();
    await until(() => offsets.includes(3 * PAGE), "the process crawling its fourth page");
    process.kill(-doomed.pgid, "SIGKILL");
    const killedAt = Date.now();
    await until(() => doomed!.exit !== null, "the killed process to be gone");

    survivor = await startTestServer({ ...env, INDEX_SOURCES: sources });
    const name = `bazaar:${new URL(source.url).host}`;
    const saved = await survivor.repositories.index.checkpoint(name);
    expect(Number(saved.cursor)).toBeGreaterThanOrEqual(3 * PAGE);
    expect(Number(saved.cursor)).toBeLessThan(PAGES * PAGE);
    expect(saved.passStartedAt).not.toBeNull();
    expect((await survivor.repositories.index.keysOf(name)).length).toBe(Number(saved.cursor));

    await expireKilledHoldersLease(survivor, "index-crawler", { pid: doomed.pid, startedAt: started, killedAt });

    const before = offsets.length;
    expect(await survivor.jobs.runNow("index-crawler")).toMatchObject({ ran: true, ok: true });
    expect(offsets[before]).toBe(Number(saved.cursor));
    const done = await survivor.repositories.index.checkpoint(name);
    expect(done).toMatchObject({ cursor: null, passStartedAt: null, lastProblem: null });
    expect(done.lastCompletedAt).not.toBeNull();
    expect(await survivor.repositories.index.keysOf(name)).toHaveLength(PAGES * PAGE);
  });
});
