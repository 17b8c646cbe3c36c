/**
 * `npm run bench:burst`: a burst of paid listings from many payers. The service runs as `npm start`
 * does (its own process) against a local anvil chain; BENCH_PAYERS (default 100) funded payers each
 * pay one listing with the SDK's stock buyer, all at once. Prints listings/s, p50/p99 latency and
 * the service's CPU per listing (/proc of its pid; the main thread's apart from the others': V8's GC and
 * compiler helpers, the search model's worker, libuv), and the same for one listing alone, as PASS/MISS
 * against issue 26's targets. BENCH_BASELINE=<git revision>: the same run against that revision.
 * SQLite (a fresh file per run); with BENCH_POSTGRES_URL or TEST_POSTGRES_URL, PostgreSQL too (a
 * fresh schema per run, dropped afterwards; service CPU only, not the PostgreSQL backend's).
 * BENCH_CPU_PROF=<dir>: each service writes a V8 CPU profile there (tools/bench/profile-summary.ts reads it).
 * BENCH_RPC_COUNT=1: the service reaches the chain through a counting proxy (tools/bench/rpc-counter.ts),
 * and the JSON-RPC calls per listing of the burst are printed by method.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { wrapFetchWithPayment } from "@x402/fetch";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { createBuyerClient } from "../../src/payments/buyer.js";
import { createAdapterFactory, parseDatabaseUrl } from "../../src/storage/connection.js";
import { DEMO_SELLER_CERTIFICATE, startDemoSeller } from "../demo/seller.js";
import { printProfile } from "./profile-summary.js";
import { startRpcCounter, type RpcCounter } from "./rpc-counter.js";
import { baselineCheckout, serve, type BenchServer, settlingOn } from "./servers.js";

const PAYERS = Number(process.env.BENCH_PAYERS ?? 100);
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || process.env.TEST_POSTGRES_URL;
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const COUNT_RPC = Boolean(process.env.BENCH_RPC_COUNT);
const TARGET_RATE = 30;
const TARGET_CPU_MS = 30;
const TARGET_P99_RATIO = 3;

interface Figures {
  label: string;
  aloneMs: number;
  aloneCpuMs: number;
  rate: number;
  p50: number;
  p99: number;
  cpuPerListingMs: number;
  listed: number;
  /** Fees the marketplace wallet received during the burst, in listing fees (the chain's count). */
  feesCharged: number;
  /** Answers other than 200 in the burst, as "status error" with their count. */
  refusals: Map<string, number>;
  /** The burst's service CPU per listing: the main thread, the others by name. */
  cpuByThread: Array<[string, number]>;
  /** BENCH_RPC_COUNT: what the service asked the node during the burst. */
  rpc?: ReturnType<RpcCounter["counts"]>;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function postgresAdmin(sql: string): Promise<void> {
  const target = parseDatabaseUrl(POSTGRES_URL!) as Extract<ReturnType<typeof parseDatabaseUrl>, { kind: "postgres" }>;
  const admin = await createAdapterFactory({ ...target, schema: undefined }).connect();
  try {
    await admin.executeScript(sql);
  } finally {
    await admin.dispose();
  }
}

/** A fresh database for one run: a SQLite file, or a PostgreSQL schema dropped by `drop`. */
async function freshDatabase(
  kind: "sqlite" | "postgres",
  runIndex: number,
): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === "sqlite") {
    const work = mkdtempSync(join(tmpdir(), "bench-burst-"));
    return { url: `file:${join(work, "bench.db")}`, drop: async () => rmSync(work, { recursive: true, force: true }) };
  }
  const schema = `bench_burst_${process.pid}_${runIndex}`;
  const url = new URL(POSTGRES_URL!);
  url.searchParams.set("schema", schema);
  await postgresAdmin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  return { url: url.toString(), drop: () => postgresAdmin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`) };
}

async function run(
  label: string,
  cwd: string,
  chain: LocalChain,
  sellerUrl: string,
  sellerPayTo: string,
  databaseUrl: string,
): Promise<Figures> {
  const counter = COUNT_RPC ? await startRpcCounter(chain.rpcUrl) : null;
  const service: BenchServer = await serve(
    "app",
    [],
    {
      DATABASE_URL: databaseUrl,
      ...settlingOn(counter ? { ...chain, rpcUrl: counter.url } : chain),
      ALLOW_LOOPBACK_SELLERS: "true",
      NODE_EXTRA_CA_CERTS: fileURLToPath(DEMO_SELLER_CERTIFICATE),
      PAYMENT_RATE_PER_CLIENT: "100000",
      PROBE_RATE_PER_CLIENT: "10000",
      PROBE_RATE_PER_HOST: "10000",
      RECONCILE_INTERVAL_SECONDS: "0",
      HEALTH_PROBE_INTERVAL_MS: "0",
      USAGE_INTERVAL_SECONDS: "0",
      // BENCH_CPU_PROF=<dir>: a V8 CPU profile of each service process, written there when it stops.
      ...(PROFILE_DIR && { NODE_OPTIONS: `--import ${new URL("cpu-profile.mjs", import.meta.url).href}` }),
    },
    cwd,
  );
  let burstWindow: { fromUs: number; toUs: number } | undefined;
  const list = async (payerIndex: number, path: string): Promise<{ ms: number; status: number; error?: string }> => {
    const payer = chain.buyers[payerIndex]!;
    const pay = wrapFetchWithPayment(
      fetch,
      createBuyerClient(payer.privateKey, { allowAssets: [{ asset: chain.asset }] }),
    );
    const body = {
      resource: `${sellerUrl}/${label}/${path}`,
      method: "POST",
      priceUsdc: "0.02",
      description: "Bench: a burst of paid listings.",
      sellerPayTo,
      network: "eip155:8453",
    };
    const started = performance.now();
    const response = await pay(`${service.url}/listings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.text();
    const ms = performance.now() - started;
    if (response.status === 200) return { ms, status: 200 };
    return { ms, status: response.status, error: errorOf(answer) };
  };
  try {
    for (let i = 0; i < 3; i++) await list(0, `warm-${i}`);
    const aloneCpu = service.cpuMs();
    const aloneFunds = await chain.balanceOf(chain.marketplacePayTo);
    const alone: number[] = [];
    for (let i = 0; i < 5; i++) alone.push((await list(i + 1, `alone-${i}`)).ms);
    const aloneCpuMs = (service.cpuMs() - aloneCpu) / 5;
    const burstFunds = await chain.balanceOf(chain.marketplacePayTo);
    const fee = (burstFunds - aloneFunds) / 5n;
    counter?.reset();
    const cpuBefore = service.cpuMs();
    const threadsBefore = service.cpuMsByThread();
    const started = performance.now();
    const fromUs = monotonicUs();
    const results = await Promise.all(Array.from({ length: PAYERS }, (_, i) => list(i, `burst-${i}`)));
    const seconds = (performance.now() - started) / 1000;
    burstWindow = { fromUs, toUs: monotonicUs() };
    const cpuPerListingMs = (service.cpuMs() - cpuBefore) / PAYERS;
    const cpuByThread = threadCpuPerListing(threadsBefore, service.cpuMsByThread(), cpuPerListingMs);
    const rpc = counter?.counts();
    const feesReceived = (await chain.balanceOf(chain.marketplacePayTo)) - burstFunds;
    const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
    const listed = results.filter((r) => r.status === 200).length;
    const refusals = new Map<string, number>();
    for (const { status, error } of results)
      if (status !== 200) refusals.set(`${status} ${error}`, (refusals.get(`${status} ${error}`) ?? 0) + 1);
    return {
      label,
      aloneMs: alone.sort((a, b) => a - b)[2]!,
      aloneCpuMs,
      rate: listed / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      cpuPerListingMs,
      listed,
      feesCharged: fee > 0n ? Number(feesReceived / fee) : Number.NaN,
      refusals,
      cpuByThread,
      rpc,
    };
  } finally {
    await service.stop();
    await counter?.close();
    if (PROFILE_DIR && burstWindow) {
      console.log(
        `  burst window (monotonic µs, for a closer look at the profile): ${burstWindow.fromUs}-${burstWindow.toUs}`,
      );
      printProfile(PROFILE_DIR, service.pid, burstWindow, PAYERS);
    }
  }
}

/** Per listing, by thread name, what each thread used between two readings; threads that ended meanwhile as the rest. */
function threadCpuPerListing(
  before: Map<string, number>,
  after: Map<string, number>,
  totalPerListing: number,
): Array<[string, number]> {
  const rows: Array<[string, number]> = [...after].map(([name, ms]): [string, number] => [
    name,
    (ms - (before.get(name) ?? 0)) / PAYERS,
  ]);
  const rest = totalPerListing - rows.reduce((sum, [, ms]) => sum + ms, 0);
  if (Math.abs(rest) >= 0.05) rows.push(["(threads that ended)", rest]);
  return rows.filter(([, ms]) => Math.abs(ms) >= 0.05).sort((a, b) => b[1] - a[1]);
}

/** The `error` of a JSON error answer, or what the answer starts with. */
function errorOf(answer: string): string {
  try {
    return String((JSON.parse(answer) as { error?: unknown }).error);
  } catch {
    return answer.slice(0, 40);
  }
}

/** The clock V8's CPU profiles are stamped with (CLOCK_MONOTONIC), in microseconds. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

function print(f: Figures): void {
  console.log(`\n${f.label}`);
  console.log(
    `  one listing alone       ${f.aloneMs.toFixed(0)} ms (median of 5), ${f.aloneCpuMs.toFixed(1)} ms service CPU`,
  );
  console.log(
    `  ${PAYERS} at once           ${f.listed}/${PAYERS} listed (200), ${f.feesCharged} fees received on chain ${verdict(f.listed === PAYERS && f.feesCharged === PAYERS)}`,
  );
  if (f.refusals.size)
    console.log(
      `  not listed              ${[...f.refusals].map(([answer, count]) => `${count} x ${answer}`).join(", ")}`,
    );
  console.log(
    `  throughput              ${f.rate.toFixed(1)} listings/s ${verdict(f.rate >= TARGET_RATE)} (target >= ${TARGET_RATE})`,
  );
  console.log(
    `  latency                 p50 ${f.p50.toFixed(0)} ms, p99 ${f.p99.toFixed(0)} ms = ${(f.p99 / f.aloneMs).toFixed(1)}x alone ${verdict(f.p99 <= TARGET_P99_RATIO * f.aloneMs)} (target <= ${TARGET_P99_RATIO}x, chain time included)`,
  );
  console.log(
    `  service CPU per listing ${f.cpuPerListingMs.toFixed(1)} ms ${verdict(f.cpuPerListingMs < TARGET_CPU_MS)} (target < ${TARGET_CPU_MS} ms)`,
  );
  console.log(`    by thread             ${f.cpuByThread.map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(", ")}`);
  if (f.rpc) {
    const perListing = (n: number) => (n / PAYERS).toFixed(2);
    const total = [...f.rpc.calls.values()].reduce((sum, n) => sum + n, 0);
    const methods = [...f.rpc.calls].sort((a, b) => b[1] - a[1]).map(([method, n]) => `${method} ${perListing(n)}`);
    console.log(
      `  JSON-RPC per listing    ${perListing(total)} calls in ${perListing(f.rpc.httpRequests)} HTTP requests: ${methods.join(", ")}`,
    );
  }
}

const chain = await startLocalChain({ buyers: PAYERS + 2, fundUsdc: "100" });
const sellerWallet = chain.buyers[PAYERS + 1]!.address;
const seller = await startDemoSeller({
  asset: chain.asset,
  payTo: sellerWallet,
  priceAtomic: "20000",
  description: "Bench seller",
});
const baseline = baselineCheckout();
const trees = [
  ...(baseline ? [{ label: `baseline ${baseline.ref}`, dir: baseline.dir }] : []),
  { label: "this tree", dir: process.cwd() },
];
const kinds = ["sqlite" as const, ...(POSTGRES_URL ? ["postgres" as const] : [])];
try {
  let runIndex = 0;
  for (const kind of kinds) {
    for (const tree of trees) {
      const database = await freshDatabase(kind, runIndex++);
      try {
        print(
          await run(
            `${tree.label} ${kind}`.replace(/\W+/g, "-"),
            tree.dir,
            chain,
            seller.url,
            sellerWallet,
            database.url,
          ),
        );
      } finally {
        await database.drop();
      }
    }
  }
} finally {
  baseline?.remove();
  await seller.close();
  await chain.stop();
}
