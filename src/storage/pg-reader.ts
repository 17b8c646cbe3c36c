// Catalog reads on PostgreSQL through the driver itself: pg pools of their own, each statement
// prepared once per connection (a named statement: parsed once, then bound and executed), instead
// of Prisma's $queryRaw, which builds and describes every query afresh and
// shares its pool with the writers. The SQLite counterpart is catalog-reader.ts openSqliteReader.
import pg from "pg";
import type { Prisma } from "../../generated/prisma/sqlite/client.js";
import { metrics } from "../metrics.js";
import type { CatalogReader, ReadOptions, SqlRow } from "./catalog-reader.js";
import { pgSessionOptions, type DatabaseTarget } from "./connection.js";

/** Connections of each of the two catalog read pools by default (DATABASE_READ_POOL_SIZE). */
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
  const poolOf = (planCacheMode: string) =>
    new pg.Pool({
      connectionString: target.connectionString,
      options: `${pgSessionOptions(target)} -c plan_cache_mode=${planCacheMode}`,
      application_name: "x402-catalog-reader",
      max: poolSize,
      idleTimeoutMillis: 60_000,
      keepAlive: true,
    });
  // A statement whose plan does not depend on its values (a page's walk of an index, a checkpoint
  // step) is planned once per connection: planning a page's statement for its values cost more
  // backend CPU than running it (0.5 ms against 0.35 ms at 100k listings; its generic plan: 0.02 ms).
  // Any other is planned for its values on every run, on connections of its own: a pattern's
  // selectivity, a price range's or a sales floor's is known only from the value. A generic plan
  // passed over a search's trigram indexes (26 ms of backend CPU per uncached search at 10k in the
  // scale bench, against 5.5 ms at 2k). Each pool opens its connections as they are needed.
  const onePlan = poolOf("force_generic_plan");
  const perValues = poolOf("force_custom_plan");
  // An idle connection that breaks is dropped by the pool; without a listener the 'error' would end the process.
  onePlan.on("error", () => {});
  perValues.on("error", () => {});
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
  const end = () =>
    (ended ??= Promise.all([onePlan.end(), perValues.end()]).then(
      () => {},
      () => {},
    ));
  return {
    end,
    async rows(sql: Prisma.Sql, options?: ReadOptions): Promise<SqlRow[]> {
      const started = process.hrtime.bigint();
      let result;
      try {
        result = await (options?.onePlan ? onePlan : perValues).query<SqlRow>({
          name: nameOf(sql.text),
          text: sql.text,
          values: sql.values as unknown[],
        });
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
