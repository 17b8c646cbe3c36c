// What the search benches that run the real service share (memory.ts, backfill.ts): a seeded SQLite
// catalog (seeded once and copied, `SEARCH_BENCH_SEED_DIR` keeps the seeded file between runs),
// ListingEmbedding rows filled from the distilled encoder (seconds, where the model takes ~87 min
// for 100k), waiting for the service's engine to be ready and for the process to settle, and
// uncached catalog reads under autocannon.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import Sqlite from "better-sqlite3";
import { loadQueryEncoder } from "../../../src/search/query-encoder.js";
import { EMBEDDING_MODEL, embeddingText, textHash } from "../../../src/search/service.js";
import { packVector } from "../../../src/search/vector-file.js";
import { seedListings } from "../seed-listings.js";
import type { BenchServer } from "../servers.js";

/** A fresh copy of a catalog of `size` listings (seeded now, or copied from SEARCH_BENCH_SEED_DIR). */
export async function seededCatalog(size: number): Promise<string> {
  const kept = process.env.SEARCH_BENCH_SEED_DIR;
  const file = join(mkdtempSync(join(tmpdir(), "bench-search-")), "catalog.db");
  const seed = kept ? join(kept, `searchmem-seed${size >= 1000 ? `${size / 1000}k` : size}.db`) : file;
  if (!existsSync(seed)) {
    if (kept) mkdirSync(kept, { recursive: true });
    const started = performance.now();
    await seedListings(`file:${seed}`, size - 1);
    console.error(`seeded ${size} listings in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  if (seed !== file) copyFileSync(seed, file);
  return file;
}

/** Stores a vector for every listing without one: the distilled encoder's, as if the backfill were done. */
export function fillEmbeddings(file: string): number {
  const encoder = loadQueryEncoder();
  const sqlite = new Sqlite(file);
  try {
    const rows = sqlite
      .prepare(
        `SELECT l."id", l."serviceName", l."description" FROM "Listing" l LEFT JOIN "ListingEmbedding" e ON e."listingId" = l."id" WHERE e."listingId" IS NULL`,
      )
      .all() as Array<{ id: string; serviceName: string | null; description: string }>;
    const insert = sqlite.prepare(
      `INSERT INTO "ListingEmbedding" ("listingId", "model", "textHash", "vector", "embeddedAt") VALUES (?, ?, ?, ?, ?)`,
    );
    const now = new Date().toISOString().replace("Z", "+00:00");
    sqlite.transaction(() => {
      for (const row of rows) {
        const text = embeddingText(row);
        const vector = encoder.encode(text);
        if (vector) insert.run(row.id, EMBEDDING_MODEL, textHash(text), Buffer.from(packVector(vector)), now);
      }
    })();
    return rows.length;
  } finally {
    sqlite.close();
  }
}

export function embeddingCount(file: string): number {
  const sqlite = new Sqlite(file, { readonly: true });
  try {
    return sqlite.prepare(`SELECT count(*) FROM "ListingEmbedding"`).pluck().get() as number;
  } finally {
    sqlite.close();
  }
}

/** Until a hybrid search no longer answers "semantic-not-ready" (the engine has the catalog). */
export async function engineReady(url: string, timeoutMs = 600_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const reply = (await (
      await fetch(`${url}/discovery/search?query=weather%20forecast&mode=hybrid&limit=1`)
    ).json()) as { searchModeReason?: string };
    if (reply.searchModeReason !== "semantic-not-ready") return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error("the search engine did not get ready");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Until the process spends under `msPerSecond` of CPU a second (at most `maxSeconds`); the seconds waited. */
export async function atRest(server: BenchServer, msPerSecond = 50, maxSeconds = 300): Promise<number> {
  const started = performance.now();
  let before = server.cpuMs();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const now = server.cpuMs();
    if ((now - before) / 2 < msPerSecond || performance.now() - started > maxSeconds * 1000)
      return (performance.now() - started) / 1000;
    before = now;
  }
}

export const WORDS = [
  "weather",
  "translate",
  "invoice",
  "audio",
  "geocode",
  "stock",
  "news",
  "sentiment",
  "route",
  "resize",
  "price",
  "ocr",
];
const EXTRA = ["fast", "global", "hourly", "cached", "private", "historical", "daily", "premium", "open", "batch"];
let distinct = 0;

/** Uncached reads: a catalog page at a random offset, or a search in words no earlier request used together. */
export function readPath(kind: "page" | "search", size: number): string {
  const n = distinct++;
  if (kind === "page") return `/discovery/resources?limit=${1 + (n % 20)}&offset=${Math.floor(Math.random() * size)}`;
  const words = [WORDS[n % WORDS.length], EXTRA[Math.floor(n / WORDS.length) % EXTRA.length], `api${n}`];
  return `/discovery/search?query=${encodeURIComponent(words.join(" "))}&limit=20`;
}

export interface ReadFigures {
  requests: number;
  p50: number;
  p99: number;
  mean: number;
  non2xx: number;
}

/** `seconds` of uncached reads of one kind under autocannon. */
export async function reads(
  url: string,
  kind: "page" | "search",
  size: number,
  seconds: number,
  connections = 2,
): Promise<ReadFigures> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (request) => ({ ...request, path: readPath(kind, size) }) }],
  });
  return {
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    non2xx: result.non2xx + result.errors,
  };
}
