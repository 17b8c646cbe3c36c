import type { CatalogChangeFeed } from "../storage/catalog-notices.js";
import type { CatalogStamp, ListingStore } from "../storage/listing-store.js";
import { metrics } from "../metrics.js";

export interface Freshness {
  /** Changes exactly when anything a catalog document shows may have changed. */
  token: string;
  stamp: CatalogStamp;
}

function tokenOf(stamp: CatalogStamp): string {
  return `${stamp.version}.${stamp.nextExpiry?.getTime() ?? "none"}`;
}

/**
 * How long a stamp read on a shared database (PostgreSQL) is trusted while change notices arrive:
 * the staleness bound should a notice ever go missing. A busy instance reads the stamp about once
 * per this interval; an idle one not at all.
 */
export const SHARED_STAMP_MAX_AGE_MS = 1_000;

/**
 * Knows, cheaply, whether rendered catalog documents are still current: a document depends on the
 * catalog version (bumped by every write) and on the next expiry (a listing vanishes then).
 *
 * - SQLite is one process's file: the stamp is kept in memory, re-read after this process writes
 *   or when the next expiry passes. No query per request.
 * - PostgreSQL is shared by many instances, each writing. With a change feed that is live (LISTEN,
 *   src/storage/catalog-notices.ts) the stamp is kept like SQLite's and dropped on any instance's
 *   change notice, and in any case after SHARED_STAMP_MAX_AGE_MS: every instance serves the same
 *   ETag within milliseconds of a commit, and within that bound should a notice be lost. While the
 *   feed is down the stamp is read on every check (one indexed statement), so a request that
 *   starts after any instance's commit sees it.
 */
export class CatalogFreshness {
  private cached: { freshness: Freshness; readAt: number } | undefined;
  /** Bumped by every local write and change notice; a read that raced one is not kept. */
  private generation = 0;
  /** The stamp read under way, shared by the checks that arrive meanwhile (same generation only). */
  private reading: { generation: number; promise: Promise<Freshness> } | undefined;

  constructor(
    private readonly store: ListingStore,
    private readonly now: () => Date,
    private readonly feed?: CatalogChangeFeed,
    private readonly maxSharedAgeMs = SHARED_STAMP_MAX_AGE_MS,
  ) {
    const invalidate = () => {
      this.generation++;
      this.cached = undefined;
    };
    store.onChange(invalidate);
    feed?.onChange(invalidate);
  }

  private get shared(): boolean {
    return this.store.kind === "postgres";
  }

  /** Whether a stamp read now may be kept (SQLite always; PostgreSQL only while notices arrive). */
  private get keepable(): boolean {
    return !this.shared || this.feed?.live === true;
  }

  /** The current freshness, or undefined when it must be read (then call `current()`). */
  peek(): Freshness | undefined {
    const cached = this.cached;
    if (!cached || !this.keepable) return undefined;
    if (this.shared && performance.now() - cached.readAt >= this.maxSharedAgeMs) return undefined;
    const next = cached.freshness.stamp.nextExpiry;
    return next && this.now() >= next ? undefined : cached.freshness;
  }

  async current(): Promise<Freshness> {
    const known = this.peek();
    if (known) return known;
    const generation = this.generation;
    if (this.reading?.generation === generation && this.keepable) return this.reading.promise;
    const readAt = performance.now();
    const promise = this.store.catalogStamp(this.now()).then((stamp) => {
      metrics.catalogStampReads.inc();
      const freshness = { token: tokenOf(stamp), stamp };
      if (generation === this.generation && this.keepable) this.cached = { freshness, readAt };
      return freshness;
    });
    this.reading = { generation, promise };
    const clear = () => {
      if (this.reading?.promise === promise) this.reading = undefined;
    };
    promise.then(clear, clear);
    return promise;
  }
}
