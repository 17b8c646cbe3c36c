/**
 * `npm run bench`: the catalog's read routes as users send them, at 1k, 10k and 100k listings, on
 * SQLite and (with BENCH_POSTGRES_URL or TEST_POSTGRES_URL) on PostgreSQL, all in one run. Each read
 * runs twice under autocannon: one URL repeated (the response cache answers) and a distinct URL per
 * request (the handler and the database answer); scenarios.ts lists them. Beside latency and req/s,
 * the service's CPU per request and the database's share of it (db-cpu.ts), its resident memory
 * under the uncached load, and targets computed from the same run (PASS/MISS, not asserted).
 * The service runs as `npm start` runs it, in its own process, after seeding (seed-listings.ts).
 *   BENCH_SIZES=1000,10000,100000  BENCH_SECONDS=5  BENCH_BASELINE=<git revision> (that revision's
 *   service too, same data)  BENCH_OUT=<file> (the results as JSON)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { createAdapterFactory, parseDatabaseUrl } from "../../src/storage/connection.js";
import { seedListings, type SeededCatalog } from "./seed-listings.js";
import { baselineCheckout, bodyFile, serve, type BenchServer } from "./servers.js";
import { scenarios } from "./scenarios.js";
import { postgresBackendCpu, sqliteDbTimer, type BackendCpu } from "./db-cpu.js";
import { targets, type Row } from "./targets.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL;
const CONNECTIONS = 16;
/** Fresh inputs per scenario for timing SQLite's share (as many again warm the reads' memo first). */
const DB_SAMPLES = 300;
const APPLICATION_NAME = "x402-bench-service";

const rows: Row[] = [];
const baseline = baselineCheckout();

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

function load(url: string, options: Partial<autocannon.Options> = {}): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration: SECONDS, ...options });
}

/** Socket errors, timeouts and every status but 2xx (and 304 where a revalidation expects it). */
function failures(result: autocannon.Result, allow304 = false): { errors: number; "5xx": number } {
  let errors = result.errors;
  let serverErrors = 0;
  for (const [code, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) {
    const status = Number(code);
    if (status >= 500) serverErrors += count;
    if ((status < 200 || status >= 300) && !(allow304 && status === 304)) errors += count;
  }
  return { errors, "5xx": serverErrors };
}

/** A response's own headers, without those node:http adds per connection. */
function headersOf(response: Response): Record<string, string> {
  const perConnection = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);
  return Object.fromEntries([...response.headers].filter(([name]) => !perConnection.has(name)));
}

interface Target {
  database: "sqlite" | "postgres";
  size: number;
  databaseUrl: string;
  catalog: SeededCatalog;
  backends?: BackendCpu | undefined;
  sqliteFile?: string | undefined;
}

/** Runs one load against the service and records its row. */
async function measured(
  app: BenchServer,
  target: Target,
  label: string,
  scenario: string,
  urls: "same" | "distinct",
  run: () => Promise<autocannon.Result>,
  extra: { dbMs?: number | undefined; allow304?: boolean; bare?: autocannon.Result; rss?: { peak: number } } = {},
): Promise<autocannon.Result> {
  const cpuBefore = app.cpuMs();
  const stopBackends = target.backends?.follow();
  const rssTimer = extra.rss && setInterval(() => (extra.rss!.peak = Math.max(extra.rss!.peak, app.rssMiB())), 200);
  const result = await run();
  if (rssTimer) clearInterval(rssTimer);
  const answered = Math.max(1, result.requests.total);
  const serviceMs = (app.cpuMs() - cpuBefore) / answered;
  const backendMs = stopBackends ? (await stopBackends()) / answered : undefined;
  // SQLite: the service's CPU includes the database's; PostgreSQL: the backends' is apart from it.
  const dbMs = target.database === "postgres" ? backendMs : extra.dbMs;
  rows.push({
    database: target.database,
    listings: target.catalog.size,
    scenario: `${scenario}${label}`,
    URLs: urls,
    "req/s": Math.round(result.requests.average),
    "p50 ms": result.latency.p50,
    "p99 ms": result.latency.p99,
    ...failures(result, extra.allow304),
    "service CPU ms/req": round(serviceMs),
    "DB ms/req": dbMs === undefined ? "" : round(dbMs),
    "non-DB ms/req": dbMs === undefined ? "" : round(target.database === "postgres" ? serviceMs : serviceMs - dbMs),
    "bare node req/s": extra.bare ? Math.round(extra.bare.requests.average) : "",
    "vs bare": extra.bare ? `${Math.round((result.requests.average / extra.bare.requests.average) * 100)}%` : "",
  });
  return result;
}

async function measure(target: Target, cwd?: string, label = ""): Promise<void> {
  const app = await serve("app", [], { DATABASE_URL: target.databaseUrl }, cwd);
  let cleanup = () => {};
  try {
    const idleMiB = app.rssMiB();
    const service = (await (await fetch(`${app.url}/discovery/search?query=service&limit=1`)).json()) as {
      pagination?: { total?: number };
    };
    // An older revision (BENCH_BASELINE) may not tell the total: about a fifth of the rows say "service".
    const list = scenarios(target.catalog, service.pagination?.total ?? Math.round(target.catalog.size / 5));
    const page = await fetch(`${app.url}/discovery/resources`);
    const bytes = Buffer.from(await page.arrayBuffer());
    const etag = page.headers.get("etag")!;
    const notModified = await fetch(`${app.url}/discovery/resources`, { headers: { "if-none-match": etag } });
    const sameHeaders = bodyFile(JSON.stringify({ "200": headersOf(page), "304": headersOf(notModified) }));
    const bare = await serve("node", [bodyFile(bytes), sameHeaders]);
    let bare200: autocannon.Result;
    let bare304: autocannon.Result;
    try {
      bare200 = await load(bare.url);
      bare304 = await load(bare.url, { headers: { "if-none-match": etag } });
    } finally {
      await bare.stop();
    }
    const rss = { peak: app.rssMiB() };
    // Opened once the service has run its start-up maintenance (statistics), so its reads plan as the service's do.
    const dbTimer = label === "" && target.database === "sqlite" ? sqliteDbTimer(target.sqliteFile!) : undefined;
    cleanup = () => dbTimer?.close();
    for (const scenario of list) {
      if (scenario.cachedPath) {
        await fetch(`${app.url}${scenario.cachedPath}`);
        const isPage = scenario.cachedPath === "/discovery/resources";
        const name = isPage
          ? `${scenario.name} (${Math.round(bytes.length / 1024)} KiB, bare node sends the same bytes and headers)`
          : scenario.name;
        await measured(app, target, label, name, "same", () => load(`${app.url}${scenario.cachedPath}`), {
          bare: isPage ? bare200 : undefined,
        });
        if (isPage) {
          await measured(
            app,
            target,
            label,
            "resources page, 304 revalidation (bare node sends the same 304)",
            "same",
            () => load(`${app.url}/discovery/resources`, { headers: { "if-none-match": etag } }),
            { allow304: true, bare: bare304 },
          );
        }
      }
      const dbMs = dbTimer ? await dbTimer.msPerRequest(scenario, DB_SAMPLES) : undefined;
      await measured(
        app,
        target,
        label,
        scenario.name,
        "distinct",
        () => load(app.url, { requests: [{ setupRequest: (request) => ({ ...request, path: scenario.nextPath() }) }] }),
        { dbMs, rss },
      );
    }
    rows.push({
      database: target.database,
      listings: target.catalog.size,
      scenario: `service resident memory: idle / peak under the uncached loads${label}`,
      URLs: "",
      "req/s": `${idleMiB.toFixed(0)} / ${rss.peak.toFixed(0)} MiB`,
      rssPeakMiB: round(rss.peak, 1),
    });
  } finally {
    cleanup();
    await app.stop();
  }
}

async function postgresAdmin(baseUrl: string, sql: string): Promise<void> {
  const admin = await createAdapterFactory({
    ...(parseDatabaseUrl(baseUrl) as Extract<ReturnType<typeof parseDatabaseUrl>, { kind: "postgres" }>),
    schema: undefined,
  }).connect();
  try {
    await admin.executeScript(sql);
  } finally {
    await admin.dispose();
  }
}

async function benchOne(database: "sqlite" | "postgres", size: number): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "bench-catalog-"));
  let databaseUrl: string;
  let drop: () => Promise<void>;
  if (database === "sqlite") {
    databaseUrl = `file:${join(directory, "catalog.db")}`;
    drop = async () => {};
  } else {
    const schema = `bench_${size}`;
    const url = new URL(POSTGRES_URL!);
    url.searchParams.set("schema", schema);
    url.searchParams.set("application_name", APPLICATION_NAME);
    databaseUrl = url.toString();
    drop = () => postgresAdmin(POSTGRES_URL!, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await drop();
  }
  try {
    const seeding = Date.now();
    const catalog = await seedListings(databaseUrl, size - 1);
    console.error(`${database}: seeded ${catalog.size} listings in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
    const target: Target = { database, size, databaseUrl, catalog };
    if (database === "sqlite") target.sqliteFile = join(directory, "catalog.db");
    else target.backends = await postgresBackendCpu(POSTGRES_URL!, APPLICATION_NAME);
    try {
      await measure(target);
      if (baseline) await measure(target, baseline.dir, ` [baseline ${baseline.ref}]`);
    } finally {
      await target.backends?.close();
    }
  } finally {
    await drop();
    rmSync(directory, { recursive: true, force: true });
  }
}

const databases: Array<"sqlite" | "postgres"> = POSTGRES_URL ? ["sqlite", "postgres"] : ["sqlite"];
if (!POSTGRES_URL) console.error("PostgreSQL: set BENCH_POSTGRES_URL or TEST_POSTGRES_URL to measure it too");
try {
  for (const size of SIZES) for (const database of databases) await benchOne(database, size);
} finally {
  baseline?.remove();
}
const checks = targets(rows, SIZES);
console.log(
  `\nautocannon, ${CONNECTIONS} connections, ${SECONDS} s a row; CPU per request from /proc; DB: SQLite's reads timed in the bench process, PostgreSQL's backends' CPU`,
);
console.table(rows.map(({ rssPeakMiB: _, ...row }) => row));
console.log("Targets (computed from this run, not asserted)");
console.table(checks);
if (process.env.BENCH_OUT) {
  const machine = { cpus: cpus().length, loadavg: loadavg() };
  writeFileSync(
    process.env.BENCH_OUT,
    `${JSON.stringify({ seconds: SECONDS, connections: CONNECTIONS, sizes: SIZES, databases, baseline: baseline?.ref ?? null, machine, rows, targets: checks }, null, 2)}\n`,
  );
  console.error(`results written to ${process.env.BENCH_OUT}`);
}
