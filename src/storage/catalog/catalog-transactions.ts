// The one way anything writes what the catalog shows: a transaction that bumps the CatalogState
// version when it changed something, then tells this process's listeners (the freshness cache).
// ListingStore and the trust stores (health, ownership, usage) all write through one instance.
import { randomUUID } from "node:crypto";
import type Sqlite from "better-sqlite3";
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import { sqliteValue, type SqlRow } from "../catalog-reader.js";
import { metrics } from "../../metrics.js";
import type { Database } from "../database.js";
import { CATALOG_CHANNEL } from "./catalog-notices.js";
import { EPOCH } from "./listing-reads.js";
import type { ListingEventDraft } from "../listing-types.js";
import { StateMemo } from "./state-memo.js";

export type Tx = Prisma.TransactionClient;

/**
 * Raw SQL in a write transaction: Prisma's transaction client on PostgreSQL, the better-sqlite3
 * connection itself on SQLite (writeRaw). Rows come back as the driver gives them (catalog-reader.ts).
 */
export interface RawTx {
  $queryRaw<T = SqlRow[]>(query: Prisma.Sql): Promise<T>;
  $executeRaw(query: Prisma.Sql): Promise<number>;
}

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
          if (changed)
            await tx.catalogState.update({ where: { id: 1 }, data: { version: { increment: 1 }, changedAt: now } });
          // Delivered to every instance's listener at commit (catalog-notices.ts).
          if (changed && this.kind === "postgres")
            await tx.$executeRaw`SELECT pg_notify(${CATALOG_CHANNEL}, current_schema())`;
          committedChange = changed;
          return result;
        },
        { maxWait: 10_000, timeout: 20_000 },
      ),
    );
    if (committedChange) for (const listener of this.changeListeners) listener();
    return result;
  }

  /**
   * write() for a transaction of raw statements (RawTx). On SQLite it runs on the driver's own
   * connection, with its statements prepared once: through Prisma each statement of the paid flow
   * cost about 0.7 ms of CPU (its query interpreter and a fresh prepare), on the driver a few
   * hundredths of that. Same lock first, same version bump and events, same listeners.
   */
  async writeRaw<T>(now: Date, fn: (tx: RawTx) => Promise<WriteOutcome<T>>): Promise<T> {
    if (this.kind !== "sqlite") return this.write(now, fn);
    let committedChange = false;
    const result = await this.db.exclusive(async () => {
      const connection = this.db.sqliteConnection?.();
      if (!connection) return null;
      const tx = this.driverTx(connection);
      // IMMEDIATE: the write lock up front, as write()'s first statement being a write takes it.
      tx.run("BEGIN IMMEDIATE");
      try {
        await tx.$executeRaw(
          Prisma.sql`INSERT INTO "CatalogState" ("id", "version", "changedAt") VALUES (1, 0, ${EPOCH}) ON CONFLICT ("id") DO NOTHING`,
        );
        const { result, changed, events } = await fn(tx);
        if (events?.length) await tx.$executeRaw(insertEventsSql(events, now));
        if (changed)
          await tx.$executeRaw(
            Prisma.sql`UPDATE "CatalogState" SET "version" = "version" + 1, "changedAt" = ${now} WHERE "id" = 1`,
          );
        tx.run("COMMIT");
        committedChange = changed;
        return { result };
      } catch (error) {
        if (connection.inTransaction) tx.run("ROLLBACK");
        throw error;
      }
    });
    // Prisma has not opened its connection yet (nothing read or written so far): its path.
    if (result === null) return this.write(now, fn);
    if (committedChange) for (const listener of this.changeListeners) listener();
    return result.result;
  }

  private driverTx(connection: Sqlite.Database): RawTx & { run(text: string): void } {
    if (this.statements?.connection !== connection) this.statements = { connection, prepared: new Map() };
    const cache = this.statements.prepared;
    const prepared = (text: string) => {
      let statement = cache.get(text);
      if (!statement) {
        // Statements whose text varies (a list's length) would grow the cache without bound.
        if (cache.size >= MAX_PREPARED) cache.clear();
        statement = connection.prepare(text).safeIntegers(false);
        cache.set(text, statement);
      }
      return statement;
    };
    const values = (query: Prisma.Sql) => query.values.map(sqliteValue);
    // Timed as Prisma's statements are (x402_database_query_duration_seconds), so the paid flow's
    // writes still show in the database histogram.
    const timed = <R>(run: () => R): R => {
      const started = process.hrtime.bigint();
      try {
        return run();
      } finally {
        sqliteStatements.observe(Number(process.hrtime.bigint() - started) / 1e9);
      }
    };
    return {
      run: (text) => void timed(() => prepared(text).run()),
      $queryRaw: async <R>(query: Prisma.Sql) => {
        const statement = prepared(query.sql);
        return timed(() =>
          statement.reader ? statement.all(...values(query)) : (statement.run(...values(query)), []),
        ) as R;
      },
      $executeRaw: async (query) => timed(() => prepared(query.sql).run(...values(query)).changes),
    };
  }
  private statements?: { connection: Sqlite.Database; prepared: Map<string, Sqlite.Statement> };
}

const sqliteStatements = metrics.databaseDuration.labels({ database: "sqlite" });

/** Prepared statements kept on the driver's connection: the paid flow uses about twenty texts. */
const MAX_PREPARED = 200;

/** The events of a driver transaction: the columns Prisma's createMany writes (eventRow). */
function insertEventsSql(events: readonly ListingEventDraft[], at: Date): Prisma.Sql {
  const rows = events.map(
    (event) =>
      Prisma.sql`(${`evt_${randomUUID()}`}, ${event.listingId}, ${event.sellerPayTo.toLowerCase()}, ${event.type}, ${JSON.stringify(event.status)}, ${event.data ? JSON.stringify(event.data) : null}, ${at})`,
  );
  return Prisma.sql`INSERT INTO "ListingEvent" ("id", "listingId", "sellerPayTo", "type", "status", "data", "at") VALUES ${Prisma.join(rows)}`;
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
