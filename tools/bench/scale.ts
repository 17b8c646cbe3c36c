/**
 * `npm run bench:scale`: the scale-out in one run (issue 26). One catalog seeded into SQLite and
 * into PostgreSQL; then one SQLite instance, one PostgreSQL instance and two PostgreSQL instances
 * together (each `npm start`'s command in its own process, every background job running), each
 * under the same loads: cached page and search (one URL repeated), uncached page and search (a
 * distinct URL per request), the first and the deepest `sort=price&verified=true` page, and a mixed
 * load at many connections. Beside req/s and latency: service CPU per request (from /proc), the
 * PostgreSQL backends' CPU per request, catalog stamp reads and database statements per request
 * (the service's own metrics), idle CPU per second and resident memory. The issue's targets are
 * printed as PASS/MISS (not asserted).
 * Every instance settles on one local anvil chain started here (as instances sharing a database share
 * a chain), and runs with SEARCH_SEMANTIC=off unless BENCH_SEARCH_SEMANTIC=on: this bench compares
 * the database paths; the search engine's memory and backfill are `npm run bench:search`'s.
 *   BENCH_POSTGRES_URL or TEST_POSTGRES_URL (required), BENCH_SIZE=10000, BENCH_SECONDS=5,
 *   BENCH_CONNECTIONS=16, BENCH_MIXED_CONNECTIONS=100, BENCH_OUT=<file> (JSON),
 *   BENCH_BASELINE=<checkout> (another build, e.g. a git worktree of an older commit with its
 *   node_modules: its one SQLite and one PostgreSQL instance are measured too, on the same catalog in
 *   the same run; BENCH_BASELINE_FIRST=1 runs it before the current build), BENCH_SETUPS and BENCH_LOADS (comma-separated name prefixes: run only those),
 *   BENCH_SCHEMA (bench_scale_<size>: the PostgreSQL schema it creates and drops).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { startLocalChain } from "../../src/chain/local-chain.js";
import { createAdapterFactory, parseDatabaseUrl } from "../../src/storage/connection.js";
import { postgresBackendCpu, type BackendCpu } from "./db-cpu.js";
import { benchSeller, COMMON_WORDS, seedListings, type SeededCatalog } from "./seed-listings.js";
import { serve, type BenchServer, settlingOn } from "./servers.js";

const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL;
if (!POSTGRES_URL)
  throw new Error("set BENCH_POSTGRES_URL or TEST_POSTGRES_URL: the scale bench compares SQLite with PostgreSQL");
const SIZE = Number(process.env.BENCH_SIZE ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const MIXED_CONNECTIONS = Number(process.env.BENCH_MIXED_CONNECTIONS ?? 100);
const IDLE_SECONDS = 5;
const APPLICATION_NAME = "x402-bench-scale";
const BASELINE = process.env.BENCH_BASELINE;
const only = (variable: string) => (name: string) =>
  !process.env[variable] || process.env[variable]!.split(",").some((prefix) => name.startsWith(prefix.trim()));
const setupWanted = only("BENCH_SETUPS");
const loadWanted = only("BENCH_LOADS");

type Setup = "1 SQLite" | "1 PostgreSQL" | "2 PostgreSQL" | "baseline 1 SQLite" | "baseline 1 PostgreSQL";
interface Row {
  setup: Setup;
  load: string;
  "req/s": number;
  "p50 ms": number;
  "p99 ms": number;
  errors: number;
  "service CPU ms/req": number;
  "backend CPU ms/req": number | "";
  "stamp reads/req": number;
  "DB statements/req": number;
}

const round = (value: number, digits = 3) => Number(value.toFixed(digits));
const int = (from: number, to: number) => from + Math.floor(Math.random() * (to - from + 1));
/** Distinct spellings of one number (leading zeros), so a few offsets never meet a cached URL. */
function spellings(cycle: number): (value: number) => string {
  let n = 0;
  return (value) => `${"0".repeat(n++ % cycle)}${value}`;
}

async function metricsOf(server: BenchServer): Promise<{ stampReads: number; statements: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const sum = (name: string) =>
    text
      .split("\n")
      .filter((line) => line.startsWith(name))
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
  return {
    stampReads: sum("x402_catalog_stamp_reads_total"),
    statements: sum("x402_database_query_duration_seconds_count"),
  };
}

const SETTLE_LIMIT_SECONDS = 300;
const SETTLED_CPU_MS_PER_S = 50;
/** Seconds until every instance spends under SETTLED_CPU_MS_PER_S over 3 s (at most SETTLE_LIMIT_SECONDS). */
async function settled(servers: BenchServer[]): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = servers.map((server) => server.cpuMs());
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const busiest = Math.max(...servers.map((server, i) => (server.cpuMs() - before[i]!) / 3));
    const seconds = (Date.now() - started) / 1000;
    if (busiest < SETTLED_CPU_MS_PER_S || seconds > SETTLE_LIMIT_SECONDS) return round(seconds, 0);
  }
}

interface Load {
  name: string;
  /** One URL repeated, or a new path per request. */
  path: string | (() => string);
  connections?: number;
}

function loadsFor(catalog: SeededCatalog, verified: number): Load[] {
  const sellerSubstring = () =>
    benchSeller(int(1, catalog.sellers))
      .slice(2 + int(0, 28), 2 + 40)
      .slice(0, 12)
      .toLowerCase();
  const first = spellings(300);
  const deepest = spellings(300);
  const mixed: Array<() => string> = [
    () => "/discovery/resources",
    () => "/bazaar.json",
    () => `/discovery/search?query=${benchSeller(1).slice(-12).toLowerCase()}`,
    () => `/discovery/resources?limit=${int(1, 20)}&offset=${int(0, catalog.size - 1)}`,
    () => `/discovery/search?query=${sellerSubstring()}&limit=${int(1, 20)}`,
    () =>
      `/discovery/search?query=${COMMON_WORDS[int(0, COMMON_WORDS.length - 1)]}&limit=${int(1, 20)}&offset=${int(0, 200)}`,
    () => `/discovery/resources?sort=popular&limit=${int(1, 20)}&offset=${int(0, catalog.size - 1)}`,
    () => `/discovery/resources?sort=price&verified=true&limit=${int(1, 20)}&offset=${int(0, verified - 1)}`,
  ];
  return [
    { name: "cached resources page", path: "/discovery/resources" },
    { name: "cached search", path: `/discovery/search?query=${benchSeller(1).slice(-12).toLowerCase()}` },
    {
      name: "uncached resources page",
      path: () => `/discovery/resources?limit=${int(1, 20)}&offset=${int(0, catalog.size - 1)}`,
    },
    { name: "uncached search", path: () => `/discovery/search?query=${sellerSubstring()}&limit=${int(1, 20)}` },
    {
      name: "sort=price&verified=true first page",
      path: () => `/discovery/resources?sort=price&verified=true&limit=20&offset=${first(0)}`,
    },
    {
      name: "sort=price&verified=true deepest page",
      path: () =>
        `/discovery/resources?sort=price&verified=true&limit=20&offset=${deepest(Math.max(0, verified - 20))}`,
    },
    {
      name: `mixed (${MIXED_CONNECTIONS} connections)`,
      path: () => mixed[int(0, mixed.length - 1)]!(),
      connections: MIXED_CONNECTIONS,
    },
  ];
}

/** The load spread over the instances (connections split evenly), all at once; their results merged. */
async function run(setup: Setup, servers: BenchServer[], load: Load, backends: BackendCpu | undefined): Promise<Row> {
  const connections = Math.max(1, Math.round((load.connections ?? CONNECTIONS) / servers.length));
  const cpuBefore = servers.map((server) => server.cpuMs());
  const metricsBefore = await Promise.all(servers.map(metricsOf));
  const stopBackends = backends?.follow();
  const results = await Promise.all(
    servers.map((server) =>
      autocannon({
        url: typeof load.path === "string" ? `${server.url}${load.path}` : server.url,
        connections,
        duration: SECONDS,
        requests:
          typeof load.path === "string"
            ? undefined
            : [{ setupRequest: (request) => ({ ...request, path: (load.path as () => string)() }) }],
      }),
    ),
  );
  const backendMs = stopBackends ? await stopBackends() : undefined;
  const cpuMs = servers.reduce((sum, server, i) => sum + server.cpuMs() - cpuBefore[i]!, 0);
  const metricsAfter = await Promise.all(servers.map(metricsOf));
  const answered = Math.max(
    1,
    results.reduce((sum, result) => sum + result.requests.total, 0),
  );
  const delta = (key: "stampReads" | "statements") =>
    metricsAfter.reduce((sum, after, i) => sum + after[key] - metricsBefore[i]![key], 0);
  let errors = 0;
  for (const result of results) {
    errors += result.errors + result.timeouts;
    for (const [code, { count = 0 }] of Object.entries(result.statusCodeStats ?? {}))
      if (Number(code) >= 400) errors += count;
  }
  return {
    setup,
    load: load.name,
    "req/s": Math.round(results.reduce((sum, result) => sum + result.requests.average, 0)),
    "p50 ms": Math.max(...results.map((result) => result.latency.p50)),
    "p99 ms": Math.max(...results.map((result) => result.latency.p99)),
    errors,
    "service CPU ms/req": round(cpuMs / answered),
    "backend CPU ms/req": backendMs === undefined ? "" : round(backendMs / answered),
    "stamp reads/req": round(delta("stampReads") / answered, 4),
    "DB statements/req": round(delta("statements") / answered, 4),
  };
}

async function postgresAdmin(sql: string): Promise<void> {
  const target = parseDatabaseUrl(POSTGRES_URL!) as Extract<ReturnType<typeof parseDatabaseUrl>, { kind: "postgres" }>;
  const admin = await createAdapterFactory({ ...target, schema: undefined }).connect();
  try {
    await admin.executeScript(sql);
  } finally {
    await admin.dispose();
  }
}

const rows: Row[] = [];
const machine: Record<string, string | number> = {};
const directory = mkdtempSync(join(tmpdir(), "bench-scale-"));
const schema = process.env.BENCH_SCHEMA ?? `bench_scale_${SIZE}`;
const pgUrl = new URL(POSTGRES_URL);
pgUrl.searchParams.set("schema", schema);
pgUrl.searchParams.set("application_name", APPLICATION_NAME);
const sqliteUrl = `file:${join(directory, "catalog.db")}`;
await postgresAdmin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
const chain = await startLocalChain({ buyers: 0 });
const instanceEnv = {
  ...settlingOn(chain),
  SEARCH_SEMANTIC: process.env.BENCH_SEARCH_SEMANTIC ?? "off",
};
try {
  const seeding = Date.now();
  const [catalog] = await Promise.all([seedListings(sqliteUrl, SIZE - 1), seedListings(pgUrl.toString(), SIZE - 1)]);
  console.error(
    `seeded ${catalog.size} listings into SQLite and PostgreSQL in ${((Date.now() - seeding) / 1000).toFixed(1)} s`,
  );
  // The baseline's instances run next to the current ones, so that a drift in the machine's load
  // does not fall on one side only. The first instance on a fresh catalog also does the jobs' first
  // passes (the next finds them done): BENCH_BASELINE_FIRST=1 puts the baseline's first, to run both orders.
  type Instances = [Setup, string, number, string];
  const pair = (current: Instances, baseline: Instances): Instances[] =>
    !BASELINE ? [current] : process.env.BENCH_BASELINE_FIRST === "1" ? [baseline, current] : [current, baseline];
  const setups: Instances[] = [
    ...pair(["1 SQLite", sqliteUrl, 1, process.cwd()], ["baseline 1 SQLite", sqliteUrl, 1, BASELINE ?? ""]),
    ...pair(
      ["1 PostgreSQL", pgUrl.toString(), 1, process.cwd()],
      ["baseline 1 PostgreSQL", pgUrl.toString(), 1, BASELINE ?? ""],
    ),
    ["2 PostgreSQL", pgUrl.toString(), 2, process.cwd()],
  ];
  for (const [setup, databaseUrl, instances, cwd] of setups.filter(([setup]) => setupWanted(setup))) {
    const servers: BenchServer[] = [];
    const backends = setup.endsWith("SQLite") ? undefined : await postgresBackendCpu(POSTGRES_URL, APPLICATION_NAME);
    try {
      for (let i = 0; i < instances; i++)
        servers.push(await serve("app", [], { ...instanceEnv, DATABASE_URL: databaseUrl }, cwd));
      // Start-up work (migrations checked, statistics, the first job passes over the whole catalog)
      // settles first: the loads are measured against instances at rest, not against their first passes.
      machine[`${setup} start-up work settled after s`] = await settled(servers);
      const idleBefore = servers.map((server) => server.cpuMs());
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      const idleCpu =
        servers.reduce((sum, server, i) => sum + server.cpuMs() - idleBefore[i]!, 0) / servers.length / IDLE_SECONDS;
      const idleRss = Math.max(...servers.map((server) => server.rssMiB()));
      const verified = (
        (await (await fetch(`${servers[0]!.url}/discovery/resources?sort=price&verified=true&limit=1`)).json()) as {
          pagination: { total: number };
        }
      ).pagination.total;
      let peakRss = idleRss;
      const rssTimer = setInterval(
        () => (peakRss = Math.max(peakRss, ...servers.map((server) => server.rssMiB()))),
        200,
      );
      try {
        for (const load of loadsFor(catalog, verified).filter((load) => loadWanted(load.name))) {
          // A first pass warms the instance (and its response cache for the cached loads).
          for (const server of servers)
            await fetch(`${server.url}${typeof load.path === "string" ? load.path : load.path()}`).then((response) =>
              response.arrayBuffer(),
            );
          rows.push(await run(setup, servers, load, backends));
          console.error(`${setup}: ${load.name}: ${rows.at(-1)!["req/s"]} req/s`);
        }
      } finally {
        clearInterval(rssTimer);
      }
      machine[`${setup} idle CPU ms/s per instance`] = round(idleCpu, 1);
      machine[`${setup} RSS MiB idle / peak`] = `${idleRss.toFixed(0)} / ${peakRss.toFixed(0)}`;
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await backends?.close();
    }
  }
} finally {
  await postgresAdmin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  rmSync(directory, { recursive: true, force: true });
  await chain.stop();
}

const find = (setup: Setup, load: string) => rows.find((row) => row.setup === setup && row.load.startsWith(load));
const totalCpu = (row: Row | undefined) =>
  row ? row["service CPU ms/req"] + (row["backend CPU ms/req"] || 0) : Number.NaN;
const checks: Array<{ target: string; figures: string; result: "PASS" | "MISS" }> = [];
const check = (target: string, figures: string, ok: boolean) =>
  checks.push({ target, figures, result: ok ? "PASS" : "MISS" });
for (const load of ["cached resources page", "cached search"]) {
  const [sqlite, one, two] = [find("1 SQLite", load), find("1 PostgreSQL", load), find("2 PostgreSQL", load)];
  if (!sqlite || !one || !two) continue;
  check(
    `${load}: one PostgreSQL instance >= 80% of one SQLite's req/s`,
    `${one["req/s"]} / ${sqlite["req/s"]} = ${((one["req/s"] / sqlite["req/s"]) * 100).toFixed(0)}%`,
    one["req/s"] >= 0.8 * sqlite["req/s"],
  );
  check(
    `${load}: two PostgreSQL instances >= 1.6x one SQLite's req/s`,
    `${two["req/s"]} / ${sqlite["req/s"]} = ${(two["req/s"] / sqlite["req/s"]).toFixed(2)}x`,
    two["req/s"] >= 1.6 * sqlite["req/s"],
  );
  check(
    `${load} (two cores): PostgreSQL CPU/request within 1.25x of SQLite's, 0 stamp reads per request`,
    `${totalCpu(one).toFixed(3)} / ${totalCpu(sqlite).toFixed(3)} ms = ${(totalCpu(one) / totalCpu(sqlite)).toFixed(2)}x; ${one["stamp reads/req"]} stamp reads/req`,
    totalCpu(one) <= 1.25 * totalCpu(sqlite) && one["stamp reads/req"] < 0.01,
  );
}
for (const load of ["uncached resources page", "uncached search"]) {
  for (const [sqliteSetup, pgSetup] of [
    ["1 SQLite", "1 PostgreSQL"],
    ["baseline 1 SQLite", "baseline 1 PostgreSQL"],
  ] as const) {
    const [sqlite, one] = [find(sqliteSetup, load), find(pgSetup, load)];
    if (sqlite && one)
      check(
        `${pgSetup.replace("1 PostgreSQL", "")}${load} at ${SIZE}: PostgreSQL service + backend CPU within 1.5x of SQLite's`,
        `${totalCpu(one).toFixed(3)} / ${totalCpu(sqlite).toFixed(3)} ms = ${(totalCpu(one) / totalCpu(sqlite)).toFixed(2)}x`,
        totalCpu(one) <= 1.5 * totalCpu(sqlite),
      );
  }
}
for (const setup of ["1 SQLite", "1 PostgreSQL", "baseline 1 SQLite", "baseline 1 PostgreSQL"] as const) {
  const [first, deepest] = [
    find(setup, "sort=price&verified=true first"),
    find(setup, "sort=price&verified=true deepest"),
  ];
  if (first && deepest)
    check(
      `${setup}: deepest sort=price&verified=true page within 2x of its first (CPU/request)`,
      `${totalCpu(deepest).toFixed(3)} / ${totalCpu(first).toFixed(3)} ms = ${(totalCpu(deepest) / totalCpu(first)).toFixed(2)}x`,
      totalCpu(deepest) <= 2 * totalCpu(first),
    );
}
for (const [key, value] of Object.entries(machine)) {
  if (key.endsWith("idle CPU ms/s per instance"))
    check(`${key.replace(" idle CPU ms/s per instance", "")}: idle CPU < 10 ms/s`, `${value} ms/s`, Number(value) < 10);
  if (key.endsWith("RSS MiB idle / peak")) {
    const peak = Number(String(value).split(" / ")[1]);
    check(
      `${key.replace(" RSS MiB idle / peak", "")}: RSS < 250 MB idle and under load`,
      `${value} MiB`,
      peak * 1.048576 < 250,
    );
  }
}
const errors = rows.reduce((sum, row) => sum + row.errors, 0);
check("no errors, no 4xx/5xx", `${errors}`, errors === 0);

console.log(
  `\n${SIZE} listings; autocannon ${CONNECTIONS} connections (split over the instances), ${SECONDS} s a row; CPU from /proc; machine: ${cpus().length} cores, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.table(rows);
console.table(machine);
console.log("Targets (issue 26; computed from this run, not asserted)");
console.table(checks);
if (process.env.BENCH_OUT)
  writeFileSync(
    process.env.BENCH_OUT,
    `${JSON.stringify({ size: SIZE, seconds: SECONDS, connections: CONNECTIONS, rows, machine, checks }, null, 2)}\n`,
  );
