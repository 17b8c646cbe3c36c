// The one way anything writes what the catalog shows: a transaction that bumps the CatalogState
// version when it changed something, then tells this process's listeners (the freshness cache).
// ListingStore and the trust stores (health, ownership, usage) all write through one instance.
import { randomUUID } from "node:crypto";
import type { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { Database } from "./database.js";
import { CATALOG_CHANNEL } from "./catalog-notices.js";
import { EPOCH } from "./listing-reads.js";
import type { ListingEventDraft } from "./listing-types.js";
import { StateMemo } from "./state-memo.js";

export type Tx = Prisma.TransactionClient;

/** What a write reports: its result, whether the catalog changed, and the events to record with it. */
export interface WriteOutcome<T> {
  result: T;
  changed: boolean;
  /** Written in the same transaction (the outbox): committed exactly when the change is. */
  events?: readonly ListingEventDraft[];
}

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
   * change: everything a catalog document shows must be written through here. The events fn
   * returns are inserted under the same lock, so their seq order is their commit order.
   */
  async write<T>(now: Date, fn: (tx: Tx) => Promise<WriteOutcome<T>>): Promise<T> {
    let committedChange = false;
    const result = await this.db.exclusive(() =>
      this.prisma.$transaction(
        async (tx) => {
          await tx.$executeRaw`INSERT INTO "CatalogState" ("id", "version", "changedAt") VALUES (1, 0, ${EPOCH})
            ON CONFLICT ("id") DO UPDATE SET "version" = "CatalogState"."version"`;
          const { result, changed, events } = await fn(tx);
          if (events?.length) await tx.listingEvent.createMany({ data: events.map((event) => eventRow(event, now)) });
          if (changed) await tx.catalogState.update({ where: { id: 1 }, data: { version: { increment: 1 }, changedAt: now } });
          // Delivered to every instance's listener at commit (catalog-notices.ts).
          if (changed && this.kind === "postgres") await tx.$executeRaw`SELECT pg_notify(${CATALOG_CHANNEL}, current_schema())`;
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

function eventRow(event: ListingEventDraft, at: Date): Prisma.ListingEventCreateManyInput {
  return {
    id: `evt_${randomUUID()}`,
    listingId: event.listingId,
    sellerPayTo: event.sellerPayTo.toLowerCase(),
    type: event.type,
    status: event.status as unknown as Prisma.InputJsonValue,
    ...(event.data && { data: event.data as Prisma.InputJsonValue }),
    at,
  };
}
