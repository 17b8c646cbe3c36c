/**
 * `npm run bench:flood`: the CPU budget of requests anyone can send (issue 25). The service runs as
 * `npm start` runs it, over a seeded catalog (1k listings), and the bench
 *  1. times each owner operation sent with junk (a random signature and nonce) and a catalog read:
 *     CPU per request on the request thread (the main thread's /proc time) and in the whole process
 *     (worker threads included); any operation over BUDGET_MS of request-thread CPU is named;
 *  2. runs uncached catalog reads alone, then the same reads while FLOOD_CONNECTIONS connections send
 *     junk-signature claims, and prints the reads' throughput during the flood as a share of alone
 *     (target >= 80%).
 * Both run twice: with the default limits (the flood comes from one address: refused by the
 * per-client owner limit) and with OWNER_RATE_PER_CLIENT raised out of reach (a flood from many
 * addresses: every claim reaches signature recovery, in the worker pool, bounded by its queue).
 *  3. cached catalog reads during floods of uncached catalog work (pages, searches, MCP batches) from
 *     one address and from 50, each beside a 404 flood of the same shape (tools/bench/catalog-work-flood.ts).
 *   BENCH_SECONDS=5  FLOOD_CONNECTIONS=50  BENCH_BASELINE=<git revision> (that revision too)
 *   FLOOD_PART=owner|catalog (only that part; both by default)  FLOOD_ROUNDS=3 (catalog floods: rounds summed)
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { seedListings } from "./seed-listings.js";
import { baselineCheckout, serve, type BenchServer } from "./servers.js";
import { catalogWorkFloods } from "./catalog-work-flood.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const FLOOD_CONNECTIONS = Number(process.env.FLOOD_CONNECTIONS ?? 50);
const PART = process.env.FLOOD_PART ?? "all";
const READ_CONNECTIONS = 8;
const SIZE = 1_000;
const BUDGET_MS = 1;
/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/task/<tid>/stat times. */
const CLOCK_TICKS = 100;

const round = (value: number, digits = 3) => Number(value.toFixed(digits));
const int = (from: number, to: number) => from + Math.floor(Math.random() * (to - from + 1));

/** CPU time (ms) of the service's main thread: the thread that answers requests (its tid is the pid). */
function requestThreadMs(server: BenchServer): number {
  const fields = readFileSync(`/proc/${server.pid}/task/${server.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function junkSigned(): string {
  return JSON.stringify({
    nonce: `0x${randomBytes(32).toString("hex")}`,
    deadline: Math.floor(Date.now() / 1000) + 300,
    signature: `0x${randomBytes(65).toString("hex")}`,
  });
}

function statuses(result: autocannon.Result): string {
  return (
    Object.entries(result.statusCodeStats ?? {})
      .map(([code, { count }]) => `${code}x${count}`)
      .join(" ") +
    (result.timeouts ? ` timeouts x${result.timeouts}` : "") +
    (result.errors ? ` errors x${result.errors}` : "")
  );
}

interface Operation {
  name: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path(): string;
  body?(): string;
  headers?(): Record<string, string>;
}

/** A well-formed PAYMENT-SIGNATURE for `requirements` whose signature is random bytes (a fresh nonce each). */
function junkPayment(requirements: PaymentRequirements): string {
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: `0x${randomBytes(20).toString("hex")}`,
    to: requirements.payTo,
    value: requirements.amount,
    validAfter: String(now - 600),
    validBefore: String(now + 300),
    nonce: `0x${randomBytes(32).toString("hex")}`,
  };
  return encodePaymentSignatureHeader({
    x402Version: 2,
    accepted: requirements,
    payload: { authorization, signature: `0x${randomBytes(65).toString("hex")}` },
  } as never);
}

async function paymentRequirements(url: string): Promise<PaymentRequirements> {
  const challenge = await fetch(`${url}/kr-time`);
  return decodePaymentRequiredHeader(challenge.headers.get("payment-required")!).accepts[0]!;
}

function operations(listingIds: string[], requirements: PaymentRequirements): Operation[] {
  const id = () => listingIds[int(0, listingIds.length - 1)]!;
  return [
    {
      name: "GET /discovery/resources (distinct pages)",
      method: "GET",
      path: () => `/discovery/resources?limit=${int(1, 20)}&offset=${int(0, SIZE - 1)}`,
    },
    { name: "GET /listings/{id}/sign?action=claim", method: "GET", path: () => `/listings/${id()}/sign?action=claim` },
    {
      name: "POST /listings/{id}/claim, junk signature",
      method: "POST",
      path: () => `/listings/${id()}/claim`,
      body: junkSigned,
    },
    {
      name: "PATCH /listings/{id}, junk signature",
      method: "PATCH",
      path: () => `/listings/${id()}`,
      body: () =>
        JSON.stringify({ ...JSON.parse(junkSigned()), description: "a new description of this bench listing" }),
    },
    {
      name: "DELETE /listings/{id}, junk signature",
      method: "DELETE",
      path: () => `/listings/${id()}`,
      body: junkSigned,
    },
    {
      name: "GET /kr-time, junk PAYMENT-SIGNATURE (in-process facilitator)",
      method: "GET",
      path: () => "/kr-time",
      headers: () => ({ "payment-signature": junkPayment(requirements) }),
    },
  ];
}

function run(url: string, operation: Operation, connections: number, seconds = SECONDS): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: operation.method,
        setupRequest: (request) => ({
          ...request,
          method: operation.method,
          path: operation.path(),
          ...(operation.body && { body: operation.body() }),
          headers: { ...(operation.body && { "content-type": "application/json" }), ...operation.headers?.() },
        }),
      },
    ],
  });
}

type Row = Record<string, string | number>;
const costRows: Row[] = [];
const floodRows: Row[] = [];
const catalogRows: Row[] = [];

async function measure(
  databaseUrl: string,
  listingIds: string[],
  label: string,
  env: Record<string, string>,
  cwd?: string,
): Promise<void> {
  const server = await serve("app", [], { DATABASE_URL: databaseUrl, ...env }, cwd);
  try {
    const ops = operations(listingIds, await paymentRequirements(server.url));
    for (const operation of ops) await run(server.url, operation, 4, 1);
    for (const operation of ops) {
      const [mainBefore, totalBefore] = [requestThreadMs(server), server.cpuMs()];
      const result = await run(server.url, operation, READ_CONNECTIONS);
      const answered = Math.max(1, result.requests.total);
      const mainMs = (requestThreadMs(server) - mainBefore) / answered;
      costRows.push({
        service: label,
        operation: operation.name,
        "req/s": Math.round(result.requests.average),
        statuses: statuses(result),
        "request-thread CPU ms/req": round(mainMs),
        "process CPU ms/req": round((server.cpuMs() - totalBefore) / answered),
        budget: mainMs > BUDGET_MS ? `OVER (${BUDGET_MS} ms)` : "ok",
      });
    }
    const reads = ops[0]!;
    const alone = await run(server.url, reads, READ_CONNECTIONS);
    const flood = run(server.url, ops[2]!, FLOOD_CONNECTIONS, SECONDS + 2);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const during = await run(server.url, reads, READ_CONNECTIONS);
    const flooded = await flood;
    floodRows.push({
      service: label,
      "reads alone req/s": Math.round(alone.requests.average),
      "reads alone p99 ms": alone.latency.p99,
      "reads during flood req/s": Math.round(during.requests.average),
      "reads during flood p99 ms": during.latency.p99,
      "reads timeouts": during.timeouts,
      "during / alone": `${Math.round((during.requests.average / alone.requests.average) * 100)}%`,
      "target >= 80%": during.requests.average >= 0.8 * alone.requests.average ? "PASS" : "MISS",
      "flood req/s": Math.round(flooded.requests.average),
      "flood statuses": statuses(flooded),
    });
  } finally {
    await server.stop();
  }
}

const baseline = baselineCheckout();
const dir = mkdtempSync(join(tmpdir(), "bench-flood-"));
try {
  const databaseUrl = `file:${join(dir, "catalog.db")}`;
  await seedListings(databaseUrl, SIZE);
  const probe = await serve("app", [], { DATABASE_URL: databaseUrl });
  const page = (await (await fetch(`${probe.url}/discovery/resources?limit=50`)).json()) as {
    items: Array<{ metadata: { listingId: string } }>;
  };
  await probe.stop();
  const listingIds = page.items.map((item) => item.metadata.listingId);
  const configurations: Array<[string, Record<string, string>]> = [
    ["default limits (flood from one address)", {}],
    ["owner limit out of reach (flood from many addresses)", { OWNER_RATE_PER_CLIENT: "100000" }],
  ];
  if (PART !== "catalog") {
    for (const [name, env] of configurations) await measure(databaseUrl, listingIds, `this tree, ${name}`, env);
    if (baseline) await measure(databaseUrl, listingIds, `baseline ${baseline.ref}`, {}, baseline.dir);
  }
  if (PART !== "owner") {
    catalogRows.push(...(await catalogWorkFloods(databaseUrl, "this tree")));
    if (baseline)
      catalogRows.push(...(await catalogWorkFloods(databaseUrl, `baseline ${baseline.ref}`, {}, baseline.dir)));
  }
} finally {
  baseline?.remove();
  rmSync(dir, { recursive: true, force: true });
}
if (PART !== "catalog") printOwnerTables();
if (PART !== "owner") {
  console.log(
    `\nCached catalog reads (${READ_CONNECTIONS} connections from 127.0.0.1) during floods of uncached catalog work, each beside a 404 flood of the same shape`,
  );
  console.table(catalogRows);
}

function printOwnerTables(): void {
  console.log(
    `\nCPU per request, ${READ_CONNECTIONS} connections, ${SECONDS} s each; budget: ${BUDGET_MS} ms of request-thread CPU`,
  );
  console.table(costRows);
  const over = costRows.filter((row) => row.budget !== "ok" && String(row.service).startsWith("this tree"));
  console.log(
    over.length === 0
      ? "No operation of this tree is over budget."
      : `Over budget: ${over.map((row) => `${row.operation} (${row.service})`).join("; ")}`,
  );
  console.log(`\nCatalog reads alone, then during a junk-signature claim flood from ${FLOOD_CONNECTIONS} connections`);
  console.table(floodRows);
}
