/**
 * `npm run bench:memory`: memory, idle CPU and event-loop stalls of one instance over a large
 * catalog with every background job running (issue 26). The service runs as `npm start` runs it, on
 * SQLite (and on PostgreSQL when BENCH_POSTGRES_URL or TEST_POSTGRES_URL is set), with
 * SEARCH_SEMANTIC=off, settling on a local anvil chain started here. For each database:
 *   - start-up: until the usage indexer has passed twice and the instance spends under 50 ms of CPU
 *     a second, at most BENCH_SETTLE_SECONDS (default 300; the health prober's first round over
 *     100k seeded hosts that do not resolve lasts hours, so it runs through every window);
 *   - idle: BENCH_IDLE_SECONDS (default 150: every job's timer fires, the usage indexer's several
 *     times, the health prober's twice) with nothing sent to the instance: RSS each second and the
 *     CPU from /proc (the whole process, and its main thread apart); a scrape of /metrics before and
 *     after the window gives the jobs' figures and the worst event-loop delay in it;
 *   - what watching it costs, apart: the CPU of a /metrics scrape (a monitor scrapes every 15-60 s)
 *     and of a cached request, each above the idle rate just measured;
 *   - load: BENCH_LOAD_SECONDS (default 20) of autocannon on distinct pages and searches, RSS
 *     sampled every 200 ms.
 * Printed: RSS idle / peak, idle CPU ms/s, the worst event-loop delay while idle (the service's
 * nodejs_eventloop_lag_max_seconds: how long a request could wait behind a job), CPU per job
 * (x402_job_cpu_seconds_total), the scrape's and the cached request's CPU, and PASS/MISS against
 * 250 MB and 10 ms/s. BENCH_BASELINE=<git revision> measures that revision first,
 * in the same run. The seeded catalog is kept (BENCH_SEED_DB, default in the temp directory) and
 * copied for each run, every live listing given its health schedule as a running catalog has.
 *   BENCH_SIZE=100000, BENCH_CONNECTIONS=16, BENCH_OUT=<file> (JSON)
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { startLocalChain } from "../../src/chain/local-chain.js";
import { HealthStore } from "../../src/health/health-store.js";
import { CatalogTransactions } from "../../src/storage/catalog/catalog-transactions.js";
import { openDatabase } from "../../src/storage/database.js";
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
/** A cheap cached request, whose CPU is measured apart from the idle window. */
const CACHED_PATH = "/discovery/resources?limit=1";
/** Scrapes and cached requests sent to measure what each costs (/proc counts CPU in 10 ms ticks). */
const SCRAPES_MEASURED = 20;
const REQUESTS_MEASURED = 500;

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const int = (from: number, to: number) => from + Math.floor(Math.random() * (to - from + 1));
const mb = (mib: number) => mib * 1.048576;
/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = 100;

interface Result {
  revision: string;
  database: string;
  "settled after s": number;
  "RSS MiB idle": number;
  "RSS MiB idle peak": number;
  "RSS MiB load peak": number;
  "idle CPU ms/s": number;
  "idle main-thread CPU ms/s": number;
  "worst event-loop delay ms (idle)": number;
  /** Health probes sent in the idle window (x402_seller_probes_total; a host already known not to resolve is answered without one). */
  "probes (idle)": number;
  "scrape CPU ms": number;
  "cached request CPU ms": number;
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

/** A counter's total over all its label sets. */
function counterTotal(text: string, name: string): number {
  return text
    .split("\n")
    .filter((row) => row.startsWith(`${name}{`) || row.startsWith(`${name} `))
    .reduce((total, row) => total + Number(row.slice(row.lastIndexOf(" ") + 1)), 0);
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

/** CPU time of the server's main thread (requests and the jobs' JavaScript), in ms: /proc/<pid>/task/<pid>/stat. */
function mainThreadCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** CPU of one `send()`, above what the instance spends idle meanwhile (`idleMsPerS`), sent `times` one after another. */
async function cpuEach(
  server: BenchServer,
  idleMsPerS: number,
  times: number,
  send: () => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  const before = server.cpuMs();
  for (let i = 0; i < times; i++) await send();
  const spent = server.cpuMs() - before - (idleMsPerS * (performance.now() - started)) / 1000;
  return Math.max(0, spent) / times;
}

async function measure(revision: string, database: string, server: BenchServer, sellers: number): Promise<Result> {
  const settled = await settle(server);
  await get(`${server.url}${CACHED_PATH}`).then((response) => response.arrayBuffer());
  // Idle: nothing is sent in the window. This scrape also starts the event-loop delay's maximum afresh.
  const jobsBefore = await scrape(server);
  const cpuBefore = server.cpuMs();
  const mainBefore = mainThreadCpuMs(server.pid);
  const windowStart = performance.now();
  const rss: number[] = [];
  const until = Date.now() + IDLE_SECONDS * 1000;
  while (Date.now() < until) {
    rss.push(server.rssMiB());
    await sleep(1000);
  }
  const windowSeconds = (performance.now() - windowStart) / 1000;
  const idleCpu = (server.cpuMs() - cpuBefore) / windowSeconds;
  const idleMainCpu = (mainThreadCpuMs(server.pid) - mainBefore) / windowSeconds;
  const jobsAfter = await scrape(server);
  const worstLoopDelay = gauge(jobsAfter, "nodejs_eventloop_lag_max_seconds") * 1000;
  const scrapeCpu = await cpuEach(server, idleCpu, SCRAPES_MEASURED, () => scrape(server));
  const cachedCpu = await cpuEach(server, idleCpu, REQUESTS_MEASURED, () =>
    get(`${server.url}${CACHED_PATH}`).then((response) => response.arrayBuffer()),
  );
  const [runsBefore, runsAfter] = [byJob(jobsBefore, "x402_job_runs_total"), byJob(jobsAfter, "x402_job_runs_total")];
  const [cpuJobBefore, cpuJobAfter] = [
    byJob(jobsBefore, "x402_job_cpu_seconds_total"),
    byJob(jobsAfter, "x402_job_cpu_seconds_total"),
  ];
  const [secondsBefore, secondsAfter] = [
    byJob(jobsBefore, "x402_job_duration_seconds_sum"),
    byJob(jobsAfter, "x402_job_duration_seconds_sum"),
  ];
  const jobs: Result["jobs"] = {};
  for (const [job, total] of runsAfter) {
    const runs = total - (runsBefore.get(job) ?? 0);
    const delta = (before: Map<string, number>, after: Map<string, number>) =>
      (after.get(job) ?? 0) - (before.get(job) ?? 0);
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
    () =>
      `/discovery/search?query=${COMMON_WORDS[int(0, COMMON_WORDS.length - 1)]}&limit=${int(1, 20)}&offset=${int(0, 200)}`,
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
    "idle main-thread CPU ms/s": round(idleMainCpu),
    "worst event-loop delay ms (idle)": round(worstLoopDelay, 0),
    "probes (idle)":
      counterTotal(jobsAfter, "x402_seller_probes_total") - counterTotal(jobsBefore, "x402_seller_probes_total"),
    "scrape CPU ms": round(scrapeCpu),
    "cached request CPU ms": round(cachedCpu, 2),
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

/**
 * The seeded catalog as one that has been running: every live listing has its health schedule (a
 * paid listing gets it when listed, the prober's first round gives it to the rest). Without it the
 * idle window could hold that one-time insert of 100k rows (about 1 s of CPU in one statement).
 */
async function scheduleHealth(databaseUrl: string): Promise<void> {
  const database = await openDatabase(databaseUrl);
  try {
    await new HealthStore(new CatalogTransactions(database)).schedule(new Date());
  } finally {
    await database.close();
  }
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
      await scheduleHealth(url);
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
  `\n${SIZE} listings, every job on, SEARCH_SEMANTIC=off; idle ${IDLE_SECONDS} s with nothing sent (scrape and cached request measured apart), load ${LOAD_SECONDS} s at ${CONNECTIONS} connections; CPU and RSS from /proc; machine: ${cpus().length} cores, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.table(results.map(({ jobs: _jobs, ...row }) => row));
console.log("Per job over the idle window (CPU: the process's while the run was in progress)");
console.table(
  results.flatMap((result) =>
    Object.entries(result.jobs).map(([job, figures]) => ({
      revision: result.revision,
      database: result.database,
      job,
      ...figures,
    })),
  ),
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
if (process.env.BENCH_OUT)
  writeFileSync(
    process.env.BENCH_OUT,
    `${JSON.stringify({ size: SIZE, results, checks, load: loadavg() }, null, 2)}\n`,
  );
