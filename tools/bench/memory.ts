/**
 * `npm run bench:memory`: memory, idle CPU and event-loop stalls of one instance over a large
 * catalog with every background job running (issue 26). The service runs as `npm start` runs it, on
 * SQLite (and on PostgreSQL when BENCH_POSTGRES_URL or TEST_POSTGRES_URL is set), with
 * SEARCH_SEMANTIC=off, settling on a local anvil chain started here. For each database:
 *   - start-up: until the usage indexer has passed twice and the instance spends under 50 ms of CPU
 *     a second, at most BENCH_SETTLE_SECONDS (default 300; the health prober's first round over
 *     100k seeded hosts that do not resolve lasts hours, so it runs through every window);
 *   - idle: BENCH_IDLE_SECONDS (default 150: every job's timer fires, the usage indexer's several
 *     times, the health prober's twice), sampling RSS and CPU each second, and one cheap cached
 *     request a second whose latency is what a user waiting behind a job would see;
 *   - load: BENCH_LOAD_SECONDS (default 20) of autocannon on distinct pages and searches, RSS
 *     sampled every 200 ms.
 * Printed: RSS idle / peak, idle CPU ms/s, the worst probe latency and event-loop delay (the
 * service's nodejs_eventloop_lag_max_seconds), CPU per job (x402_job_cpu_seconds_total), and
 * PASS/MISS against 250 MB and 10 ms/s. BENCH_BASELINE=<git revision> measures that revision first,
 * in the same run. The seeded catalog is kept (BENCH_SEED_DB, default in the temp directory) and
 * copied for each run.
 *   BENCH_SIZE=100000, BENCH_CONNECTIONS=16, BENCH_OUT=<file> (JSON)
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { startLocalChain } from "../../src/chain/local-chain.js";
import { benchSeller, COMMON_WORDS, seedListings } from "./seed-listings.js";
import { baselineCheckout, serve, type BenchServer, settlingOn } from "./servers.js";

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 150);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL;
const SEED_DB = process.env.BENCH_SEED_DB ?? join(tmpdir(), `bench-memory-seed-${SIZE}.db`);
const RSS_LIMIT_MB = 250;
const IDLE_CPU_LIMIT_MS = 10;
const SETTLED_CPU_MS_PER_S = 50;
const SETTLE_LIMIT_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 300);
/** The cheap request the stall probe sends once a second (a cached page). */
const PROBE_PATH = "/discovery/resources?limit=1";

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const int = (from: number, to: number) => from + Math.floor(Math.random() * (to - from + 1));
const mb = (mib: number) => mib * 1.048576;

interface Result {
  revision: string;
  database: string;
  "settled after s": number;
  "RSS MiB idle": number;
  "RSS MiB idle peak": number;
  "RSS MiB load peak": number;
  "idle CPU ms/s": number;
  "worst probe ms (idle)": number;
  "worst event-loop delay ms (idle)": number;
  "load req/s": number;
  "load CPU ms/req": number;
  jobs: Record<string, { runs: number; cpuMs: number; meanDurationMs: number }>;
}

/**
 * A GET, tried again once when the connection was reset: a kept-alive connection the server closes
 * as the next request goes out (its keep-alive timeout, on a loaded machine) ended whole runs.
 */
async function get(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch {
    return fetch(url);
  }
}

async function scrape(server: BenchServer): Promise<string> {
  return (await get(`${server.url}/metrics`)).text();
}

/** `name{job="x"} value` lines of one metric, by job. */
function byJob(text: string, name: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const job = /job="([^"]+)"/.exec(line)?.[1];
    if (job) found.set(job, (found.get(job) ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return found;
}

function gauge(text: string, name: string): number {
  const line = text.split("\n").find((row) => row.startsWith(`${name} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : Number.NaN;
}

/** Seconds until the usage indexer has run twice (its first pass tracks every seller) and the instance spends under SETTLED_CPU_MS_PER_S over 3 s. */
async function settle(server: BenchServer): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = server.cpuMs();
    await sleep(3_000);
    const seconds = (Date.now() - started) / 1000;
    const quiet = (server.cpuMs() - before) / 3 < SETTLED_CPU_MS_PER_S;
    const passes = byJob(await scrape(server), "x402_job_runs_total").get("usage-indexer") ?? 0;
    if ((quiet && passes >= 2) || seconds > SETTLE_LIMIT_SECONDS) return round(seconds, 0);
  }
}

async function measure(revision: string, database: string, server: BenchServer, sellers: number): Promise<Result> {
  const settled = await settle(server);
  await get(`${server.url}${PROBE_PATH}`).then((response) => response.arrayBuffer());
  // Idle: a sample a second; the probe's request is the only traffic.
  const jobsBefore = await scrape(server);
  const cpuBefore = server.cpuMs();
  const rss: number[] = [];
  let worstProbe = 0;
  let worstLoopDelay = 0;
  const until = Date.now() + IDLE_SECONDS * 1000;
  for (let second = 1; Date.now() < until; second++) {
    const started = performance.now();
    await get(`${server.url}${PROBE_PATH}`).then((response) => response.arrayBuffer());
    worstProbe = Math.max(worstProbe, performance.now() - started);
    rss.push(server.rssMiB());
    // The service's event-loop delay: its maximum since the last scrape (every 10 s: a scrape costs CPU too).
    if (second % 10 === 0) worstLoopDelay = Math.max(worstLoopDelay, gauge(await scrape(server), "nodejs_eventloop_lag_max_seconds") * 1000);
    await sleep(Math.max(0, 1000 - (performance.now() - started)));
  }
  const idleCpu = (server.cpuMs() - cpuBefore) / IDLE_SECONDS;
  const jobsAfter = await scrape(server);
  worstLoopDelay = Math.max(worstLoopDelay, gauge(jobsAfter, "nodejs_eventloop_lag_max_seconds") * 1000);
  const [runsBefore, runsAfter] = [byJob(jobsBefore, "x402_job_runs_total"), byJob(jobsAfter, "x402_job_runs_total")];
  const [cpuJobBefore, cpuJobAfter] = [byJob(jobsBefore, "x402_job_cpu_seconds_total"), byJob(jobsAfter, "x402_job_cpu_seconds_total")];
  const [secondsBefore, secondsAfter] = [byJob(jobsBefore, "x402_job_duration_seconds_sum"), byJob(jobsAfter, "x402_job_duration_seconds_sum")];
  const jobs: Result["jobs"] = {};
  for (const [job, total] of runsAfter) {
    const runs = total - (runsBefore.get(job) ?? 0);
    const delta = (before: Map<string, number>, after: Map<string, number>) => (after.get(job) ?? 0) - (before.get(job) ?? 0);
    jobs[job] = {
      runs,
      cpuMs: round(delta(cpuJobBefore, cpuJobAfter) * 1000),
      meanDurationMs: runs > 0 ? round((delta(secondsBefore, secondsAfter) * 1000) / runs) : 0,
    };
  }

  // Load: distinct pages and searches, so every request reads the catalog.
  const paths = [
    () => `/discovery/resources?limit=${int(1, 20)}&offset=${int(0, SIZE - 1)}`,
    () => `/discovery/search?query=${benchSeller(int(1, sellers)).slice(-12).toLowerCase()}&limit=${int(1, 20)}`,
    () => `/discovery/search?query=${COMMON_WORDS[int(0, COMMON_WORDS.length - 1)]}&limit=${int(1, 20)}&offset=${int(0, 200)}`,
    () => `/discovery/resources?sort=popular&limit=${int(1, 20)}&offset=${int(0, 5_000)}`,
  ];
  let loadPeak = 0;
  const timer = setInterval(() => (loadPeak = Math.max(loadPeak, server.rssMiB())), 200);
  const loadCpuBefore = server.cpuMs();
  const load = await autocannon({
    url: server.url,
    connections: CONNECTIONS,
    duration: LOAD_SECONDS,
    requests: [{ setupRequest: (request) => ({ ...request, path: paths[int(0, paths.length - 1)]!() }) }],
  });
  clearInterval(timer);
  const loadCpu = server.cpuMs() - loadCpuBefore;
  return {
    revision,
    database,
    "settled after s": settled,
    "RSS MiB idle": round(rss.at(-1) ?? Number.NaN, 0),
    "RSS MiB idle peak": round(Math.max(...rss), 0),
    "RSS MiB load peak": round(Math.max(loadPeak, server.rssMiB()), 0),
    "idle CPU ms/s": round(idleCpu),
    "worst probe ms (idle)": round(worstProbe, 0),
    "worst event-loop delay ms (idle)": round(worstLoopDelay, 0),
    "load req/s": Math.round(load.requests.average),
    "load CPU ms/req": round(loadCpu / Math.max(1, load.requests.total), 2),
    jobs,
  };
}

/** The seeded SQLite catalog, made once and kept: seeding 100k listings takes about a minute. */
async function seededSqlite(): Promise<{ file: string; sellers: number }> {
  const sellersFile = `${SEED_DB}.sellers`;
  if (!existsSync(SEED_DB) || !existsSync(sellersFile)) {
    mkdirSync(dirname(SEED_DB), { recursive: true });
    const partial = `${SEED_DB}.partial`;
    rmSync(partial, { force: true });
    const started = Date.now();
    const catalog = await seedListings(`file:${partial}`, SIZE - 1);
    renameSync(partial, SEED_DB);
    writeFileSync(sellersFile, String(catalog.sellers));
    console.error(`seeded ${catalog.size} listings into ${SEED_DB} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  return { file: SEED_DB, sellers: Number(readFileSync(sellersFile, "utf8")) };
}

async function postgresSchema(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const results: Result[] = [];
const directory = mkdtempSync(join(tmpdir(), "bench-memory-"));
const seed = await seededSqlite();
const chain = await startLocalChain({ buyers: 0 });
const instanceEnv = {
  ...settlingOn(chain),
  SEARCH_SEMANTIC: "off",
};
const baseline = baselineCheckout();
const schema = `bench_memory_${SIZE}`;
try {
  const revisions: Array<[string, string]> = [
    ...(baseline ? [[`${baseline.ref} (baseline)`, baseline.dir] as [string, string]] : []),
    ["this tree", process.cwd()],
  ];
  for (const [revision, cwd] of revisions) {
    const databases: Array<[string, string]> = [["SQLite", `file:${join(directory, "catalog.db")}`]];
    if (POSTGRES_URL) {
      const pgUrl = new URL(POSTGRES_URL);
      pgUrl.searchParams.set("schema", schema);
      databases.push(["PostgreSQL", pgUrl.toString()]);
    }
    for (const [database, url] of databases) {
      // Each run starts from the seeded catalog as it was (the jobs' first passes write into it).
      if (database === "SQLite") copyFileSync(seed.file, join(directory, "catalog.db"));
      else {
        await postgresSchema(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await seedListings(url, SIZE - 1);
      }
      const server = await serve("app", [], { ...instanceEnv, DATABASE_URL: url }, cwd);
      try {
        results.push(await measure(revision, database, server, seed.sellers));
        console.error(`${revision}, ${database}: ${JSON.stringify(results.at(-1))}`);
      } finally {
        await server.stop();
      }
      rmSync(join(directory, "catalog.db"), { force: true });
    }
  }
} finally {
  if (POSTGRES_URL) await postgresSchema(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
  baseline?.remove();
  rmSync(directory, { recursive: true, force: true });
  await chain.stop();
}

console.log(
  `\n${SIZE} listings, every job on, SEARCH_SEMANTIC=off; idle ${IDLE_SECONDS} s, load ${LOAD_SECONDS} s at ${CONNECTIONS} connections; CPU and RSS from /proc; machine: ${cpus().length} cores, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.table(results.map(({ jobs: _jobs, ...row }) => row));
console.log("Per job over the idle window (CPU: the process's while the run was in progress)");
console.table(
  results.flatMap((result) => Object.entries(result.jobs).map(([job, figures]) => ({ revision: result.revision, database: result.database, job, ...figures }))),
);
const checks = results.flatMap((result) => {
  const peak = Math.max(result["RSS MiB idle peak"], result["RSS MiB load peak"]);
  return [
    {
      revision: result.revision,
      database: result.database,
      target: `RSS < ${RSS_LIMIT_MB} MB idle and under load`,
      figures: `${mb(peak).toFixed(0)} MB peak`,
      result: mb(peak) < RSS_LIMIT_MB ? "PASS" : "MISS",
    },
    {
      revision: result.revision,
      database: result.database,
      target: `idle CPU < ${IDLE_CPU_LIMIT_MS} ms/s`,
      figures: `${result["idle CPU ms/s"]} ms/s`,
      result: result["idle CPU ms/s"] < IDLE_CPU_LIMIT_MS ? "PASS" : "MISS",
    },
  ];
});
console.log("Targets (issue 26; computed from this run, not asserted)");
console.table(checks);
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${JSON.stringify({ size: SIZE, results, checks, load: loadavg() }, null, 2)}\n`);
