import type { CatalogStamp, ListingStore } from "../storage/listing-store.js";

export interface Freshness {
  /** Changes exactly when anything a catalog document shows may have changed. */
  token: string;
  stamp: CatalogStamp;
}

function tokenOf(stamp: CatalogStamp): string {
  return `${stamp.version}.${stamp.nextExpiry?.getTime() ?? "none"}`;
}

/**
 * Knows, cheaply, whether rendered catalog documents are still current: a document depends on the
 * catalog version (bumped by every write) and on the next expiry (a listing vanishes then).
 *
 * - SQLite is one process's file: the stamp is kept in memory, re-read after this process writes
 *   or when the next expiry passes. No query per request.
 * - PostgreSQL is shared by many instances, each writing: the stamp is read on every check (one
 *   indexed statement), so a request that starts after any instance's commit sees it, and every
 *   instance serves the same ETag.
 */
export class CatalogFreshness {
  private cached: Freshness | undefined;
  /** Bumped by every local write; a read that raced a write is not cached. */
  private generation = 0;

  constructor(
    private readonly store: ListingStore,
    private readonly now: () => Date,
  ) {
    store.onChange(() => {
      this.generation++;
      this.cached = undefined;
    });
  }

  private get shared(): boolean {
    return this.store.kind === "postgres";
  }

  /** The current freshness, or undefined when it must be read (then call `current()`). */
  peek(): Freshness | undefined {
    if (this.shared || !this.cached) return undefined;
    const next = this.cached.stamp.nextExpiry;
    return next && this.now() >= next ? undefined : this.cached;
  }

  async current(): Promise<Freshness> {
    const known = this.peek();
    if (known) return known;
    const generation = this.generation;
    const stamp = await this.store.catalogStamp(this.now());
    const freshness = { token: tokenOf(stamp), stamp };
    if (!this.shared && generation === this.generation) this.cached = freshness;
    return freshness;
  }
}
