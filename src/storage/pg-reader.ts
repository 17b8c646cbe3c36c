// Catalog reads on PostgreSQL through the driver itself: a pg Pool of its own, each statement
// prepared once per connection (a named statement: parsed and planned once, then bound and
// executed), instead of Prisma's $queryRaw, which builds and describes every query afresh and
// shares its pool with the writers. The SQLite counterpart is catalog-reader.ts openSqliteReader.
import pg from "pg";
import type { Prisma } from "../../generated/prisma/sqlite/client.js";
import { metrics } from "../metrics.js";
import type { CatalogReader, SqlRow } from "./catalog-reader.js";
import { pgSessionOptions, type DatabaseTarget } from "./connection.js";

/** Connections of the catalog read pool by default (DATABASE_READ_POOL_SIZE). */
export const DEFAULT_READ_POOL_SIZE = 6;

/**
 * Distinct statement texts kept prepared. The catalog's reads have a few dozen shapes; a text past
 * this many (a key list of a new length, say) runs unnamed, so no connection holds an unbounded
 * number of plans.
 */
const MAX_PREPARED = 512;

export function openPgReader(
  target: Extract<DatabaseTarget, { kind: "postgres" }>,
  poolSize = DEFAULT_READ_POOL_SIZE,
): CatalogReader & { end(): Promise<void> } {
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    // A named statement switches to a generic plan after five runs, planned without the values: a
    // search's ILIKE pattern then cannot be judged selective and its trigram indexes were passed
    // over (26 ms of backend CPU per uncached search at 10k in the scale bench, against 5.5 ms at 2k).
    // Custom plans, as Prisma's unnamed statements had; the parse is still saved.
    options: `${pgSessionOptions(target)} -c plan_cache_mode=force_custom_plan`,
    application_name: "x402-catalog-reader",
    max: poolSize,
    idleTimeoutMillis: 60_000,
    keepAlive: true,
  });
  // An idle connection that breaks is dropped by the pool; without a listener the 'error' would end the process.
  pool.on("error", () => {});
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED) {
      name = `catalog_${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  const histogram = metrics.databaseDuration.labels({ database: "postgres" });
  let ended: Promise<void> | undefined;
  const end = () => (ended ??= pool.end().catch(() => {}));
  return {
    end,
    async rows(sql: Prisma.Sql): Promise<SqlRow[]> {
      const started = process.hrtime.bigint();
      let result;
      try {
        result = await pool.query<SqlRow>({ name: nameOf(sql.text), text: sql.text, values: sql.values as unknown[] });
      } catch (error) {
        throw new CatalogReadError(error);
      }
      histogram.observe(Number(process.hrtime.bigint() - started) / 1e9);
      return result.rows;
    },
    close: () => void end(),
  };
}

/**
 * A catalog read the database refused or did not answer (pg's own errors are plain `Error`s or
 * `DatabaseError`s named "error"): named so that the service answers 503 storage_unavailable, as
 * for Prisma's and better-sqlite3's errors. The message names no SQL; the cause keeps pg's error.
 */
export class CatalogReadError extends Error {
  override readonly name = "CatalogReadError";
  readonly code: string | undefined;
  constructor(cause: unknown) {
    super("the catalog read failed", { cause });
    const code = (cause as { code?: unknown } | null)?.code;
    this.code = typeof code === "string" ? code : undefined;
  }
}
