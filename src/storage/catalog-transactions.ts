// The one way anything writes what the catalog shows: a transaction that bumps the CatalogState
// version when it changed something, then tells this process's listeners (the freshness cache).
// ListingStore and the trust stores (health, ownership, usage) all write through one instance.
import type { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { Database } from "./database.js";
import { EPOCH } from "./listing-reads.js";
import { StateMemo } from "./state-memo.js";

export type Tx = Prisma.TransactionClient;

export class CatalogTransactions {
  private readonly changeListeners = new Set<() => void>();
  /** Reads that hold for one catalog state (freshness token), for every store over this database. */
  readonly memo = new StateMemo({ maxWeight: 8192 });

  constructor(readonly db: Database) {}

  get kind(): Database["kind"] {
    return this.db.kind;
  }

  get prisma(): Database["prisma"] {
    return this.db.prisma;
  }

  /** Called after every committed write that changed the catalog (this process's writes only). */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** A read on the database's one connection (SQLite) or the pool (PostgreSQL). */
  read<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.exclusive(fn);
  }

  /**
   * One write transaction. It first touches the CatalogState row: on PostgreSQL that row
   * lock serialises catalog writers across instances (so a renewal check cannot race); on
   * SQLite the first statement being a write takes the write lock up front, which avoids
   * SQLITE_BUSY on a read-then-write upgrade. The version is bumped only when fn reports a
   * change: everything a catalog document shows must be written through here.
   */
  async write<T>(now: Date, fn: (tx: Tx) => Promise<{ result: T; changed: boolean }>): Promise<T> {
    let committedChange = false;
    const result = await this.db.exclusive(() =>
      this.prisma.$transaction(
        async (tx) => {
          await tx.$executeRaw`INSERT INTO "CatalogState" ("id", "version", "changedAt") VALUES (1, 0, ${EPOCH})
            ON CONFLICT ("id") DO UPDATE SET "version" = "CatalogState"."version"`;
          const { result, changed } = await fn(tx);
          if (changed) await tx.catalogState.update({ where: { id: 1 }, data: { version: { increment: 1 }, changedAt: now } });
          committedChange = changed;
          return result;
        },
        { maxWait: 10_000, timeout: 20_000 },
      ),
    );
    if (committedChange) for (const listener of this.changeListeners) listener();
    return result;
  }
}
