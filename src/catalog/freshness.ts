import type { CatalogStamp, ListingStore } from "../storage/listing-store.js";
import { StateMemo } from "../storage/state-memo.js";

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
  /**
   * The stamp read in this process's write generation (SQLite only). A read that raced a write is
   * kept under the generation it started in, which the write left behind: it is never served again.
   */
  private readonly stamps = new StateMemo({ maxWeight: 1 });
  /** Bumped by every local write. */
  private generation = 0;

  constructor(
    private readonly store: ListingStore,
    private readonly now: () => Date,
  ) {
    store.onChange(() => this.generation++);
  }

  private get shared(): boolean {
    return this.store.kind === "postgres";
  }

  private get local(): string | undefined {
    return this.shared ? undefined : `generation ${this.generation}`;
  }

  /** The current freshness, or undefined when it must be read (then call `current()`). */
  peek(): Freshness | undefined {
    const local = this.local;
    if (local === undefined) return undefined;
    const known = this.stamps.known<Freshness>(local, "stamp");
    const next = known?.stamp.nextExpiry;
    return next && this.now() >= next ? undefined : known;
  }

  async current(): Promise<Freshness> {
    const known = this.peek();
    if (known) return known;
    const local = this.local;
    // Known but past its next expiry: read again.
    if (local !== undefined && this.stamps.known(local, "stamp")) this.stamps.forget(local, "stamp");
    return this.stamps.get(local, "stamp", async () => {
      const stamp = await this.store.catalogStamp(this.now());
      return { token: tokenOf(stamp), stamp };
    });
  }
}
