import type { CatalogChangeFeed } from "../storage/catalog/catalog-notices.js";
import type { CatalogStamp, ListingStore } from "../storage/listing/listing-store.js";
import { StateMemo } from "../storage/catalog/state-memo.js";
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

interface KeptStamp {
  freshness: Freshness;
  /** performance.now() when the read began. */
  readAt: number;
}

/**
 * Knows, cheaply, whether rendered catalog documents are still current: a document depends on the
 * catalog version (bumped by every write) and on the next expiry (a listing vanishes then).
 *
 * - SQLite is one process's file: the stamp is kept in memory, re-read after this process writes
 *   or when the next expiry passes. No query per request.
 * - PostgreSQL is shared by many instances, each writing. While the change feed is live (LISTEN,
 *   src/storage/catalog/catalog-notices.ts) the stamp is kept like SQLite's, dropped on any instance's
 *   change notice, and in any case after SHARED_STAMP_MAX_AGE_MS: every instance serves the same
 *   ETag within milliseconds of a commit, and within that bound should a notice be lost. While the
 *   feed is down the stamp is read on every check (one indexed statement), so a request that
 *   starts after any instance's commit sees it.
 */
export class CatalogFreshness {
  /**
   * The stamp read in the current generation. A read that raced a write or a notice is kept under
   * the generation it started in, which the change left behind: it is never served again.
   */
  private readonly stamps = new StateMemo({ maxWeight: 1 });
  /** Bumped by every local write and every change notice (and when the feed goes live or down). */
  private generation = 0;

  constructor(
    private readonly store: ListingStore,
    private readonly now: () => Date,
    private readonly feed?: CatalogChangeFeed,
    private readonly maxSharedAgeMs = SHARED_STAMP_MAX_AGE_MS,
  ) {
    store.onChange(() => this.generation++);
    feed?.onChange(() => this.generation++);
  }

  private get shared(): boolean {
    return this.store.kind === "postgres";
  }

  /** The memo's state for a stamp read now, or undefined when it may not be kept (PostgreSQL without notices). */
  private get state(): string | undefined {
    return !this.shared || this.feed?.live === true ? `generation ${this.generation}` : undefined;
  }

  /** The current freshness, or undefined when it must be read (then call `current()`). */
  peek(): Freshness | undefined {
    const state = this.state;
    if (state === undefined) return undefined;
    const known = this.stamps.known<KeptStamp>(state, "stamp");
    if (!known) return undefined;
    if (this.shared && performance.now() - known.readAt >= this.maxSharedAgeMs) return undefined;
    const next = known.freshness.stamp.nextExpiry;
    return next && this.now() >= next ? undefined : known.freshness;
  }

  async current(): Promise<Freshness> {
    const known = this.peek();
    if (known) return known;
    const state = this.state;
    // Known but past its next expiry or its age: read again.
    if (state !== undefined && this.stamps.known(state, "stamp")) this.stamps.forget(state, "stamp");
    const kept = await this.stamps.get<KeptStamp>(state, "stamp", async () => {
      const readAt = performance.now();
      const stamp = await this.store.catalogStamp(this.now());
      metrics.catalogStampReads.inc();
      return { freshness: { token: tokenOf(stamp), stamp }, readAt };
    });
    return kept.freshness;
  }
}
