/**
 * `BENCH_BASELINE=<git revision> npm run bench:compare`: this tree's service beside that
 * revision's, both started with `npm start`'s command over copies of one seeded catalog (10k
 * listings), measured in alternating order after a warm-up round. Each cell is the server
 * process's CPU time per request (user + system, from /proc): on a shared 2-core machine it moves
 * far less than req/s, which the load generator's own use of the cores dominates.
 * BENCH_ROUNDS (default 4), BENCH_ONLY=<scenario,...>.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { benchSeller, seedListings } from "./seed-listings.js";
import { baselineCheckout, serve, type BenchServer } from "./servers.js";

const SIZE = 10_000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const ONLY = process.env.BENCH_ONLY?.split(",");

const load = (url: string, options: Partial<autocannon.Options> = {}) =>
  autocannon({ url, connections: 16, duration: SECONDS, ...options });
const scenarios: Record<string, (url: string) => Promise<autocannon.Result>> = {
  "uncached search": (url) =>
    load(url, {
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            path: `/discovery/search?query=${benchSeller(Math.floor(Math.random() * SIZE))
              .slice(-12)
              .toLowerCase()}&limit=${1 + Math.floor(Math.random() * 200)}`,
          }),
        },
      ],
    }),
  "cached 304": async (url) => {
    const etag = (await fetch(`${url}/discovery/resources`)).headers.get("etag")!;
    return load(`${url}/discovery/resources`, { headers: { "if-none-match": etag } });
  },
  "GET /listings/example.json": (url) => load(`${url}/listings/example.json`),
  "400 on /discovery/resources?limit=0": (url) => load(`${url}/discovery/resources?limit=0`),
};

const baseline = baselineCheckout();
if (!baseline) throw new Error("set BENCH_BASELINE to the git revision to compare with");
const dir = mkdtempSync(join(tmpdir(), "bench-compare-"));
const servers = new Map<string, BenchServer>();
try {
  await seedListings(`file:${join(dir, "catalog.db")}`, SIZE);
  for (const [name, cwd] of [
    ["this tree", undefined],
    [`baseline ${baseline.ref}`, baseline.dir],
  ] as const) {
    // One SQLite file per process: each server gets its own copy of the seeded catalog.
    const copy = join(dir, `${servers.size}.db`);
    for (const suffix of ["", "-wal", "-shm"])
      if (existsSync(join(dir, `catalog.db${suffix}`)))
        copyFileSync(join(dir, `catalog.db${suffix}`), `${copy}${suffix}`);
    servers.set(name, await serve("app", [], { DATABASE_URL: `file:${copy}` }, cwd));
  }
  const chosen = Object.entries(scenarios).filter(([name]) => !ONLY || ONLY.includes(name));
  for (const [, run] of chosen) for (const server of servers.values()) await run(server.url);
  const cpuPerRequest = new Map<string, Map<string, number[]>>();
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [...servers] : [...servers].reverse();
    for (const [scenario, run] of chosen) {
      for (const [name, server] of order) {
        const before = server.cpuMs();
        const result = await run(server.url);
        const perRequest = ((server.cpuMs() - before) * 1000) / result.requests.total;
        const byServer = cpuPerRequest.get(scenario) ?? new Map<string, number[]>();
        byServer.set(name, [...(byServer.get(name) ?? []), Math.round(perRequest)]);
        cpuPerRequest.set(scenario, byServer);
      }
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const [ours, theirs] = [...servers.keys()];
  console.log(
    `\nServer CPU per request (µs), ${ROUNDS} alternating rounds of ${SECONDS} s after a warm-up, ${SIZE} listings`,
  );
  console.table(
    Object.fromEntries(
      [...cpuPerRequest].map(([scenario, byServer]) => [
        scenario,
        {
          [ours!]: byServer.get(ours!)!.join(" / "),
          [theirs!]: byServer.get(theirs!)!.join(" / "),
          "median, this / baseline": `${Math.round((median(byServer.get(ours!)!) / median(byServer.get(theirs!)!)) * 100)}%`,
        },
      ]),
    ),
  );
} finally {
  for (const server of servers.values()) server.stop();
  baseline.remove();
  rmSync(dir, { recursive: true, force: true });
}
