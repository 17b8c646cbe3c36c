/**
 * `npm run bench`: the catalog's read routes at 1k, 10k and 100k listings (SQLite) under
 * autocannon, beside a bare node:http server serving the same bytes in the same run.
 *   - resources page (default view) vs bare node:http serving those bytes
 *   - 304 revalidation vs bare node:http answering the same 304
 *   - search for a seller (distinct query per request, so every one is a real search)
 *   - the feed
 * Prints the table and the service's resident memory at 100k. BENCH_SECONDS sets the duration;
 * BENCH_BASELINE=<git revision> also measures that revision's service (same scenarios, same data).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { benchSeller, seedListings } from "./seed-listings.js";
import { baselineCheckout, bodyFile, serve, type BenchServer } from "./servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);

type Row = Record<string, string | number>;
const rows: Row[] = [];

async function load(url: string, options: Partial<autocannon.Options> = {}): Promise<autocannon.Result> {
  return autocannon({ url, connections: 16, duration: SECONDS, ...options });
}

function recordRow(scenario: string, size: number, result: autocannon.Result, baseline?: autocannon.Result): void {
  rows.push({
    scenario,
    listings: size,
    "req/s": Math.round(result.requests.average),
    "p50 ms": result.latency.p50,
    "p99 ms": result.latency.p99,
    errors: result.errors + result.non2xx - (scenario.includes("304") ? result.non2xx : 0),
    "bare node req/s": baseline ? Math.round(baseline.requests.average) : "",
    "vs bare": baseline ? `${Math.round((result.requests.average / baseline.requests.average) * 100)}%` : "",
  });
}

async function withServer<T>(start: Promise<BenchServer>, fn: (server: BenchServer) => Promise<T>): Promise<T> {
  const server = await start;
  try {
    return await fn(server);
  } finally {
    server.stop();
  }
}

/** A response's own headers, without those node:http adds per connection. */
function headersOf(response: Response): Record<string, string> {
  const perConnection = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);
  return Object.fromEntries([...response.headers].filter(([name]) => !perConnection.has(name)));
}

async function benchSize(size: number): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "bench-catalog-"));
  const databaseUrl = `file:${join(directory, "catalog.db")}`;
  const seeding = Date.now();
  await seedListings(databaseUrl, size);
  console.error(`seeded ${size} listings in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);

  try {
    await measure(size, databaseUrl);
    if (baseline) await measure(size, databaseUrl, baseline.dir, ` [baseline ${baseline.ref}]`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const baseline = baselineCheckout();

async function measure(size: number, databaseUrl: string, cwd?: string, label = ""): Promise<void> {
  const record = (scenario: string, ...rest: Parameters<typeof recordRow> extends [string, ...infer R] ? R : never) => recordRow(`${scenario}${label}`, ...rest);
  await withServer(serve("app", [], { DATABASE_URL: databaseUrl }, cwd), async (app) => {
    const idleMiB = app.rssMiB();
    const page = await fetch(`${app.url}/discovery/resources`);
    const bytes = Buffer.from(await page.arrayBuffer());
    const etag = page.headers.get("etag")!;
    const notModified = await fetch(`${app.url}/discovery/resources`, { headers: { "if-none-match": etag } });
    const sameHeaders = bodyFile(JSON.stringify({ "200": headersOf(page), "304": headersOf(notModified) }));

    // A varying limit keeps every URL distinct, so no search is answered from the response cache.
    const searchQuery = () =>
      `/discovery/search?query=${benchSeller(Math.floor(Math.random() * size)).slice(-12).toLowerCase()}&limit=${1 + Math.floor(Math.random() * 200)}`;
    const search = await load(app.url, { requests: [{ setupRequest: (request) => ({ ...request, path: searchQuery() }) }] });
    record("search one seller (uncached)", size, search);
    if (size === SIZES[0] && SIZES.length > 1) return;

    const resources = await load(`${app.url}/discovery/resources`);
    const revalidate = await load(`${app.url}/discovery/resources`, { headers: { "if-none-match": etag } });
    const feed = await load(`${app.url}/feed.json`);
    await withServer(serve("node", [bodyFile(bytes), sameHeaders]), async (bare) => {
      const bareBody = await load(bare.url);
      const bare304 = await load(bare.url, { headers: { "if-none-match": etag } });
      record(`resources page (${Math.round(bytes.length / 1024)} KiB, same headers)`, size, resources, bareBody);
      record("304 revalidation (bare node sends the same headers)", size, revalidate, bare304);
      record("304 revalidation vs bare 200 of the page", size, revalidate, bareBody);
    });
    record("feed.json (50 items)", size, feed);
    rows.push({ scenario: `service resident memory: idle / after the run${label}`, listings: size, "req/s": `${idleMiB.toFixed(0)} / ${app.rssMiB().toFixed(0)} MiB` });
  });
}

try {
  for (const size of SIZES) await benchSize(size);
} finally {
  baseline?.remove();
}
console.table(rows);
