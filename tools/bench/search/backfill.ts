/**
 * `npm run bench:search:backfill`: do catalog reads slow down while the model backfills listing
 * embeddings? The service runs as `npm start` runs it (SQLite) on a catalog of
 * SEARCH_BACKFILL_SIZE listings (default 100,000) without stored embeddings:
 * - idle: an instance with SEARCH_BACKFILL_DUTY=0 (no backfill), at rest, answers uncached reads
 *   (distinct catalog pages and distinct searches, autocannon, 15 s rounds in turn) for 60 s;
 * - during: an instance per duty in SEARCH_BACKFILL_DUTIES (default: unset, the service's own
 *   default) on the same catalog, the same reads repeated for SEARCH_BACKFILL_WINDOW seconds while
 *   the search-backfill job embeds with the real model; the embeddings stored meanwhile give the
 *   rate and the time a whole backfill would take.
 * Target: read p50 during the backfill at most 1.2x idle, for pages and for searches.
 */
import { loadavg } from "node:os";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { serve, type BenchServer } from "../servers.js";
import { atRest, embeddingCount, engineReady, reads, seededCatalog, type ReadFigures } from "./service-bench.js";

const SIZE = Number(process.env.SEARCH_BACKFILL_SIZE ?? 100_000);
const WINDOW_SECONDS = Number(process.env.SEARCH_BACKFILL_WINDOW ?? 180);
const READ_SECONDS = 15;
const IDLE_SECONDS = 60;
const DUTIES = (process.env.SEARCH_BACKFILL_DUTIES ?? "").split(",").filter((duty) => duty !== "");
const TARGET = 1.2;

const load = () => loadavg()[0]!.toFixed(1);

interface Phase {
  page: ReadFigures[];
  search: ReadFigures[];
}

/** Alternating rounds of pages and searches until `until` (at least one of each). */
async function readRounds(server: BenchServer, until: number): Promise<Phase> {
  const phase: Phase = { page: [], search: [] };
  do {
    phase.page.push(await reads(server.url, "page", SIZE, READ_SECONDS));
    phase.search.push(await reads(server.url, "search", SIZE, READ_SECONDS));
  } while (performance.now() < until);
  return phase;
}

/** Median of the rounds' p50s (a round is one autocannon run). */
const p50Of = (rounds: ReadFigures[]) => {
  const values = rounds.map((round) => round.p50).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)]!;
};
const sum = (rounds: ReadFigures[], key: "requests" | "non2xx") => rounds.reduce((total, round) => total + round[key], 0);

async function started(file: string, env: Record<string, string>): Promise<BenchServer> {
  const server = await serve("app", [], { DATABASE_URL: `file:${file}`, ...env });
  const ready = await engineReady(server.url);
  console.error(`${JSON.stringify(env)}: engine ready after ${(ready / 1000).toFixed(0)} s (load ${load()})`);
  return server;
}

const file = await seededCatalog(SIZE);
const rows: Array<Record<string, string | number>> = [];
const row = (label: string, phase: Phase, extra: Record<string, string | number> = {}) => {
  rows.push({
    phase: label,
    "page p50 (ms)": p50Of(phase.page),
    "search p50 (ms)": p50Of(phase.search),
    "pages answered": sum(phase.page, "requests"),
    "searches answered": sum(phase.search, "requests"),
    "non-2xx": sum(phase.page, "non2xx") + sum(phase.search, "non2xx"),
    "load avg": load(),
    ...extra,
  });
};
try {
  const idleServer = await started(file, { SEARCH_BACKFILL_DUTY: "0" });
  let idle: Phase;
  try {
    console.error(`idle instance at rest after ${(await atRest(idleServer)).toFixed(0)} s`);
    idle = await readRounds(idleServer, performance.now() + IDLE_SECONDS * 1000);
  } finally {
    await idleServer.stop();
  }
  row("idle (no backfill)", idle);
  const verdicts: string[] = [];
  for (const duty of DUTIES.length > 0 ? DUTIES : [""]) {
    const server = await started(file, duty === "" ? {} : { SEARCH_BACKFILL_DUTY: duty });
    try {
      // The job's first run starts a few seconds after the service: wait for its first stored batch.
      const waitUntil = performance.now() + 120_000;
      const before = embeddingCount(file);
      while (embeddingCount(file) === before && performance.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 1000));
      const count0 = embeddingCount(file);
      const windowStart = performance.now();
      const during = await readRounds(server, windowStart + WINDOW_SECONDS * 1000);
      const seconds = (performance.now() - windowStart) / 1000;
      const embedded = embeddingCount(file) - count0;
      const rate = embedded / seconds;
      const label = `during backfill (duty ${duty === "" ? "default" : duty})`;
      row(label, during, {
        "embedded/s": Number(rate.toFixed(2)),
        "100k backfill (h)": rate > 0 ? Number((100_000 / rate / 3600).toFixed(1)) : "never",
      });
      const pageRatio = p50Of(during.page) / p50Of(idle.page);
      const searchRatio = p50Of(during.search) / p50Of(idle.search);
      const pass = pageRatio <= TARGET && searchRatio <= TARGET && embedded > 0;
      verdicts.push(
        `${label}: read p50 during / idle: pages ${pageRatio.toFixed(2)}x, searches ${searchRatio.toFixed(2)}x (target <= ${TARGET}x); ${embedded} embedded in ${seconds.toFixed(0)} s: ${pass ? "PASS" : "MISS"}`,
      );
    } finally {
      await server.stop();
    }
  }
  console.table(rows);
  console.log(
    `listings: ${SIZE}, window ${WINDOW_SECONDS} s, reads ${READ_SECONDS} s a round (2 connections), load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  for (const verdict of verdicts) console.log(verdict);
} finally {
  rmSync(dirname(file), { recursive: true, force: true });
}
