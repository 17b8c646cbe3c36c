/**
 * `npm run bench:search:memory`: resident memory of the service as `npm start` runs it, at
 * SEARCH_MEMORY_SIZE listings (default 100,000) with every listing's vector stored (the distilled
 * encoder's, filled in seconds: the model would take ~87 min), once with SEARCH_SEMANTIC=off (the
 * service without the engine; SEARCH_MEMORY_BASE=off skips it) and once with it on and the model's
 * worker loaded (a thread of the same process, so its memory is in the process's RSS). Target:
 * under 400 MB with the model. `BENCH_BASELINE=<git revision>`: that revision's service is measured
 * in the same run, at the same time (`BENCH_BASELINE_ENV=NAME=value,...` adds a row for it with
 * those settings too, e.g. glibc's malloc settings without the code change).
 */
import Sqlite from "better-sqlite3";
import { loadavg } from "node:os";
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { baselineCheckout, serve, type BenchServer } from "../servers.js";
import { atRest, engineReady, fillEmbeddings, readPath, seededCatalog } from "./service-bench.js";

const SIZE = Number(process.env.SEARCH_MEMORY_SIZE ?? 100_000);
const TARGET_MB = 400;
const MB = (kib: number) => (kib * 1024) / 1e6;

function status(pid: number): { rss: number; peak: number; threads: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)![1]);
  return { rss: MB(field("VmRSS")), peak: MB(field("VmHWM")), threads: field("Threads") };
}

/** Listings left without a stored vector, for the backfill (and so the model's thread) to take. */
const UNEMBEDDED = 24;

/** Distinct searches, one after another. */
async function searches(server: BenchServer, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await fetch(`${server.url}${readPath("search", SIZE)}`).then((reply) => reply.arrayBuffer());
}

/**
 * engineReady, asked again when a probe's connection is reset: at load average 20 the loading
 * service's event loop stalled past node's header timeout and it closed the probe's socket.
 */
async function readyDespiteResets(url: string, timeoutMs = 1_800_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    try {
      return performance.now() - started + (await engineReady(url, timeoutMs - (performance.now() - started)));
    } catch (error) {
      if (!(error instanceof TypeError) || performance.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

async function measure(
  file: string,
  env: Record<string, string>,
  label: string,
  cwd?: string,
): Promise<Record<string, string | number>> {
  const server = await serve("app", [], { DATABASE_URL: `file:${file}`, ...env }, cwd);
  // Listening, the service has not started the model's thread yet (the backfill starts it once the catalog is in).
  const threadsWithoutModel = status(server.pid).threads;
  try {
    // A loaded machine (load average 12-15) took over 10 minutes to load 100k listings.
    const ready = env.SEARCH_SEMANTIC === "off" ? 0 : await readyDespiteResets(server.url);
    const settled = await atRest(server);
    const rested = status(server.pid);
    // Distinct searches, each ranked by the engine (the model's thread runs meanwhile for the backfill's listings).
    await searches(server, 200);
    await atRest(server);
    const after = status(server.pid);
    return {
      service: label,
      "ready (s)": Number((ready / 1000).toFixed(0)),
      "settled after (s)": Number(settled.toFixed(0)),
      "RSS at rest (MB)": Number(rested.rss.toFixed(0)),
      "threads at rest": rested.threads,
      "RSS after 200 searches (MB)": Number(after.rss.toFixed(0)),
      "peak RSS (MB)": Number(after.peak.toFixed(0)),
      threads: after.threads,
      "model's thread up when read": after.threads > threadsWithoutModel ? "yes" : "no",
    };
  } finally {
    await server.stop();
  }
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const file = await seededCatalog(SIZE);
const baseline = baselineCheckout();
const copies: string[] = [];
/** Instances measured at the same time each read their own copy of the catalog. */
const copy = () => {
  const path = join(dirname(file), `copy${copies.length}.db`);
  copyFileSync(file, path);
  copies.push(path);
  return path;
};
try {
  const filling = performance.now();
  const filled = fillEmbeddings(file);
  // A search no longer starts the model: the backfill does, for a listing without a stored vector
  // (one just paid for or changed). A few such listings start it as a new listing would; it stays
  // loaded for MODEL_IDLE_MS (2 min) after their last batch, longer than the searches below take.
  const waiting = new Sqlite(file);
  waiting.exec(
    `DELETE FROM "ListingEmbedding" WHERE "listingId" IN (SELECT "listingId" FROM "ListingEmbedding" LIMIT ${UNEMBEDDED})`,
  );
  waiting.close();
  console.error(
    `stored ${filled} encoder vectors in ${((performance.now() - filling) / 1000).toFixed(0)} s, ${UNEMBEDDED} left for the model`,
  );
  console.log(`listings: ${SIZE}, load average at the start ${load()}`);
  const rows = [];
  if (process.env.SEARCH_MEMORY_BASE !== "off")
    rows.push(await measure(file, { SEARCH_SEMANTIC: "off" }, "SEARCH_SEMANTIC=off"));
  const runs = [measure(file, {}, "engine + model worker")];
  if (baseline) {
    runs.push(measure(copy(), {}, `baseline ${baseline.ref}`, baseline.dir));
    const extra = process.env.BENCH_BASELINE_ENV;
    if (extra) {
      const env = Object.fromEntries(
        extra.split(",").map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
      );
      runs.push(measure(copy(), env, `baseline ${baseline.ref} + ${extra}`, baseline.dir));
    }
  }
  const measured = await Promise.all(runs);
  rows.push(...measured);
  console.table(rows);
  console.log(`listings: ${SIZE}, load average at the end ${load()}`);
  for (const row of measured) {
    const rss = row["RSS after 200 searches (MB)"] as number;
    // The thread stops after MODEL_IDLE_MS without a text: read after that, the figure is not the target's.
    if (row["model's thread up when read"] === "no")
      console.log(`${row.service}: ${rss} MB RSS, but the model's thread had stopped: no verdict`);
    else
      console.log(
        `${row.service}: ${rss} MB RSS with the model loaded, target < ${TARGET_MB} MB: ${rss < TARGET_MB ? "PASS" : "MISS"}`,
      );
  }
} finally {
  baseline?.remove();
  rmSync(dirname(file), { recursive: true, force: true });
}
