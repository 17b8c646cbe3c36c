/**
 * `npm run bench:search:backfill`: do catalog reads slow down while the model backfills listing
 * embeddings? The service runs as `npm start` runs it (SQLite) on a catalog of
 * SEARCH_BACKFILL_SIZE listings (default 100,000) without stored embeddings, one instance per duty
 * in SEARCH_BACKFILL_DUTIES (default: unset, the service's own default).
 *
 * On a shared machine the load moves more between two instances run one after the other than the
 * backfill moves reads, so the comparison is made inside one instance, in pairs of short rounds:
 * the backfill paused (its model thread frozen, thread-freezer.ts; the request thread runs on) and
 * running, in the order AB then BA, so that a drift in the load falls on both sides of a pair.
 * SEARCH_BACKFILL_PAIRS pairs (default 6), alternately of catalog pages and of searches, each round
 * SEARCH_BACKFILL_ROUND seconds (default 20) of uncached reads under autocannon (2 connections).
 * Per pair: read p50 running / paused; the verdict takes the median of the pairs' ratios, per kind.
 * Beside wall time: the request thread's CPU per read (its /proc entry), the model thread's CPU.
 *
 * The backfill paces itself by wall time (SEARCH_BACKFILL_DUTY): a batch caught by a freeze counts
 * the frozen seconds as work and rests three times as long after (at 0.25). A running round starts
 * once the backfill has stored a batch after that rest, so it sees the backfill's steady pace. The
 * rate of a whole backfill: from the first stored batch to the first pair (nothing frozen, searches
 * one at a time), and in the running rounds (reads at 2 connections).
 *
 * Searches ask 120 buyer-like queries whose model vectors are cached before the rounds (a frozen
 * model cannot embed a new query, which would make the paused rounds lighter than a backfill-free
 * service), each URL distinct through its maxPrice (every seeded price is below it), so the rendered
 * page is never served from the response cache.
 * Target (#24): read p50 during the backfill at most 1.2x paused, for pages and for searches.
 */
import { loadavg } from "node:os";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import autocannon from "autocannon";
import { DEFAULT_BACKFILL_DUTY } from "../../../src/config.js";
import { serve, type BenchServer } from "../servers.js";
import { WORDS, embeddingCount, engineReady, readPath, seededCatalog, type ReadFigures } from "./service-bench.js";
import { ThreadFreezer, threadStat, threadStats } from "./thread-freezer.js";

const SIZE = Number(process.env.SEARCH_BACKFILL_SIZE ?? 100_000);
const PAIRS = Number(process.env.SEARCH_BACKFILL_PAIRS ?? 6);
const ROUND_SECONDS = Number(process.env.SEARCH_BACKFILL_ROUND ?? 20);
const DUTIES = (process.env.SEARCH_BACKFILL_DUTIES ?? "").split(",").filter((duty) => duty !== "");
const TARGET = 1.2;
/** The model thread's nice value (EmbeddingPool's niceIncrement): how the bench tells it from the others. */
const MODEL_NICE = 10;
/** How long the backfill may take to store two batches after a thaw (its rest after a frozen batch included). */
const RESUME_TIMEOUT_MS = 240_000;
/** Unmeasured reads before a paused round (a running round is preceded by the reads of its wait). */
const WARM_SECONDS = 5;

const load = () => loadavg()[0]!.toFixed(1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const QUALIFIERS = ["fast", "global", "hourly", "cached", "private", "historical", "daily", "premium", "open", "batch"];
const QUERIES = WORDS.flatMap((word) => QUALIFIERS.map((qualifier) => `${qualifier} ${word} api`));
let searchesAsked = 0;
function searchPath(limit = 20): string {
  const n = searchesAsked++;
  const maxPrice = `1000.${String(n % 1_000_000).padStart(6, "0")}`;
  return `/discovery/search?query=${encodeURIComponent(QUERIES[n % QUERIES.length]!)}&limit=${limit}&maxPrice=${maxPrice}`;
}

type Kind = "page" | "search";
type State = "paused" | "running";
interface Round extends ReadFigures {
  kind: Kind;
  state: State;
  seconds: number;
  requestCpuMs: number;
  processCpuMs: number;
  modelCpuMs: number;
  embedded: number;
  load: string;
}

/** A share of sorted values (0.5: the median). */
const quantile = (sorted: number[], share: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;

async function readFor(url: string, kind: Kind, seconds: number): Promise<ReadFigures> {
  // Each response's own time (autocannon's histogram keeps whole milliseconds: at a 3 ms p50 one step is 33%).
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: 2,
        duration: seconds,
        requests: [
          {
            setupRequest: (request) => ({ ...request, path: kind === "page" ? readPath("page", SIZE) : searchPath() }),
          },
        ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on("response", (_client, _status, _bytes, responseMs: number) => times.push(responseMs));
  });
  times.sort((x, y) => x - y);
  return {
    requests: result.requests.total,
    p50: Number(quantile(times, 0.5).toFixed(2)),
    p99: Number(quantile(times, 0.99).toFixed(1)),
    mean: result.latency.mean,
    non2xx: result.non2xx + result.errors,
  };
}

const modelThreads = (pid: number) =>
  threadStats(pid).filter((thread) => thread.tid !== pid && thread.nice >= MODEL_NICE);
const modelCpuMs = (pid: number) => modelThreads(pid).reduce((total, thread) => total + thread.cpuMs, 0);

async function measure(server: BenchServer, file: string, kind: Kind, state: State): Promise<Round> {
  const before = {
    request: threadStat(server.pid, server.pid).cpuMs,
    process: server.cpuMs(),
    model: modelCpuMs(server.pid),
    count: embeddingCount(file),
  };
  const started = performance.now();
  const figures = await readFor(server.url, kind, ROUND_SECONDS);
  const seconds = (performance.now() - started) / 1000;
  return {
    ...figures,
    kind,
    state,
    seconds,
    requestCpuMs: threadStat(server.pid, server.pid).cpuMs - before.request,
    processCpuMs: server.cpuMs() - before.process,
    modelCpuMs: modelCpuMs(server.pid) - before.model,
    embedded: embeddingCount(file) - before.count,
    load: load(),
  };
}

/**
 * Until the backfill has stored `batches` more batches (each save raises the count at once), reading
 * `kind` meanwhile when given (unmeasured): a round after an idle wait ran about 1.5x the request-thread
 * CPU per read of a round right after another (a first run of this bench), whatever the backfill did.
 */
async function storedBatches(
  file: string,
  batches: number,
  timeoutMs: number,
  warm?: { url: string; kind: Kind },
): Promise<void> {
  const until = performance.now() + timeoutMs;
  let seen = embeddingCount(file);
  let stored = 0;
  const poll = setInterval(() => {
    const count = embeddingCount(file);
    if (count !== seen) stored++;
    seen = count;
  }, 200);
  try {
    while (stored < batches) {
      if (performance.now() > until) throw new Error(`the backfill stored no batch for ${timeoutMs / 1000} s`);
      if (warm) await readFor(warm.url, warm.kind, 2);
      else await sleep(200);
    }
  } finally {
    clearInterval(poll);
  }
}

/** Caches every query's model vector in the engine: each asked twice, at a pace the model's queue takes. */
async function warmQueries(url: string): Promise<void> {
  for (let pass = 0; pass < 2; pass++) {
    for (const _query of QUERIES) {
      await (await fetch(`${url}${searchPath(1)}`)).arrayBuffer();
      await sleep(150);
    }
    await sleep(5000);
  }
}

async function started(file: string, env: Record<string, string>): Promise<BenchServer> {
  const server = await serve("app", [], { DATABASE_URL: `file:${file}`, ...env });
  const start = performance.now();
  try {
    // While the engine loads 100k rows a readiness ask was once reset: a failed ask is asked again.
    for (let attempt = 1; ; attempt++) {
      try {
        await engineReady(server.url);
        break;
      } catch (error) {
        if (!(error instanceof TypeError) || attempt >= 5) throw error;
        console.error(
          `readiness ask failed (${String((error.cause as { code?: string } | undefined)?.code)}), asking again`,
        );
        await sleep(2000);
      }
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  console.error(
    `${JSON.stringify(env)}: engine ready after ${((performance.now() - start) / 1000).toFixed(0)} s (load ${load()})`,
  );
  return server;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const hours = (perSecond: number) => (perSecond > 0 ? (100_000 / perSecond / 3600).toFixed(1) : "never");
const perRead = (ms: number, requests: number) => (requests > 0 ? Number((ms / requests).toFixed(3)) : 0);

/** The pairs of one instance: rounds paused and running, in AB / BA order. */
async function pairs(server: BenchServer, file: string): Promise<Array<[Round, Round]>> {
  const freezer = new ThreadFreezer(`bench-search-backfill-${server.pid}`);
  // Interrupted, the bench thaws the thread before it goes (a frozen thread outlives nothing, but the group would stay).
  const interrupted = () => {
    freezer.close();
    process.exit(130);
  };
  process.once("SIGINT", interrupted);
  const out: Array<[Round, Round]> = [];
  try {
    for (let i = 0; i < PAIRS; i++) {
      const kind: Kind = i % 2 === 0 ? "page" : "search";
      const order: State[] = Math.floor(i / 2) % 2 === 0 ? ["paused", "running"] : ["running", "paused"];
      const rounds: Partial<Record<State, Round>> = {};
      for (const state of order) {
        // Both states start warm: reads of the same kind right before the round.
        if (state === "paused") {
          await freezer.freeze(modelThreads(server.pid).map((thread) => thread.tid));
          await readFor(server.url, kind, WARM_SECONDS);
        } else {
          freezer.thaw();
          await storedBatches(file, 2, RESUME_TIMEOUT_MS, { url: server.url, kind });
        }
        rounds[state] = await measure(server, file, kind, state);
        console.error(
          `pair ${i + 1}/${PAIRS} ${kind} ${state}: p50 ${rounds[state].p50} ms, ${rounds[state].embedded} embedded (load ${load()})`,
        );
      }
      out.push([rounds.paused!, rounds.running!]);
    }
  } finally {
    process.off("SIGINT", interrupted);
    freezer.close();
  }
  return out;
}

const unavailable = ThreadFreezer.unavailable();
if (unavailable) {
  console.error(`bench:search:backfill pauses the model thread with the cgroup freezer: ${unavailable}`);
  process.exit(2);
}
const file = await seededCatalog(SIZE);
const table: Array<Record<string, string | number>> = [];
const verdicts: string[] = [];
try {
  for (const duty of DUTIES.length > 0 ? DUTIES : [""]) {
    const label = `duty ${duty === "" ? "default" : duty}`;
    const server = await started(file, duty === "" ? {} : { SEARCH_BACKFILL_DUTY: duty });
    let measured: Array<[Round, Round]>;
    let quietRate: number;
    try {
      // The job's first run starts a few seconds after the service: wait for its first stored batch.
      await storedBatches(file, 1, RESUME_TIMEOUT_MS);
      const quietStart = { at: performance.now(), count: embeddingCount(file) };
      await warmQueries(server.url);
      quietRate = (embeddingCount(file) - quietStart.count) / ((performance.now() - quietStart.at) / 1000);
      measured = await pairs(server, file);
    } finally {
      await server.stop();
    }
    for (const [n, pair] of measured.entries()) {
      for (const round of pair) {
        table.push({
          [label]: `${n + 1} ${round.kind} ${round.state}`,
          "p50 (ms)": round.p50,
          "p99 (ms)": round.p99,
          reads: round.requests,
          "non-2xx": round.non2xx,
          "request-thread CPU/read (ms)": perRead(round.requestCpuMs, round.requests),
          "process CPU/read (ms)": perRead(round.processCpuMs, round.requests),
          "model thread CPU (s)": Number((round.modelCpuMs / 1000).toFixed(1)),
          embedded: round.embedded,
          load: round.load,
        });
      }
    }
    const running = measured.map(([, round]) => round);
    const embedded = running.reduce((total, round) => total + round.embedded, 0);
    const rate = embedded / running.reduce((total, round) => total + round.seconds, 0);
    const pageRunning = running.filter((round) => round.kind === "page");
    const pageEmbedded = pageRunning.reduce((total, round) => total + round.embedded, 0);
    const modelMsPerListing =
      pageEmbedded > 0 ? pageRunning.reduce((total, round) => total + round.modelCpuMs, 0) / pageEmbedded : NaN;
    const dutyShare = duty === "" ? DEFAULT_BACKFILL_DUTY : Number(duty);
    const ratios: Record<Kind, number[]> = { page: [], search: [] };
    const cpuRatios: Record<Kind, number[]> = { page: [], search: [] };
    for (const [paused, run] of measured) {
      ratios[paused.kind].push(run.p50 / paused.p50);
      cpuRatios[paused.kind].push(
        perRead(run.requestCpuMs, run.requests) / perRead(paused.requestCpuMs, paused.requests),
      );
    }
    const pageRatio = median(ratios.page);
    const searchRatio = median(ratios.search);
    const pass = pageRatio <= TARGET && searchRatio <= TARGET && embedded > 0;
    verdicts.push(
      `${label}: p50 running / paused per pair: pages ${ratios.page.map((r) => r.toFixed(2)).join(", ")}; searches ${ratios.search.map((r) => r.toFixed(2)).join(", ")}`,
      `${label}: request-thread CPU per read running / paused, median: pages ${median(cpuRatios.page).toFixed(2)}x, searches ${median(cpuRatios.search).toFixed(2)}x`,
      `${label}: backfill without reads (searches one at a time): ${quietRate.toFixed(2)} listings/s, 100k in ${hours(quietRate)} h; ` +
        `while reads ran (running rounds): ${rate.toFixed(2)} listings/s, 100k in ${hours(rate)} h; ` +
        `model thread ${modelMsPerListing.toFixed(0)} ms CPU a listing (page rounds)` +
        (dutyShare > 0 && modelMsPerListing > 0
          ? `, so at duty ${dutyShare} on an idle core ${((dutyShare * 1000) / modelMsPerListing).toFixed(1)} listings/s, 100k in ${(100_000 / ((dutyShare * 1000) / modelMsPerListing) / 3600).toFixed(1)} h`
          : ""),
      `${label}: median read p50 ratio: pages ${pageRatio.toFixed(2)}x, searches ${searchRatio.toFixed(2)}x (target <= ${TARGET}x): ${pass ? "PASS" : "MISS"}`,
    );
  }
  console.table(table);
  console.log(
    `listings: ${SIZE}, ${PAIRS} pairs of ${ROUND_SECONDS} s rounds (2 connections), load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  for (const verdict of verdicts) console.log(verdict);
} finally {
  rmSync(dirname(file), { recursive: true, force: true });
}
