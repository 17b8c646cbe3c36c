/**
 * `npm run bench:health`: listing health (issue 14), two parts.
 *
 * 1. One re-probe round over BENCH_HEALTH_LISTINGS (10,000) listings spread over BENCH_HEALTH_SELLERS
 *    (1,000) loopback sellers, served by one process of their own (health-sellers.ts), each seller a
 *    distinct host. The service runs as `npm start` runs it, in its own process, with the default
 *    politeness (one probe per host at a time, 1 s between two, 32 in flight). Reported: probes/s,
 *    round duration, the service's CPU and resident memory, and catalog read latency (p50/p95 of
 *    distinct-URL reads, which the response cache cannot answer) while idle and during the round,
 *    in the same run. Target: reads during the round no more than 20% slower. BENCH_HEALTH_READERS=0
 *    leaves the reads out (the service's CPU is then the round's alone).
 * 2. Memory under hostile sellers: BENCH_HEALTH_ROUNDS (1,000) rounds in this process over a set of
 *    sellers that hang, answer 2 MB, redirect, send a malformed challenge, answer 200, or are gone;
 *    the heap after a full GC is printed every 100 rounds. Run with --expose-gc (the npm script does).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { getAddress } from "viem";
import { BASE_USDC, NETWORK } from "../../src/constants.js";
import { createLogger } from "../../src/logger.js";
import { HealthProber } from "../../src/health/prober.js";
import { SellerProbe } from "../../src/probe/seller-probe.js";
import { openDatabase } from "../../src/storage/database.js";
import { HealthStore } from "../../src/health/health-store.js";
import { ListingStore } from "../../src/storage/listing/listing-store.js";
import { applyMigrations } from "../../src/storage/migrate.js";
import { serve, type BenchServer } from "./servers.js";

const LISTINGS = Number(process.env.BENCH_HEALTH_LISTINGS ?? 10_000);
const SELLERS = Number(process.env.BENCH_HEALTH_SELLERS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_HEALTH_ROUNDS ?? 1_000);
const IDLE_SECONDS = Number(process.env.BENCH_HEALTH_IDLE_SECONDS ?? 12);
/** The service's first health tick comes one tick after start (at most 60 s): long enough for the idle reads first. */
const HEALTH_TICK_MS = 30_000;
const READERS = Number(process.env.BENCH_HEALTH_READERS ?? 4);
const PAY_TO = getAddress("0x2546BcD3c84621e976D8185a91A922aE77ECEc30");
const PRICE_ATOMIC = "30000";
const WORDS = ["weather", "forecast", "translate", "summarise", "image", "quote", "stock", "news"];

const progress = (message: string) => process.stderr.write(`[bench:health] ${message}\n`);
const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface Sellers {
  requests(): number;
  stop(): void;
}

/** Where the sellers listen: one port on 127.0.x.y, a distinct host each (known before they start, so the catalog can be seeded first). */
function sellerUrls(port: number): string[] {
  return Array.from({ length: SELLERS }, (_, i) => `http://127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}:${port}`);
}

async function startSellers(asset: string, port: number): Promise<Sellers> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "tools/bench/health-sellers.ts", String(SELLERS), asset, PAY_TO, PRICE_ATOMIC, String(port)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let requests = 0;
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", () => reject(new Error(`the sellers exited (port ${port} taken?)`)));
    lines.on("line", (line) => {
      const message = JSON.parse(line) as { urls?: string[]; requests?: number };
      if (message.urls) resolve();
      if (message.requests !== undefined) requests = message.requests;
    });
  });
  return { requests: () => requests, stop: () => child.kill() };
}

/** 10,000 active listings, LISTINGS / SELLERS per seller, straight into the database. */
async function seed(databaseUrl: string, urls: string[]): Promise<void> {
  await applyMigrations(databaseUrl);
  const database = await openDatabase(databaseUrl);
  const now = Date.now();
  const rows = Array.from({ length: LISTINGS }, (_, i) => {
    const listedAt = new Date(now - 60_000 - i * 60_000);
    return {
      resource: `${urls[i % urls.length]}/api/${Math.floor(i / urls.length)}`,
      method: "GET",
      priceUsdc: "0.03",
      priceAtomic: PRICE_ATOMIC,
      priceMicros: BigInt(PRICE_ATOMIC),
      description: `${WORDS[i % WORDS.length]} service number ${i}, fast and accurate`,
      sellerPayTo: PAY_TO,
      network: NETWORK,
      state: "active",
      listedAt,
      expiresAt: new Date(listedAt.getTime() + 30 * 24 * 3600_000),
    };
  });
  for (let i = 0; i < rows.length; i += 1000)
    await database.prisma.listing.createMany({ data: rows.slice(i, i + 1000) });
  await database.close();
}

interface ReadStats {
  reads: number;
  perSecond: number;
  p50: number;
  p95: number;
  errors: number;
}

/** READERS clients reading distinct catalog URLs (pages and searches) back to back until `until` says stop. */
async function readLoad(baseUrl: string, until: () => boolean): Promise<ReadStats> {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const started = performance.now();
  const nextPath = () => {
    n++;
    return n % 2 === 0
      ? `/discovery/resources?limit=${1 + (n % 20)}&offset=${(n * 37) % (LISTINGS - 20)}`
      : `/discovery/search?query=${WORDS[n % WORDS.length]}&limit=${1 + (n % 20)}&offset=${(n * 13) % 500}`;
  };
  await Promise.all(
    Array.from({ length: READERS }, async () => {
      while (!until()) {
        const path = nextPath();
        const t0 = performance.now();
        const response = await fetch(`${baseUrl}${path}`).catch(() => null);
        if (!response || response.status !== 200) errors++;
        await response?.arrayBuffer();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    reads: latencies.length,
    perSecond: round(latencies.length / seconds),
    p50: round(percentile(latencies, 50), 2),
    p95: round(percentile(latencies, 95), 2),
    errors,
  };
}

async function healthyCount(service: BenchServer): Promise<number> {
  const status = (await (await fetch(`${service.url}/status.json`)).json()) as {
    listingsByHealth: { healthy: number };
  };
  return status.listingsByHealth.healthy;
}

async function roundBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-health-"));
  const databaseUrl = `file:${join(dir, "marketplace.db")}`;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  let sellers: Sellers | undefined;
  let service: BenchServer | undefined;
  try {
    await seed(databaseUrl, sellerUrls(port));
    progress(`seeded ${LISTINGS} listings; starting the service (npm start's build first)`);
    service = await serve("app", [], {
      DATABASE_URL: databaseUrl,
      ALLOW_LOOPBACK_SELLERS: "true",
      HEALTH_PROBE_INTERVAL_MS: String(HEALTH_TICK_MS),
    });
    const started = performance.now();
    // The sellers ask for the service's token (the embedded local chain's, unless ASSET_ADDRESS is set).
    const fee = (await (await fetch(`${service.url}/listings/challenge`)).json()) as {
      accepts: Array<{ asset: string }>;
    };
    progress(`service at ${service.url}; starting ${SELLERS} sellers on port ${port}`);
    const probed = await startSellers(fee.accepts[0]!.asset, port);
    progress("sellers listening; idle reads");
    sellers = probed;
    await readLoad(service.url, () => performance.now() - started > 3000); // warm-up
    const idle = await readLoad(
      service.url,
      () => performance.now() - started > (3 + IDLE_SECONDS) * 1000 || probed.requests() > 0,
    );
    if (probed.requests() > 0) console.log("note: the round began during the idle reads; idle figures are cut short");
    progress("waiting for the round");
    while (probed.requests() === 0) await sleep(20);
    progress("round started; reads during the round");
    const roundStarted = performance.now();
    const cpuBefore = service.cpuMs();
    let rssPeak = service.rssMiB();
    let done = false;
    const watcher = (async () => {
      try {
        while (!done) {
          rssPeak = Math.max(rssPeak, service!.rssMiB());
          if (probed.requests() >= LISTINGS && (await healthyCount(service!)) >= LISTINGS) done = true;
          else if (performance.now() - roundStarted > 600_000)
            throw new Error(
              `the round did not finish in 10 minutes (${probed.requests()} probes, ${await healthyCount(service!)} healthy)`,
            );
          else await sleep(100);
        }
      } finally {
        done = true;
      }
    })();
    const during = await readLoad(service.url, () => done);
    await watcher;
    const seconds = (performance.now() - roundStarted) / 1000;
    const cpuMs = service.cpuMs() - cpuBefore;
    // Idle again (the next round is due an interval after this one): the warm process's own baseline.
    progress("round done; idle reads again");
    const afterStarted = performance.now();
    const after = await readLoad(service.url, () => performance.now() - afterStarted > IDLE_SECONDS * 1000);
    console.log(
      `\n== one round: ${LISTINGS} listings over ${SELLERS} loopback sellers (SQLite, npm start, default politeness: 1 probe per host at a time, 1 s gap, 32 in flight) ==`,
    );
    console.table({
      round: {
        seconds: round(seconds, 2),
        probesPerSecond: round(probed.requests() / seconds),
        serviceCpuSeconds: round(cpuMs / 1000, 2),
        cpuShare: `${round((cpuMs / 1000 / seconds) * 100)}%`,
        rssPeakMiB: round(rssPeak),
        probes: probed.requests(),
      },
    });
    console.log(`catalog reads (${READERS} clients, distinct URLs: pages and searches)`);
    console.table({ "idle before": idle, "during the round": during, "idle after": after });
    // Against the better of the two idle runs, so a cold start does not flatter the round.
    const base = { p50: Math.min(idle.p50, after.p50), p95: Math.min(idle.p95, after.p95) };
    const slower = (during.p50 / base.p50 - 1) * 100;
    const slower95 = (during.p95 / base.p95 - 1) * 100;
    console.log(
      `reads during the round: p50 ${round(slower)}%, p95 ${round(slower95)}% vs idle (the better of before and after; target: no more than +20%) -> ${slower <= 20 && slower95 <= 20 ? "PASS" : "MISS"}`,
    );
  } finally {
    await service?.stop();
    sellers?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Hostile sellers in this process: each path a kind of bad answer. */
async function hostileSellers(): Promise<{
  urls: string[];
  close(): Promise<void>;
}> {
  const huge = Buffer.alloc(2 * 1024 * 1024, "x");
  const server: Server = createHttpServer((req, res) => {
    req.resume();
    switch (req.url) {
      case "/hang":
        return; // never answers; the probe's deadline ends it
      case "/huge":
        res.writeHead(402, { "content-type": "application/json" });
        return void res.end(huge);
      case "/redirect":
        res.writeHead(302, { location: "http://169.254.169.254/" });
        return void res.end();
      case "/malformed":
        res.writeHead(402, { "payment-required": "%%%{not base64" });
        return void res.end("{}");
      default:
        res.writeHead(200);
        return void res.end("free");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gone = createHttpServer();
  await new Promise<void>((resolve) => gone.listen(0, "127.0.0.1", resolve));
  const gonePort = (gone.address() as AddressInfo).port;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const paths = ["/hang", "/huge", "/redirect", "/malformed", "/ok-200"];
  const urls = [
    ...paths.flatMap((path) => [1, 2, 3].map((n) => `${base}${path}?n=${n}`)),
    `http://127.0.0.1:${gonePort}/gone`,
  ];
  return {
    urls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function memoryBench(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc (npm run bench:health does)");
  const dir = mkdtempSync(join(tmpdir(), "bench-health-memory-"));
  const databaseUrl = `file:${join(dir, "marketplace.db")}`;
  await applyMigrations(databaseUrl);
  const database = await openDatabase(databaseUrl);
  const sellers = await hostileSellers();
  let clock = Date.parse("2030-01-01T00:00:00Z");
  const now = () => new Date(clock);
  try {
    const listings = new ListingStore(database);
    for (const resource of sellers.urls) {
      await listings.createListing(
        {
          resource,
          method: "GET",
          priceUsdc: "0.03",
          description: "hostile seller for the health bench",
          sellerPayTo: PAY_TO,
          network: NETWORK,
        },
        now(),
      );
    }
    const probe = new SellerProbe(
      {
        timeoutMs: 100,
        maxResponseBytes: 64 * 1024,
        perClientPerMinute: 1,
        perHostPerMinute: 1,
        allowLoopbackSellers: true,
      },
      { network: NETWORK, asset: BASE_USDC },
    );
    const prober = new HealthProber({
      store: new HealthStore(listings.transactions),
      probe,
      config: {
        intervalMs: 15 * 60_000,
        failuresToUnhealthy: 3,
        successesToHealthy: 2,
        concurrency: 32,
        batchSize: 200,
        hostGapMs: 0,
        leaseMs: 60_000,
        probesPerMinute: 0, // the statements' cost per probe is measured, not a budget's pace
      },
      logger: createLogger("silent"),
      now,
    });
    const heapMiB = () => {
      gc();
      gc();
      return round(process.memoryUsage().heapUsed / 1024 / 1024, 2);
    };
    const samples: Record<string, { heapMiB: number; rssMiB: number; failed: number }> = {};
    const started = performance.now();
    for (let i = 1; i <= ROUNDS; i++) {
      const report = await prober.runRound();
      clock += 20 * 60_000;
      if (i === 10 || i % 100 === 0)
        samples[`after round ${i}`] = {
          heapMiB: heapMiB(),
          rssMiB: round(process.memoryUsage().rss / 1024 / 1024),
          failed: report.failed,
        };
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `\n== memory: ${ROUNDS} rounds over ${sellers.urls.length} hostile listings (hang, 2 MB body, redirect, malformed, 200, closed port; probe deadline 100 ms) in ${round(seconds)} s ==`,
    );
    console.table(samples);
    const values = Object.values(samples);
    console.log(
      `heap after GC: ${values[0]!.heapMiB} MiB after round 10 -> ${values.at(-1)!.heapMiB} MiB after round ${ROUNDS}`,
    );
  } finally {
    await sellers.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const parts = (process.env.BENCH_HEALTH_PARTS ?? "round,memory").split(",");
if (parts.includes("round")) await roundBench();
if (parts.includes("memory")) await memoryBench();
