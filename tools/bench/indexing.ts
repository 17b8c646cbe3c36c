/**
 * `npm run bench:indexing`: the index crawler (issue 28) as users meet it, in the service run as
 * `npm start` runs it over a catalog of 10,000 paid listings.
 *
 * 1. A crawl: a local Bazaar-shaped catalog of 10,000 resources (100 a page), read by the crawler
 *    while a client reads uncached catalog pages (distinct URLs). Prints the crawl's items/s and
 *    service CPU per item, and read latency during the crawl against idle in the same run.
 * 2. The source filter: with the indexed rows confirmed (set-up: marked `indexed` in the database,
 *    as the prober leaves them), uncached pages of `source=listed`, `indexed` and `all` at offsets
 *    across the catalog: latency and service CPU per request. `all` merges two index walks.
 *
 * `INDEX_BENCH_SIZE` scales both the listings and the indexed resources (default 10000).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/database.js";
import { seedListings } from "./seed-listings.js";
import { serve, type BenchServer } from "./servers.js";

const SIZE = Number(process.env.INDEX_BENCH_SIZE ?? 10_000);
const PAGE = 100;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** Uncached page reads (each URL asked once): latencies until `stop()` and at least `minMs`. */
async function readLatencies(
  url: string,
  query: string,
  stop: () => boolean,
  minMs: number,
  salt: number,
): Promise<number[]> {
  const latencies: number[] = [];
  const started = Date.now();
  for (let i = 0; !stop() || Date.now() - started < minMs; i++) {
    const at = performance.now();
    const offset = (salt * 7919 + i * 37) % Math.max(1, SIZE - 20);
    const response = await fetch(`${url}/discovery/resources?limit=20&offset=${offset}${query}`);
    await response.arrayBuffer();
    latencies.push(performance.now() - at);
    if (Date.now() - started > 600_000) break;
  }
  return latencies;
}

async function measured(server: BenchServer, run: () => Promise<number[]>) {
  const cpu = server.cpuMs();
  const latencies = await run();
  return { latencies, cpuPerRequest: (server.cpuMs() - cpu) / Math.max(1, latencies.length) };
}

async function main() {
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), "bench-indexing-")), "bench.db")}`;
  console.log(`seeding ${SIZE} listings ...`);
  await seedListings(databaseUrl, SIZE);

  let asset = "";
  const served: number[] = [];
  const source = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    const offset = Number(url.searchParams.get("offset") ?? 0);
    served.push(offset);
    const items = Array.from({ length: Math.max(0, Math.min(PAGE, SIZE - offset)) }, (_, i) => ({
      resource: `https://indexed-${offset + i}.elsewhere.example.com/v1/tool`,
      type: "http",
      accepts: [
        {
          scheme: "exact",
          network: "eip155:8453",
          amount: String(1000 + ((offset + i) % 50_000)),
          asset,
          payTo: "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
        },
      ],
      description: `Indexed tool number ${offset + i}, found in another catalog`,
    }));
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ x402Version: 2, items, pagination: { limit: PAGE, offset, total: SIZE } }));
  });
  await new Promise<void>((resolve) => source.listen(0, "127.0.0.1", resolve));
  const sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}/discovery/resources`;

  const env = {
    DATABASE_URL: databaseUrl,
    ALLOW_LOOPBACK_SELLERS: "true",
    SEARCH_SEMANTIC: "false",
    HEALTH_PROBE_INTERVAL_MS: "0",
    INDEX_HOST_GAP_MS: "0",
  };
  const rows: Array<[string, string]> = [];
  // The crawler's first run waits 10 s after start (INDEX_INTERVAL_SECONDS=60: no second run meanwhile).
  let server = await serve("app", [], {
    ...env,
    INDEX_SOURCES: `bazaar:${sourceUrl}`,
    INDEX_INTERVAL_SECONDS: "60",
    INDEX_MAX_ITEMS: String(SIZE),
  });
  let db = await openDatabase(databaseUrl);
  try {
    const manifest = (await (await fetch(`${server.url}/.well-known/x402.json`)).json()) as {
      items: Array<{ accepts: Array<{ asset: string }> }>;
    };
    asset = manifest.items[0]!.accepts[0]!.asset;
    await readLatencies(server.url, "", () => true, 1000, 9); // warm-up, not measured
    const idle = await measured(server, () => readLatencies(server.url, "", () => true, 4000, 1));
    const crawled = async () =>
      (await db.prisma.indexCheckpoint.findFirst({ where: { lastCompletedAt: { not: null } } })) !== null;
    let done = false;
    const watcher = (async () => {
      while (!(done = await crawled())) await new Promise((resolve) => setTimeout(resolve, 100));
    })();
    while (served.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const crawlStart = Date.now();
    const cpuStart = server.cpuMs();
    const during = await readLatencies(server.url, "", () => done, 0, 2);
    await watcher;
    const crawlMs = Date.now() - crawlStart;
    const crawlCpu = server.cpuMs() - cpuStart;
    const stored = await db.prisma.listing.count({ where: { indexedSource: { not: null } } });
    const ratio = percentile(during, 50) / percentile(idle.latencies, 50);
    rows.push(
      ["resources crawled and stored", `${stored} of ${SIZE}`],
      ["crawl items/s", (stored / (crawlMs / 1000)).toFixed(0)],
      ["service CPU during the crawl per item, the reads' included (ms)", (crawlCpu / Math.max(1, stored)).toFixed(3)],
      ["uncached reads served during the crawl", String(during.length)],
      [
        "uncached page p50 idle / during the crawl (ms)",
        `${percentile(idle.latencies, 50).toFixed(2)} / ${percentile(during, 50).toFixed(2)}`,
      ],
      ["read p50 during / idle (target <= 1.2x)", `${ratio.toFixed(2)}x ${ratio <= 1.2 ? "PASS" : "MISS"}`],
    );
    await server.stop();

    // As the prober leaves them once their 402 is confirmed (set-up, not measured).
    await db.prisma.listing.updateMany({
      where: { indexedSource: { not: null } },
      data: { state: "indexed", healthStatus: "healthy" },
    });
    // The service migrates the file at start: it must be the only one with it open then.
    await db.close();
    server = await serve("app", [], env);
    db = await openDatabase(databaseUrl);
    await readLatencies(server.url, "&source=all", () => true, 2000, 8); // warm-up, not measured
    for (const [n, source] of [
      [3, "listed"],
      [4, "indexed"],
      [5, "all"],
    ] as const) {
      const read = await measured(server, () => readLatencies(server.url, `&source=${source}`, () => true, 4000, n));
      rows.push([
        `source=${source}: uncached page p50 / p99 (ms), CPU per request`,
        `${percentile(read.latencies, 50).toFixed(2)} / ${percentile(read.latencies, 99).toFixed(2)}, ${read.cpuPerRequest.toFixed(2)} ms`,
      ]);
    }
    rows.push(
      ["service RSS (MiB)", server.rssMiB().toFixed(0)],
      ["load average (1 min) at the end", loadavg()[0]!.toFixed(2)],
    );
    for (const [name, value] of rows) console.log(`${name.padEnd(62)} ${value}`);
  } finally {
    await server.stop();
    source.close();
    await db.close();
  }
}

await main();
