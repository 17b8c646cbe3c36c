// Seller-probe limits across instances: two services behind one (imaginary) load balancer, the same
// client alternating between them. With REDIS_URL they share one budget; without it each instance
// has its own; with a Redis that does not answer they fall back to their own and say so.
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startSeller,
  summariseListing,
  challenge,
  challengeAnswer,
  requirement,
  SELLER_PAY_TO,
  type Seller,
} from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { parseMetrics, sampleSum } from "../support/metrics.js";
import { loadConfig } from "../../src/config.js";
import { createProbeLimits } from "../../src/probe/rate-limiter.js";
import { createLogger } from "../../src/logger.js";
import { BASE_USDC } from "../../src/constants.js";

/** The shared-budget test needs a Redis: `npm test` runs it when TEST_REDIS_URL is set (CI sets it). */
const REDIS_URL = process.env.TEST_REDIS_URL;
const PER_CLIENT = 4;
const REQUESTS = 10;

let seller: Seller;
let redis: Redis | undefined;
const prefixes: string[] = [];

beforeAll(async () => {
  seller = await startSeller(() =>
    challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "30000", asset: BASE_USDC })])),
  );
  if (REDIS_URL) {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  }
});

afterAll(async () => {
  for (const prefix of redis ? prefixes : []) {
    const keys = await redis!.keys(`${prefix}*`);
    if (keys.length > 0) await redis!.del(...keys);
  }
  redis?.disconnect();
  await seller?.close();
});

/** A fresh key prefix per test: runs never share a budget. */
function uniquePrefix(): string {
  const prefix = `x402-test-${randomBytes(6).toString("hex")}:`;
  prefixes.push(prefix);
  return prefix;
}

const env = (extra: Record<string, string>) => ({
  ALLOW_LOOPBACK_SELLERS: "true",
  PROBE_RATE_PER_CLIENT: String(PER_CLIENT),
  PROBE_RATE_PER_HOST: "1000",
  ...extra,
});

/** REQUESTS free dry runs from one client, alternating between the instances: the statuses. */
async function alternate(instances: TestServer[]): Promise<number[]> {
  const statuses: number[] = [];
  const probesBefore = seller.requests.length;
  for (let i = 0; i < REQUESTS; i++) {
    const response = await instances[i % instances.length]!.fetch("/listings/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(summariseListing(seller, { method: "POST" })),
    });
    await response.arrayBuffer();
    if (response.status === 429) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    statuses.push(response.status);
  }
  // Only the granted requests reached the seller.
  expect(seller.requests.length - probesBefore).toBe(statuses.filter((status) => status !== 429).length);
  return statuses;
}

async function withInstances<T>(
  extra: Record<string, string>,
  run: (instances: TestServer[]) => Promise<T>,
): Promise<T> {
  const instances = [await startTestServer(env(extra)), await startTestServer(env(extra))];
  try {
    return await run(instances);
  } finally {
    for (const instance of instances) await instance.close();
  }
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe("seller-probe limits across two instances", () => {
  it.skipIf(!REDIS_URL)(
    "with REDIS_URL, share one budget: the client's probes beyond it get 429 on either instance",
    async () => {
      const prefix = uniquePrefix();
      const statuses = await withInstances({ REDIS_URL: REDIS_URL!, REDIS_KEY_PREFIX: prefix }, alternate);
      expect(count(statuses, 200)).toBe(PER_CLIENT);
      expect(count(statuses, 429)).toBe(REQUESTS - PER_CLIENT);
      // The counts live in Redis under the prefix, one key for the client and one for the host.
      expect((await redis!.keys(`${prefix}*`)).length).toBe(2);
    },
  );

  it("without REDIS_URL, each instance has its own budget (twice the rate over two)", async () => {
    const statuses = await withInstances({}, alternate);
    expect(count(statuses, 200)).toBe(2 * PER_CLIENT);
    expect(count(statuses, 429)).toBe(REQUESTS - 2 * PER_CLIENT);
  });

  it("with a Redis that does not answer, falls back to each instance's own limit, counts and logs it", async () => {
    const statuses = await withInstances(
      { REDIS_URL: "redis://127.0.0.1:1", REDIS_KEY_PREFIX: uniquePrefix() },
      async (instances) => {
        const result = await alternate(instances);
        const metrics = parseMetrics(await (await instances[0]!.fetch("/metrics")).text());
        expect(sampleSum(metrics, "x402_rate_limiter_fallbacks_total")).toBeGreaterThan(0);
        return result;
      },
    );
    expect(count(statuses, 200)).toBe(2 * PER_CLIENT);
    expect(count(statuses, 429)).toBe(REQUESTS - 2 * PER_CLIENT);
  });

  it("logs the fallback once, not for every decision", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean))
          lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = loadConfig(env({ REDIS_URL: "redis://127.0.0.1:1" }));
    const limits = await createProbeLimits(config.probe, {
      redisUrl: config.ops.redisUrl,
      keyPrefix: uniquePrefix(),
      logger: createLogger("info", sink),
    });
    try {
      expect(limits.kind).toBe("redis");
      const waits = [];
      for (let i = 0; i < PER_CLIENT + 2; i++) waits.push(await limits.perClient.take("198.51.100.7"));
      expect(waits.filter((wait) => wait === 0)).toHaveLength(PER_CLIENT);
      expect(waits.slice(PER_CLIENT).every((wait) => wait > 0)).toBe(true);
      const warnings = lines.filter((line) => String(line.msg).includes("unreachable"));
      // One at start, one for the first decision; none per further decision within the minute.
      expect(warnings.length).toBeLessThanOrEqual(2);
      expect(warnings.length).toBeGreaterThan(0);
      expect(JSON.stringify(warnings)).not.toContain("127.0.0.1:1");
    } finally {
      await limits.close();
    }
  });
});

describe("query limit (QUERY_RATE_PER_CLIENT) across two instances", () => {
  /** Distinct uncached catalog pages from one client, alternating between the instances, then an MCP batch of 3. */
  async function pagesThenBatch(instances: TestServer[]): Promise<{ pages: number[]; batch: number }> {
    const pages: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await instances[i % 2]!.fetch(`/discovery/resources?limit=${i + 1}&offset=3`);
      await response.arrayBuffer();
      pages.push(response.status);
    }
    const batch = await instances[0]!.fetch("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, method: "ping" }))),
    });
    await batch.arrayBuffer();
    return { pages, batch: batch.status };
  }

  it.skipIf(!REDIS_URL)(
    "with REDIS_URL, uncached pages and each request of an MCP batch count against one shared budget",
    async () => {
      const prefix = uniquePrefix();
      const { pages, batch } = await withInstances(
        { REDIS_URL: REDIS_URL!, REDIS_KEY_PREFIX: prefix, QUERY_RATE_PER_CLIENT: "6", QUERY_BURST_PER_CLIENT: "6" },
        pagesThenBatch,
      );
      // 6 a minute over both instances: the pages take them all, so the batch of 3 is refused.
      expect(pages).toEqual([200, 200, 200, 200, 200, 200]);
      expect(batch).toBe(429);
      expect((await redis!.keys(`${prefix}query:client*`)).length).toBe(1);
    },
  );

  it("without REDIS_URL, each instance counts its own", async () => {
    const { pages, batch } = await withInstances(
      { QUERY_RATE_PER_CLIENT: "6", QUERY_BURST_PER_CLIENT: "6" },
      pagesThenBatch,
    );
    // Three pages on each: instance 0 has 3 units left, the batch of 3 takes them.
    expect(pages).toEqual([200, 200, 200, 200, 200, 200]);
    expect(batch).toBe(200);
  });

  it.skipIf(!REDIS_URL)("with REDIS_URL, the 10 s burst (QUERY_BURST_PER_CLIENT) is shared too", async () => {
    const prefix = uniquePrefix();
    const { pages, batch } = await withInstances(
      { REDIS_URL: REDIS_URL!, REDIS_KEY_PREFIX: prefix, QUERY_RATE_PER_CLIENT: "60", QUERY_BURST_PER_CLIENT: "4" },
      pagesThenBatch,
    );
    // 60 a minute leaves plenty, but at most 4 in 10 s over both instances.
    expect(pages).toEqual([200, 200, 200, 200, 429, 429]);
    expect(batch).toBe(429);
    expect((await redis!.keys(`${prefix}query:burst*`)).length).toBe(1);
  });
});
