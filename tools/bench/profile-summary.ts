/**
 * Where a service's CPU went during a time window, from the V8 CPU profile it wrote (node
 * --cpu-prof): each sample counted once, in the first category any frame of its stack matches, as
 * ms per unit of work. Used by `BENCH_CPU_PROF=<dir> npm run bench:burst`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** In order: a sample goes to the first that matches a frame of its stack. */
const CATEGORIES: Array<[string, (frame: ProfileNode["callFrame"]) => boolean]> = [
  ["Prisma (client, query interpreter, adapters)", (f) => /@prisma\/|generated\/prisma/.test(f.url)],
  [
    "SQLite driver (better-sqlite3) and the service's raw statements",
    (f) => /better-sqlite3|storage\/paid-listing-sql|catalog-transactions/.test(f.url),
  ],
  ["garbage collection", (f) => f.functionName === "(garbage collector)"],
  ["secp256k1, keccak (@noble: signature recovery, the settler's signature)", (f) => /@noble\//.test(f.url)],
  [
    "chain RPC client and EIP-712 hashing (viem, ox, undici fetch)",
    (f) => /node_modules\/(viem|ox|undici)\/|node:internal\/deps\/undici/.test(f.url),
  ],
  ["seller probe (TLS, src/probe)", (f) => /src\/probe\/|node:tls|node:_tls/.test(f.url)],
  ["x402 SDK, zod", (f) => /@x402\/|node_modules\/zod\//.test(f.url)],
  [
    "HTTP server (Koa, routing, validation, logging)",
    (f) => /koa|openapi-backend|ajv|pino|src\/http\/|node:_http|node:http/.test(f.url),
  ],
  ["service code (src/)", (f) => /\/dist\/src\/|\/src\//.test(f.url)],
];

export function newestProfileOf(dir: string, pid: number): string | undefined {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile") && name.includes(`.${pid}.`))
    .sort()
    .pop();
}

/** ms per `units` by category, for samples taken between fromUs and toUs (the monotonic clock, microseconds). */
export function summariseProfile(
  file: string,
  window: { fromUs: number; toUs: number },
  units: number,
): Array<[string, number]> {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const categoryOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = categoryOf.get(id);
    if (known) return known;
    const frames: ProfileNode["callFrame"][] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
    const found =
      CATEGORIES.find(([, matches]) => frames.some(matches))?.[0] ?? "other (promises, timers, V8 outside JavaScript)";
    categoryOf.set(id, found);
    return found;
  };
  const totals = new Map<string, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    if (at < window.fromUs || at > window.toUs) continue;
    const node = byId.get(profile.samples[i]!)!;
    if (node.callFrame.functionName === "(idle)") continue;
    const spent = profile.timeDeltas[i + 1] ?? 0;
    const category = classify(node.id);
    totals.set(category, (totals.get(category) ?? 0) + spent / 1000);
  }
  return [...totals].map(([name, ms]): [string, number] => [name, ms / units]).sort((a, b) => b[1] - a[1]);
}

export function printProfile(
  dir: string,
  pid: number,
  window: { fromUs: number; toUs: number },
  units: number,
  unit = "listing",
): void {
  const file = newestProfileOf(dir, pid);
  if (!file) return console.log(`  (no CPU profile of pid ${pid} in ${dir})`);
  const rows = summariseProfile(join(dir, file), window, units);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(`  profile (${file}), ms per ${unit}, ${total.toFixed(1)} in all:`);
  for (const [name, ms] of rows) console.log(`    ${ms.toFixed(1).padStart(6)}  ${name}`);
}
