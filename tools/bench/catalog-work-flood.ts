/**
 * Cached catalog reads during floods of uncached catalog work (issue 42), each beside a plain 404
 * flood of the same shape in the same run: the same connections, addresses and request sizes, on a
 * path no route has. The reads come from 127.0.0.1 (8 connections, pages already cached); the floods
 * from another process:
 *  - one address (127.0.0.60, .61, .62), 50 connections: uncached pages (random filter values on
 *    /discovery/resources and its aliases, /feed.json?since=), distinct searches, MCP batches of 100;
 *  - 50 addresses (127.0.0.2..51, 127.0.1.2..51, 127.0.2.2..51), one connection each: the same.
 * Targets: reads during a one-address flood >= 0.8x reads during its 404 twin; 50 addresses >= 0.5x.
 * Each scenario runs FLOOD_ROUNDS times (default 3), its twin and itself in turn, and the reads are
 * summed over the rounds: one 5 s window alone swung the same code's ratio from 0.5 to 0.94.
 */
import { spawn } from "node:child_process";
import autocannon from "autocannon";
import type { FloodPlan, FloodShape } from "./flood-client.js";
import { serve } from "./servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const READ_CONNECTIONS = 8;
const ROUNDS = Number(process.env.FLOOD_ROUNDS ?? 3);
const READ_PATHS = Array.from({ length: 20 }, (_, i) => `/discovery/resources?limit=${i + 1}`);

type Row = Record<string, string | number>;

const addressesOf = (prefix: string) => Array.from({ length: 50 }, (_, i) => `${prefix}.${i + 2}`);

interface Scenario {
  name: string;
  shape: FloodShape;
  twin: FloodShape;
  addresses: string[];
  connectionsPerAddress: number;
  target: number;
}

const SCENARIOS: Scenario[] = [
  {
    name: "1 address: uncached pages",
    shape: "pages",
    twin: "pages404",
    addresses: ["127.0.0.60"],
    connectionsPerAddress: 50,
    target: 0.8,
  },
  {
    name: "1 address: searches",
    shape: "searches",
    twin: "searches404",
    addresses: ["127.0.0.61"],
    connectionsPerAddress: 50,
    target: 0.8,
  },
  {
    name: "1 address: MCP batches of 100",
    shape: "mcp",
    twin: "mcp404",
    addresses: ["127.0.0.62"],
    connectionsPerAddress: 50,
    target: 0.8,
  },
  {
    name: "50 addresses: uncached pages",
    shape: "pages",
    twin: "pages404",
    addresses: addressesOf("127.0.0"),
    connectionsPerAddress: 1,
    target: 0.5,
  },
  {
    name: "50 addresses: searches",
    shape: "searches",
    twin: "searches404",
    addresses: addressesOf("127.0.1"),
    connectionsPerAddress: 1,
    target: 0.5,
  },
  {
    name: "50 addresses: MCP batches of 100",
    shape: "mcp",
    twin: "mcp404",
    addresses: addressesOf("127.0.2"),
    connectionsPerAddress: 1,
    target: 0.5,
  },
];

function statuses(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([code, count]) => `${code}x${count}`)
    .join(" ");
}

interface Flood {
  /** Resolves once the flood is sending. */
  started: Promise<void>;
  done: Promise<{ requests: number; statuses: Record<string, number> }>;
}

function startFlood(plan: FloodPlan): Flood {
  const child = spawn(process.execPath, ["--import", "tsx", "tools/bench/flood-client.ts", JSON.stringify(plan)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  const started = new Promise<void>((resolve) =>
    child.stderr.on("data", (chunk: Buffer) => chunk.toString("utf8").includes("flood started") && resolve()),
  );
  const done = new Promise<{ requests: number; statuses: Record<string, number> }>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as { requests: number; statuses: Record<string, number> })
        : reject(new Error(`flood exited ${code}`)),
    );
  });
  return { started, done };
}

function reads(url: string): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: READ_CONNECTIONS,
    duration: SECONDS,
    timeout: 10,
    requests: [
      {
        method: "GET",
        setupRequest: (request) => ({ ...request, path: READ_PATHS[Math.floor(Math.random() * READ_PATHS.length)]! }),
      },
    ],
  });
}

async function readsDuring(
  url: string,
  plan: FloodPlan,
): Promise<{ reads: autocannon.Result; flood: { requests: number; statuses: Record<string, number> } }> {
  const flood = startFlood(plan);
  await flood.started;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const during = await reads(url);
  return { reads: during, flood: await flood.done };
}

/** The rows of one service (this tree, or a baseline checkout in `cwd`). */
export async function catalogWorkFloods(
  databaseUrl: string,
  label: string,
  env: Record<string, string> = {},
  cwd?: string,
): Promise<Row[]> {
  // The default limits: the bench servers otherwise raise them out of reach (tools/bench/servers.ts).
  const limits = { QUERY_RATE_PER_CLIENT: "300", UNCACHED_CONCURRENCY: "2", UNCACHED_SHARE: "0.5" };
  const server = await serve("app", [], { DATABASE_URL: databaseUrl, ...limits, ACCESS_LOG_SAMPLE: "0", ...env }, cwd);
  const rows: Row[] = [];
  try {
    for (const path of READ_PATHS) await (await fetch(`${server.url}${path}`)).arrayBuffer();
    // Every path a flood takes runs once first (compilation, the MCP server's first description), so
    // that no flood pays for the first use of its code and its 404 twin does not.
    for (const path of [
      "/discovery/search?query=warm",
      "/feed.json?since=2020-01-01T00:00:00.000Z",
      "/bazaar.json?network=eip155:7",
    ]) {
      await (await fetch(`${server.url}${path}`)).arrayBuffer();
    }
    const warm = [1, 2].map((id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "list_market", arguments: { query: `warm${id}` } },
    }));
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    await (await fetch(`${server.url}/mcp`, { method: "POST", headers, body: JSON.stringify(warm) })).arrayBuffer();
    const alone = await reads(server.url);
    rows.push({
      service: label,
      flood: "none",
      "reads req/s": Math.round(alone.requests.average),
      "reads p99 ms": alone.latency.p99,
    });
    for (const scenario of SCENARIOS) {
      const plan = (shape: FloodShape): FloodPlan => ({
        url: server.url,
        shape,
        addresses: scenario.addresses,
        connectionsPerAddress: scenario.connectionsPerAddress,
        seconds: SECONDS + 1,
        batch: 100,
      });
      console.error(`${label}: ${scenario.name}`);
      const twin = { reads: [] as autocannon.Result[], flood: { requests: 0, statuses: {} as Record<string, number> } };
      const work = { reads: [] as autocannon.Result[], flood: { requests: 0, statuses: {} as Record<string, number> } };
      for (let round = 0; round < ROUNDS; round++) {
        for (const [into, shape] of [
          [twin, scenario.twin],
          [work, scenario.shape],
        ] as const) {
          const measured = await readsDuring(server.url, plan(shape));
          into.reads.push(measured.reads);
          into.flood.requests += measured.flood.requests;
          for (const [code, count] of Object.entries(measured.flood.statuses))
            into.flood.statuses[code] = (into.flood.statuses[code] ?? 0) + count;
        }
      }
      const perSecond = (runs: autocannon.Result[]) =>
        runs.reduce((sum, run) => sum + run.requests.total, 0) / (runs.length * SECONDS);
      const ratio = perSecond(work.reads) / Math.max(1, perSecond(twin.reads));
      for (const [flood, measured] of [
        [`${scenario.name}, 404 twin`, twin],
        [scenario.name, work],
      ] as const) {
        rows.push({
          service: label,
          flood,
          "reads req/s": Math.round(perSecond(measured.reads)),
          "reads p99 ms": Math.max(...measured.reads.map((run) => run.latency.p99)),
          "flood req/s": Math.round(measured.flood.requests / (ROUNDS * (SECONDS + 1))),
          "flood statuses": statuses(measured.flood.statuses),
          ...(measured === work && {
            "reads / 404 twin": ratio.toFixed(2),
            [`target`]: `${ratio >= scenario.target ? "PASS" : "MISS"} (>= ${scenario.target})`,
          }),
        });
      }
    }
  } finally {
    await server.stop();
  }
  return rows;
}
