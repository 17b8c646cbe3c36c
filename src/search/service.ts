// The catalog's search service: one SearchEngine per instance, loaded from the database, following
// its changes, and fed the model's vectors by the embedding worker.
// - start(): every live listing with its stored embedding (ListingEmbedding) goes into the engine;
//   a listing without one (or with one of an older text) takes the query encoder's vector for now
//   and waits for the backfill.
// - refresh(): the listings changed since the last look (updatedAt), so writes on any instance show.
// - backfill(): embeds the listings still on a stand-in vector with the model, on the worker, a
//   batch at a time, storing each batch, and pausing after each batch so that it works only a
//   `duty` share of the time (SEARCH_BACKFILL_DUTY, src/config.ts): catalog reads keep the rest.
// - search(): on the request thread, synchronous work only, with the query encoder's vector. A
//   question is not sent to the model: 50-110 ms of the model's CPU per distinct question, anyone
//   can send, bought 0.004 nDCG@10 for a repeat of the same words (0.627 first ask, 0.631 asked
//   before) and kept the model's thread (~140 MB) running while nothing was left to backfill.
import { createHash } from "node:crypto";
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import type { Database } from "../storage/database.js";
import { EmbeddingStore, type StoredSearchRow } from "../storage/embedding-store.js";
import { SearchEngine, normalizeQuery } from "./engine.js";
import { BATCH, EmbeddingPool } from "./embedding-pool.js";
import { loadCodebook, loadQueryEncoder, type QueryEncoder } from "./query-encoder.js";
import type { HealthStatus, SearchDocument, SearchFilters, SearchMode, SearchOutcome } from "./types.js";
import { packVector, unpackVector } from "./vector-file.js";

/** The model's name in ListingEmbedding.model: another value means "embed again". */
export const EMBEDDING_MODEL = "use-lite-0.2.0";
/** CPU the look-alike checks take in one go off the request path (about 14 µs a listing). */
const LOOKALIKE_SLICE_MS = 10;
/**
 * CPU that taking rows into the engine uses before letting requests in (a row costs 0.3-0.8 ms: the
 * encoder's stand-in vector and the lexical postings; 100k rows in one go held the event loop 60-80 s).
 */
const TAKE_SLICE_MS = 10;

export interface SearchServiceLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface SearchServiceOptions {
  /** Run the model on a worker thread (false: the query encoder only; tests of the request path). */
  model?: boolean;
  /** Idle time after which the model's thread stops (EmbeddingPool's default when absent). */
  modelIdleMs?: number | undefined;
  log?: SearchServiceLog | undefined;
}

export const embeddingText = (row: { serviceName: string | null; description: string }) => `${row.serviceName ?? ""}. ${row.description}`;
/** What ListingEmbedding.textHash holds: a stored vector is the listing's while its text hashes the same. */
export const textHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);
const HEALTH = new Set(["healthy", "unhealthy", "drifted", "unknown"]);

/** What the engine keeps of a stored row; the catalog's own filters (seed, network, extensions) ride along in `allow`. */
export function searchDocumentOf(row: StoredSearchRow): SearchDocument {
  return {
    id: row.id,
    serviceName: row.serviceName,
    description: row.description,
    resource: row.resource,
    tags: row.tags,
    payTo: row.sellerPayTo,
    priceMicros: row.priceMicros,
    verified: row.ownerVerified,
    health: (HEALTH.has(row.healthStatus) ? row.healthStatus : "unknown") as HealthStatus,
    calls30d: row.calls30d,
    listedAt: row.listedAt.getTime(),
  };
}

/** The pause after a batch that took `busyMs`, so that the backfill is busy a `duty` share of the time. */
export const backfillPauseMs = (busyMs: number, duty: number): number => (duty >= 1 ? 0 : (busyMs * (1 - duty)) / duty);

export class SearchService {
  readonly engine: SearchEngine;
  private readonly store: EmbeddingStore;
  private pool: EmbeddingPool | null = null;
  private lastSeen = new Date(0);
  /** Set once start() has loaded the catalog: refresh() follows changes from then on. */
  private started = false;

  constructor(
    db: Database,
    private readonly options: SearchServiceOptions = {},
  ) {
    this.store = new EmbeddingStore(db);
    let encoder: QueryEncoder | null = null;
    try {
      encoder = loadQueryEncoder();
    } catch (error) {
      options.log?.warn({ err: error }, "search: the query encoder's files did not load; search answers lexically");
    }
    this.engine = new SearchEngine({ encoder, codebook: loadCodebook() });
  }

  private modelPool(): EmbeddingPool | null {
    if (this.options.model === false) return null;
    this.pool ??= new EmbeddingPool({ threads: 1, maxQueue: 64, idleMs: this.options.modelIdleMs });
    return this.pool;
  }

  private take(row: StoredSearchRow): void {
    if (!row.live) {
      this.engine.remove(row.id);
      return;
    }
    const hash = textHash(embeddingText(row));
    const stored = row.embedding && row.embedding.model === EMBEDDING_MODEL && row.embedding.textHash === hash ? unpackVector(row.embedding.vector) : undefined;
    this.engine.upsert(searchDocumentOf(row), stored);
  }

  /** Takes rows into the engine a slice of CPU at a time, letting the event loop turn after each slice. */
  private async takeAll(rows: StoredSearchRow[], takeRow: (row: StoredSearchRow) => void): Promise<void> {
    let next = 0;
    while (next < rows.length) {
      const until = performance.now() + TAKE_SLICE_MS;
      do takeRow(rows[next++]!);
      while (next < rows.length && performance.now() < until);
      await nextTurn();
    }
  }

  /** Loads every live listing; the semantic side is ready once this is done (searches answer lexically meanwhile). */
  async start(now: Date = new Date()): Promise<void> {
    // updatedAt is the database's wall clock (Prisma's @updatedAt), whatever `now` says about expiry.
    const started = new Date();
    const count = await this.store.eachLive(now, (rows) => this.takeAll(rows, (row) => this.take(row)));
    this.lastSeen = new Date(started.getTime() - 1000);
    this.started = true;
    this.engine.markReady();
    while (!this.engine.checkLookalikes(LOOKALIKE_SLICE_MS)) await new Promise((resolve) => setImmediate(resolve));
    this.options.log?.info({ listings: count, waitingForModel: this.engine.pendingModelVectors.length }, "search: catalog indexed");
  }

  /** Takes in the listings changed since the last look (a write on any instance; an expiry is seen by the caller's visibility check). */
  async refresh(now: Date = new Date()): Promise<number> {
    // Before start() is done there is nothing to follow: "changed since 1970" read every listing a
    // second time, into one array (at 100k listings the 384 MB heap of npm start ran out).
    if (!this.started) return 0;
    const since = this.lastSeen;
    // Rows written during this read are seen again next time (a second of overlap).
    this.lastSeen = new Date(Date.now() - 1000);
    const rows = await this.store.changedSince(since, now);
    await this.takeAll(rows, (row) => {
      const doc = searchDocumentOf(row);
      if (row.live && this.engine.has(row.id) && !this.engine.textChanged(doc)) this.engine.updateFacts(doc);
      else this.take(row);
    });
    this.engine.checkLookalikes(LOOKALIKE_SLICE_MS);
    return rows.length;
  }

  /** The model's vector of a query, remembered for later asks (tests and tools: the request path never asks the model). */
  async embedQuery(query: string): Promise<void> {
    const pool = this.modelPool();
    if (!pool) return;
    const [vector] = await pool.embed([normalizeQuery(query)]);
    if (vector) this.engine.rememberQueryVector(query, vector);
  }

  search(query: string, options: { mode?: SearchMode; limit?: number; filters?: SearchFilters } = {}): SearchOutcome {
    return this.engine.search(query, options);
  }

  /** Model threads running now (0 before the first text and after the idle stop). */
  get modelThreads(): number {
    return this.pool?.threads ?? 0;
  }

  /**
   * Embeds the listings still on a stand-in vector with the model and stores them, `limit` at most
   * per run. After each batch it pauses so that it works a `duty` share of the time (0: not at all;
   * the job passes SEARCH_BACKFILL_DUTY).
   */
  async backfill(signal?: AbortSignal, limit = Infinity, duty = 1): Promise<number> {
    if (duty <= 0) return 0;
    const pool = this.modelPool();
    if (!pool) return 0;
    let done = 0;
    const pending = this.engine.pendingModelVectors.slice(0, limit);
    for (let i = 0; i < pending.length && !signal?.aborted; i += BATCH) {
      const batch = pending.slice(i, i + BATCH).flatMap((id) => {
        const doc = this.engine.document(id);
        return doc ? [doc] : [];
      });
      if (batch.length === 0) continue;
      const started = performance.now();
      const vectors = await pool.embed(batch.map((doc) => embeddingText(doc)));
      await this.store.save(
        batch.map((doc, n) => ({
          listingId: doc.id,
          model: EMBEDDING_MODEL,
          textHash: textHash(embeddingText(doc)),
          vector: packVector(vectors[n]!),
        })),
      );
      batch.forEach((doc, n) => this.engine.setModelVector(doc.id, vectors[n]!));
      done += batch.length;
      await sleep(backfillPauseMs(performance.now() - started, duty), undefined, { signal }).catch(() => {});
    }
    return done;
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = null;
  }
}
