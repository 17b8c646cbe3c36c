/**
 * `npm run bench:web`: the web pages' throughput beside the JSON documents they show, every request
 * a URL not asked before (so neither the response cache nor a 304 answers it: each one is read
 * from the catalog and rendered):
 *   - `/?limit=L&offset=K` beside `/bazaar.json?limit=L&offset=K` (the same page of the catalog)
 *   - `/listing/{id}` beside `/listings/{id}` (the same listing document)
 * and, for scale, one URL repeated (the response cache's answer). Target: each page at least half
 * its JSON twin's throughput. The service runs as `npm start` runs it, over a seeded SQLite catalog.
 *   BENCH_SIZE=10000 (listings)  BENCH_CONNECTIONS=16  BENCH_SECONDS=5 (the repeated-URL runs)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { serve, type BenchServer } from "./servers.js";
import { seedListings } from "./seed-listings.js";

const SIZE = Number(process.env.BENCH_SIZE ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

type Row = Record<string, string | number>;

/** `amount` requests, the k-th to `pathOf(k)`; each path distinct. */
async function distinct(
  server: BenchServer,
  amount: number,
  pathOf: (k: number) => string,
): Promise<autocannon.Result> {
  let k = 0;
  return autocannon({
    url: server.url,
    connections: CONNECTIONS,
    amount,
    requests: [{ setupRequest: (request) => ({ ...request, path: pathOf(k++) }) }],
  });
}

async function repeated(server: BenchServer, path: string): Promise<autocannon.Result> {
  return autocannon({ url: `${server.url}${path}`, connections: CONNECTIONS, duration: SECONDS });
}

function row(result: autocannon.Result, cpuMs: number): Row {
  return {
    "req/s": Math.round(result.requests.average),
    "p50 ms": result.latency.p50,
    "p99 ms": result.latency.p99,
    "KiB/resp": (result.throughput.total / Math.max(result.requests.total, 1) / 1024).toFixed(1),
    "CPU ms/req": (cpuMs / Math.max(result.requests.total, 1)).toFixed(2),
    requests: result.requests.total,
    non2xx: result.non2xx,
  };
}

async function measure(name: string, server: BenchServer, run: () => Promise<autocannon.Result>): Promise<Row> {
  console.error(`measuring ${name}`);
  const cpu = server.cpuMs();
  const result = await run();
  return row(result, server.cpuMs() - cpu);
}

async function listingIds(server: BenchServer, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ids.length < count; offset += 200) {
    const page = (await (await fetch(`${server.url}/bazaar.json?limit=200&offset=${offset}`)).json()) as {
      items: Array<{ metadata: { listingId: string } }>;
    };
    if (page.items.length === 0) break;
    ids.push(...page.items.map((item) => item.metadata.listingId));
  }
  return ids;
}

const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), "bench-web-")), "bench.db")}`;
console.error(`seeding ${SIZE} listings...`);
await seedListings(databaseUrl, SIZE);
// The service prints its address at level info; the access log is left out (it would measure the pipe).
const server = await serve("app", [], { DATABASE_URL: databaseUrl, ACCESS_LOG_SAMPLE: "0" });
try {
  console.error("reading the listing ids");
  const ids = await listingIds(server, SIZE);
  const pages = SIZE - 30;
  // Distinct catalog pages: every offset once with limit 20, then again with 21, 22, ...
  const catalogPage = (prefix: string) => (k: number) =>
    `${prefix}?limit=${20 + Math.floor(k / pages)}&offset=${k % pages}`;
  const amount = Math.min(ids.length, pages);
  // Warm both code paths (JIT, prepared statements) on URLs the runs do not use.
  await distinct(server, 500, (k) => `/bazaar.json?limit=19&offset=${k}`);
  await distinct(server, 500, (k) => `/?limit=19&offset=${k}`);
  await distinct(server, 300, (k) => `/listings/${ids[k]}`);
  await distinct(server, 300, (k) => `/listing/${ids[k]}`);

  const rows: Record<string, Row> = {};
  rows["GET /bazaar.json?limit=20&offset=k (JSON, distinct)"] = await measure(
    "GET /bazaar.json?limit=20&offset=k (JSON, distinct)",
    server,
    () => distinct(server, amount, catalogPage("/bazaar.json")),
  );
  rows["GET /?limit=20&offset=k (HTML, distinct)"] = await measure(
    "GET /?limit=20&offset=k (HTML, distinct)",
    server,
    () => distinct(server, amount, catalogPage("/")),
  );
  rows["GET /listings/{id} (JSON, distinct)"] = await measure("GET /listings/{id} (JSON, distinct)", server, () =>
    distinct(server, amount, (k) => `/listings/${ids[k % ids.length]}`),
  );
  rows["GET /listing/{id} (HTML, distinct)"] = await measure("GET /listing/{id} (HTML, distinct)", server, () =>
    distinct(server, amount, (k) => `/listing/${ids[k % ids.length]}`),
  );
  rows["GET /bazaar.json (JSON, one URL: response cache)"] = await measure(
    "GET /bazaar.json (JSON, one URL: response cache)",
    server,
    () => repeated(server, "/bazaar.json?limit=20"),
  );
  rows["GET / (HTML, one URL: response cache)"] = await measure("GET / (HTML, one URL: response cache)", server, () =>
    repeated(server, "/?limit=20"),
  );
  rows["GET /sell.html (HTML, one URL: response cache)"] = await measure(
    "GET /sell.html (HTML, one URL: response cache)",
    server,
    () => repeated(server, "/sell.html"),
  );

  console.log(
    `\nWeb pages beside their JSON twins: ${SIZE} listings (SQLite), ${CONNECTIONS} connections, ${amount} distinct URLs per distinct run`,
  );
  console.table(rows);
  const ratio = (page: string, json: string) => Number(rows[page]!["req/s"]) / Number(rows[json]!["req/s"]);
  const checks = [
    [
      "home page / catalog JSON",
      ratio("GET /?limit=20&offset=k (HTML, distinct)", "GET /bazaar.json?limit=20&offset=k (JSON, distinct)"),
    ],
    ["listing page / listing JSON", ratio("GET /listing/{id} (HTML, distinct)", "GET /listings/{id} (JSON, distinct)")],
  ] as const;
  console.table(
    Object.fromEntries(
      checks.map(([name, value]) => [
        name,
        { "throughput ratio": value.toFixed(2), target: ">= 0.50", met: value >= 0.5 ? "yes" : "NO" },
      ]),
    ),
  );
  if (checks.some(([, value]) => value < 0.5)) process.exitCode = 1;
} finally {
  await server.stop();
}
