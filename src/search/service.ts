// The catalog's search service: one search engine per instance, on its own thread
// (engine-thread.ts), loaded from the database, following its changes, and fed the model's vectors
// by the embedding worker.
// - start(): every live listing with its stored embedding (ListingEmbedding) goes into the engine;
//   a listing without one (or with one of an older text) takes the query encoder's vector for now
//   and waits for the backfill.
// - changed() and refresh(): a sync, the listings changed since the last look (updatedAt), one at a
//   time. changed() is the notice of a catalog write (this instance's, at its commit; another's by
//   LISTEN on PostgreSQL) and starts one at once; refresh() is the follow job's poll, which catches
//   writes no notice told of. Neither is ever started by a search: caughtUp() only awaits a sync
//   already running, so a search reads nothing to bring the engine up to date.
// - backfill(): embeds the listings still on a stand-in vector with the model, on the worker, a
//   batch at a time, storing each batch, and pausing after each batch so that it works only a
//   `duty` share of the time (SEARCH_BACKFILL_DUTY, src/config.ts): catalog reads keep the rest.
// - search(): a question's first ask is embedded by the model on its thread (query-vectors.ts:
//   batched, a bounded queue, the query encoder's vector when it is full), then ranked on the
//   engine's thread; the request thread only posts the question and reads the hits. Anyone can send
//   a question, so the per-client query limit (src/handlers/route-middleware.ts) is checked first.
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Database } from "../storage/database.js";
import { EmbeddingStore, type StoredSearchRow } from "./embedding-store.js";
import type { Change, EngineStats, PendingText } from "./engine-protocol.js";
import { EngineThread } from "./engine-thread.js";
import { BATCH, EmbeddingPool } from "./embedding-pool.js";
import {
  DIMENSIONS,
  type HealthStatus,
  type SearchDocument,
  type SearchFilters,
  type SearchMode,
  type SearchOutcome,
} from "./types.js";
import { packVector } from "./vector-file.js";
import { declaredText } from "./declared.js";
import { QueryVectors } from "./query-vectors.js";
import { listingText } from "./text.js";

/** The model's name in ListingEmbedding.model: another value means "embed again". */
export const EMBEDDING_MODEL = "use-lite-0.2.0";
/** CPU the look-alike checks take in one go off the request path (about 14 µs a listing). */
const LOOKALIKE_SLICE_MS = 10;
/**
 * Rows sent to the engine's thread in one message, each acknowledged before the next: a row costs it
 * 0.3-0.8 ms (the encoder's stand-in vector and the lexical postings), so searches wait behind at
 * most one such batch, and rows read but not yet indexed are never more than one batch.
 */
const TAKE_BATCH = 32;

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

/** What the model embeds for a listing (its name, description, and a terse one's declared fields). */
export const embeddingText = listingText;
/** What ListingEmbedding.textHash holds: a stored vector is the listing's while its text hashes the same. */
export const textHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);
const HEALTH = new Set(["healthy", "unhealthy", "drifted", "unknown"]);

/** What the engine keeps of a stored row; the catalog's own filters (seed, network, extensions) are applied to the rows it ranks. */
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
    source: row.source,
    seed: row.leftoverSeed,
    extensions: row.extensionKeys,
    expiresAt: row.expiresAt.getTime(),
    declared: declaredText(row.inputSchema, row.bazaar),
  };
}

/** The pause after a batch that took `busyMs`, so that the backfill is busy a `duty` share of the time. */
export const backfillPauseMs = (busyMs: number, duty: number): number => (duty >= 1 ? 0 : (busyMs * (1 - duty)) / duty);

export class SearchService {
  private readonly engine: EngineThread;
  private readonly store: EmbeddingStore;
  private pool: EmbeddingPool | null = null;
  private readonly queryVectors = new QueryVectors(
    () => this.modelPool(),
    (query, vector) => void this.engine.call("rememberQueryVector", { query, vector }).catch(() => {}),
  );
  private lastSeen = new Date(0);
  /** Set once start() has loaded the catalog: refresh() follows changes from then on. */
  private started = false;
  /** The catalog version (CatalogState) whose every write the engine holds: read before the rows it took (-1: none yet). */
  private syncedVersion = -1;
  /** The sync running now, one at a time; `again` when a notice came during it (the changes it told of may be past its read). */
  private syncing: Promise<number> | null = null;
  private again: Date | null = null;

  constructor(
    db: Database,
    private readonly options: SearchServiceOptions = {},
  ) {
    this.store = new EmbeddingStore(db);
    this.engine = new EngineThread((error) =>
      options.log?.warn(
        { err: error },
        "search: the engine's thread stopped; searches answer with substring matching until a restart",
      ),
    );
    void this.engine.loaded.then(
      ({ encoder, error }) => {
        if (!encoder)
          options.log?.warn({ err: error }, "search: the query encoder's files did not load; search answers lexically");
      },
      () => {},
    );
  }

  private modelPool(): EmbeddingPool | null {
    if (this.options.model === false) return null;
    this.pool ??= new EmbeddingPool({ threads: 1, maxQueue: 64, idleMs: this.options.modelIdleMs });
    return this.pool;
  }

  /** The engine's change for a stored row: its document with its stored vector when that is the current text's. */
  private change(row: StoredSearchRow): Change {
    if (!row.live) return { id: row.id, doc: null };
    const doc = searchDocumentOf(row);
    const hash = textHash(embeddingText(doc));
    const current = row.embedding && row.embedding.model === EMBEDDING_MODEL && row.embedding.textHash === hash;
    // Copied: a driver's Buffer can be a view of a larger pooled one, which the message would copy whole.
    return { id: row.id, doc, vector: current ? new Uint8Array(row.embedding!.vector) : undefined };
  }

  /** Sends rows to the engine's thread a batch at a time, each acknowledged before the next. */
  private async takeAll(rows: StoredSearchRow[], follow: boolean): Promise<void> {
    for (let next = 0; next < rows.length; next += TAKE_BATCH) {
      await this.engine.call("apply", {
        changes: rows.slice(next, next + TAKE_BATCH).map((row) => this.change(row)),
        follow,
      });
    }
  }

  /** Whether the engine's thread is running (false once it failed or was closed: searches then answer with substring matching). */
  get usable(): boolean {
    return this.engine.usable;
  }

  /** Loads every live listing; the semantic side is ready once this is done (searches answer lexically meanwhile). */
  async start(now: Date = new Date()): Promise<void> {
    // updatedAt is the database's wall clock (Prisma's @updatedAt), whatever `now` says about expiry.
    const started = new Date();
    const version = await this.store.catalogVersion();
    await this.engine.call("reserve", { listings: await this.store.countLive(now) });
    const count = await this.store.eachLive(now, (rows) => this.takeAll(rows, false));
    this.lastSeen = new Date(started.getTime() - 1000);
    this.syncedVersion = version;
    this.started = true;
    // A notice that came while the catalog loaded: its write may be past the load's reads.
    const noticed = this.again;
    this.again = null;
    if (noticed) this.changed(noticed);
    await this.engine.call("markReady", {});
    while (!(await this.engine.call("checkLookalikes", { budgetMs: LOOKALIKE_SLICE_MS })));
    const { pending } = await this.stats();
    this.options.log?.info({ listings: count, waitingForModel: pending }, "search: catalog indexed");
  }

  /**
   * A catalog write was committed (this instance's, or another's told by LISTEN): a sync starts now,
   * or right after the one running. Before start() is done it is remembered for start() to follow.
   */
  changed(now: Date = new Date()): void {
    if (!this.started) {
      this.again = now;
      return;
    }
    this.refresh(now).catch((error: unknown) =>
      this.options.log?.warn({ err: error }, "search: following a catalog change failed; the follow job tries again"),
    );
  }

  /**
   * Takes in the listings changed since the last look (a write on any instance; an expiry is seen by
   * the caller's visibility check). One sync at a time: called while one runs, it runs once more
   * after it, and answers for both. The follow job's poll and every change notice come here.
   */
  refresh(now: Date = new Date()): Promise<number> {
    if (!this.started) return Promise.resolve(0);
    if (this.syncing) {
      this.again = now;
      return this.syncing;
    }
    this.syncing = this.syncWhileNoticed(now);
    return this.syncing;
  }

  /** Syncs until no notice came during the last one. */
  private async syncWhileNoticed(now: Date): Promise<number> {
    let taken = 0;
    try {
      for (let at: Date | null = now; at; at = this.again) {
        this.again = null;
        taken += await this.syncOnce(at);
      }
    } finally {
      // In the same turn as the loop's last look at `again`: a notice after it starts a sync of its own.
      this.syncing = null;
    }
    return taken;
  }

  /**
   * Whether the engine holds every write up to catalog version `version` (a search's catalog state).
   * It awaits the sync running, if any (a notice of that write started it), and never starts one:
   * a search reads nothing to bring the engine up to date. False: a write the follow job's next poll
   * (or a notice on its way) brings in; the caller answers with the engine as it is.
   */
  async caughtUp(version: number): Promise<boolean> {
    // Bounded: a sync that keeps failing while notices keep coming must not hold a search.
    for (let waits = 0; this.syncedVersion < version && this.syncing && waits < 3; waits++)
      await this.syncing.catch(() => {});
    return this.syncedVersion >= version;
  }

  private async syncOnce(now: Date): Promise<number> {
    // Before start() is done there is nothing to follow: "changed since 1970" read every listing a
    // second time, into one array (at 100k listings the 384 MB heap of npm start ran out).
    // Nor once the engine's thread has died (logged once): each run would fail the same way.
    if (!this.started || !this.engine.usable) return 0;
    // Read first: every write up to it is committed, so the rows read next hold it.
    const version = await this.store.catalogVersion();
    // Rows written during this read are seen again next time (a second of overlap); a read that
    // failed is made again from the same moment.
    const next = new Date(Date.now() - 1000);
    const rows = await this.store.changedSince(this.lastSeen, now);
    await this.takeAll(rows, true);
    this.lastSeen = next;
    this.syncedVersion = Math.max(this.syncedVersion, version);
    // A slice each time, so checks a change left are done here rather than by the searches (at once when none are left).
    await this.engine.call("checkLookalikes", { budgetMs: LOOKALIKE_SLICE_MS });
    return rows.length;
  }

  /** The model's vector of a query, remembered by the engine for later asks. */
  async embedQuery(query: string): Promise<void> {
    const { vector } = await this.queryVectors.of(query);
    if (vector) await this.engine.call("rememberQueryVector", { query, vector });
  }

  /**
   * The engine's ranking, or null when its thread is busy with too many searches or has failed (the
   * caller answers without it). A question the engine has no model vector for is embedded by the
   * model first (query-vectors.ts), unless the model is busy: the answer then says so.
   */
  async search(
    query: string,
    options: { mode?: SearchMode; limit?: number; filters?: SearchFilters } = {},
  ): Promise<SearchOutcome | null> {
    const asked =
      options.mode === "lexical" ? { vector: undefined, reason: undefined } : await this.queryVectors.of(query);
    const outcome = await this.engine.search(query, { ...options, vector: asked.vector });
    if (outcome?.degraded === "model-busy" && asked.reason === "model-not-loaded")
      return { ...outcome, degraded: asked.reason };
    // The engine no longer held a vector the service thought it did: embedded at the next ask.
    if (outcome?.degraded === "model-busy" && asked.reason === "known") this.queryVectors.forget(query);
    return outcome;
  }

  /** What the engine holds: listings, those waiting for the model's vector, its memory. */
  stats(): Promise<EngineStats> {
    return this.engine.call("stats", {});
  }

  /** Up to `limit` listings waiting for the model's vector, with their texts. */
  pendingTexts(limit = Infinity): Promise<PendingText[]> {
    return this.engine.call("pending", { limit });
  }

  /** Model threads running now (0 before the first text and after the idle stop). */
  get modelThreads(): number {
    return this.pool?.threads ?? 0;
  }

  /**
   * Embeds the listings still on a stand-in vector with the model and stores them, `limit` at most
   * per run, once start() has loaded the catalog. After each batch it pauses so that it works a
   * `duty` share of the time (0: not at all; the job passes SEARCH_BACKFILL_DUTY).
   */
  async backfill(signal?: AbortSignal, limit = Infinity, duty = 1): Promise<number> {
    // Not while the catalog loads: the model's thread (about 85 MB) then came on top of the load's
    // own peak, at 100k listings 65 MB in the sixth second of a 35-second load.
    if (duty <= 0 || !this.started || !this.engine.usable) return 0;
    const pool = this.modelPool();
    if (!pool) return 0;
    let done = 0;
    const pending = await this.pendingTexts(limit);
    for (let i = 0; i < pending.length && !signal?.aborted; i += BATCH) {
      const batch = pending.slice(i, i + BATCH);
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
      const packed = new Float32Array(batch.length * DIMENSIONS);
      vectors.forEach((vector, n) => packed.set(vector, n * DIMENSIONS));
      await this.engine.call("setModelVectors", { ids: batch.map((doc) => doc.id), vectors: packed }, [packed.buffer]);
      done += batch.length;
      await sleep(backfillPauseMs(performance.now() - started, duty), undefined, { signal }).catch(() => {});
    }
    return done;
  }

  async close(): Promise<void> {
    // A notice's sync still reading: done before the database it reads is closed after this.
    await this.syncing?.catch(() => {});
    await this.pool?.close();
    this.pool = null;
    await this.engine.close();
  }
}
