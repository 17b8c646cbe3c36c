import type Sqlite from "better-sqlite3";
import type { PrismaClient } from "../../generated/prisma/sqlite/client.js";
import { openSqliteReader, prismaReader, type CatalogReader } from "./catalog-reader.js";
import { openPgReader } from "./pg-reader.js";
import { createAdapterFactory, parseDatabaseUrl, type DatabaseKind } from "./connection.js";
import { metrics } from "../metrics.js";
import { DEFAULT_SQLITE_CACHE_MB } from "../constants.js";

export type { DatabaseKind } from "./connection.js";
export type { PrismaClient } from "../../generated/prisma/sqlite/client.js";

/** A write refused by a unique index (Prisma's P2002): a replayed nonce or payment, a twin row. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown }).code === "P2002";
}

export interface Database {
  kind: DatabaseKind;
  /**
   * Typed as the SQLite client: both clients come from one model definition and have
   * the same API. Raw SQL must still respect `kind`.
   */
  prisma: PrismaClient;
  /**
   * Runs fn alone on this Database (SQLite) or directly (PostgreSQL). adapter-better-sqlite3
   * shares ONE connection: a query issued while an interactive transaction is open runs
   * inside that transaction (it reads uncommitted rows, and a rollback undoes it).
   * ListingStore wraps every call in this; do the same for other SQLite access that
   * must not interleave with a transaction.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Catalog reads (catalog/catalog-sql.ts, catalog/catalog-match-sql.ts), outside Prisma where the driver allows. */
  reader: CatalogReader;
  /**
   * SQLite: the better-sqlite3 connection Prisma's adapter writes through (one per process), for
   * write transactions run on the driver (CatalogTransactions.writeRaw), inside `exclusive` only.
   */
  sqliteConnection?: () => Sqlite.Database | undefined;
  close(): Promise<void>;
}

/** Prisma reports each statement's duration; x402_database_query_duration_seconds counts them. */
const QUERY_EVENTS = { log: [{ emit: "event" as const, level: "query" as const }] };

function timeStatements(
  prisma: { $on(event: "query", listener: (event: { duration: number }) => void): void },
  kind: DatabaseKind,
): void {
  const histogram = metrics.databaseDuration.labels({ database: kind });
  prisma.$on("query", (event) => histogram.observe(event.duration / 1000));
}

/** Serialises async work: each call starts after the previous one settled. */
function createQueue(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => {});
    return run;
  };
}

/**
 * Opens (without migrating) the database behind a URL:
 * `file:./data/marketplace.db` (relative to the working directory; the directory is
 * created; WAL, busy timeout) or `postgresql://…[?schema=name]`.
 * Open a SQLite file once per process: better-sqlite3 waits for a lock synchronously,
 * so a second writing connection blocked by the first stalls the event loop the first
 * needs to commit, and gives up with SQLITE_BUSY after the busy timeout (5 s). The
 * catalog reader's own connection is read-only: in WAL mode a reader takes no lock
 * that a writer waits for, nor waits for one.
 */
export async function openDatabase(
  databaseUrl: string,
  options: { readPoolSize?: number; sqliteCacheMb?: number } = {},
): Promise<Database> {
  const target = parseDatabaseUrl(databaseUrl);
  const adapter = createAdapterFactory(target);
  if (target.kind === "postgres") {
    const { PrismaClient: PgClient } = await import("../../generated/prisma/postgres/client.js");
    const pg = new PgClient({ adapter, ...QUERY_EVENTS });
    timeStatements(pg, "postgres");
    const prisma = pg as unknown as PrismaClient;
    await prisma.$connect();
    const exclusive = <T>(fn: () => Promise<T>) => fn();
    const reader = openPgReader(target, options.readPoolSize);
    const close = async () => {
      await reader.end();
      await prisma.$disconnect();
    };
    return { kind: "postgres", prisma, exclusive, reader, close };
  }
  const { PrismaClient: SqliteClient } = await import("../../generated/prisma/sqlite/client.js");
  let connection: Sqlite.Database | undefined;
  const connect = adapter.connect.bind(adapter);
  adapter.connect = async () => {
    const opened = await connect();
    connection = (opened as unknown as { client: Sqlite.Database }).client;
    return opened;
  };
  const prisma = new SqliteClient({ adapter, ...QUERY_EVENTS }) as unknown as PrismaClient;
  timeStatements(prisma as unknown as Parameters<typeof timeStatements>[0], "sqlite");
  if (target.file !== ":memory:") await prisma.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  // WAL makes NORMAL durable against application crashes; only power loss can drop the last commits.
  await prisma.$executeRawUnsafe("PRAGMA synchronous = NORMAL");
  await prisma.$executeRawUnsafe("PRAGMA foreign_keys = ON");
  const cacheKib = (options.sqliteCacheMb ?? DEFAULT_SQLITE_CACHE_MB) * 1024;
  await prisma.$executeRawUnsafe(`PRAGMA cache_size = -${cacheKib}`);
  const exclusive = createQueue();
  const reader = target.file === ":memory:" ? prismaReader(prisma, exclusive) : openSqliteReader(target.file, cacheKib);
  const close = async () => {
    reader.close();
    await exclusive(() => prisma.$disconnect());
  };
  return { kind: "sqlite", prisma, exclusive, reader, close, sqliteConnection: () => connection };
}
