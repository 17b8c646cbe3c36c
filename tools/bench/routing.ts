/**
 * `npm run bench:routing`: what routing and validation through openapi-backend cost.
 * 1. In process, no HTTP: one dispatch through our router (memoised operation list) against
 *    stock openapi-backend on the same contract.
 * 2. Over HTTP with autocannon: the same bytes from bare node:http, plain Koa, and the service
 *    (with BENCH_BASELINE=<git revision>, that revision's service too, in the same run).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baselineCheckout, bodyFile, serve } from "./servers.js";
import autocannon from "autocannon";
import { OpenAPIBackend, type Document } from "openapi-backend";
import { loadContract } from "../../src/contract/load.js";
import { createRouter } from "../../src/http/router.js";
import type { AreaContexts } from "../../src/services.js";
import { handlers } from "../../src/handlers/index.js";
import { loadConfig } from "../../src/config.js";
import { exampleListing } from "../../src/documents/listing-request.js";
import { marketFacts } from "../../src/market/facts.js";
import { USDC_DOMAIN } from "../../src/constants.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

async function timeDispatch(dispatch: () => Promise<unknown>, iterations: number): Promise<number> {
  for (let i = 0; i < 200; i++) await dispatch();
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await dispatch();
  return Number(process.hrtime.bigint() - started) / 1e3 / iterations;
}

async function inProcess(): Promise<void> {
  const contract = loadContract();
  const config = loadConfig({ LOG_LEVEL: "silent" });
  // Routing alone: the handler measured reads no storage.
  const market = marketFacts(config, {
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    tokenName: USDC_DOMAIN.name,
    tokenVersion: USDC_DOMAIN.version,
  });
  const contexts = { listings: { config, market, contract } } as unknown as AreaContexts;
  const router = await createRouter(contract, handlers, contexts);
  const request = { method: "GET", path: "/listings/example.json", query: "", headers: {}, body: undefined };
  const ours = await timeDispatch(() => router.dispatch("getListingExample__listingsExampleJson", request), 20_000);

  const stock = new OpenAPIBackend({
    definition: structuredClone(contract.document) as unknown as Document,
    quick: true,
    coerceTypes: true,
  });
  stock.register({ notFound: () => 404, methodNotAllowed: () => 405, validationFail: () => 400 });
  stock.register("getListingExample__listingsExampleJson", () => exampleListing(config));
  await stock.init();
  const theirs = await timeDispatch(() => stock.handleRequest(request), 2_000);
  console.log("\nIn-process dispatch of GET /listings/example.json (routing + validation + handler)");
  console.table({
    "validation + handler by operationId (ours; @koa/router matched the path)": { "µs per request": ours.toFixed(1) },
    "openapi-backend as shipped": { "µs per request": theirs.toFixed(1) },
  });
}

async function load(url: string): Promise<autocannon.Result> {
  return autocannon({ url, connections: 32, pipelining: 1, duration: SECONDS });
}

async function overHttp(): Promise<void> {
  const body = bodyFile(JSON.stringify(exampleListing({ network: "eip155:8453" })));
  const rows: Record<string, Record<string, string>> = {};
  const baseline = baselineCheckout();
  const targets = [
    ["bare node:http, same bytes", "node", "/", undefined],
    ["plain Koa, same bytes", "koa", "/", undefined],
    ["service: GET /listings/example.json", "app", "/listings/example.json", undefined],
    ["service: 400 on /discovery/resources?limit=0", "app", "/discovery/resources?limit=0", undefined],
    ["service: 404 on /no-such-route", "app", "/no-such-route", undefined],
  ] as Array<[string, "node" | "koa" | "app", string, string | undefined]>;
  if (baseline) {
    for (const [name, kind, path] of targets.filter(([, kind]) => kind === "app"))
      targets.push([`${name} [baseline ${baseline.ref}]`, kind, path, baseline.dir]);
  }
  try {
    for (const [name, kind, path, cwd] of targets) {
      const server = await serve(
        kind,
        [body],
        { DATABASE_URL: `file:${join(mkdtempSync(join(tmpdir(), "bench-routing-")), "bench.db")}` },
        cwd,
      );
      try {
        const result = await load(`${server.url}${path}`);
        rows[name] = {
          "req/s": result.requests.average.toFixed(0),
          "p50 ms": String(result.latency.p50),
          "p99 ms": String(result.latency.p99),
          non2xx: String(result.non2xx),
        };
      } finally {
        server.stop();
      }
    }
  } finally {
    baseline?.remove();
  }
  const base = Number(rows["plain Koa, same bytes"]!["req/s"]);
  for (const row of Object.values(rows)) row["vs plain Koa"] = `${((Number(row["req/s"]) / base) * 100).toFixed(0)}%`;
  console.log(`\nOver HTTP: autocannon, 32 connections, ${SECONDS} s each, servers in their own process`);
  console.table(rows);
}

await inProcess();
await overHttp();
