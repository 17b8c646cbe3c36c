// Database URL -> Prisma driver adapter factory, shared by the runtime client
// (database.ts) and the migration engine (migrate.ts).
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";

export type DatabaseKind = "sqlite" | "postgres";

export type DatabaseTarget =
  | { kind: "sqlite"; /** absolute path or ":memory:" */ file: string }
  | {
      kind: "postgres";
      /** URL without the `schema` parameter */ connectionString: string;
      schema: string | undefined;
    };

const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * `file:<path>` (relative to the working directory) or `file:///abs/path` -> SQLite;
 * `postgresql://` or `postgres://`, optionally with `?schema=<name>` -> PostgreSQL.
 */
export function parseDatabaseUrl(databaseUrl: string): DatabaseTarget {
  if (databaseUrl.startsWith("file:")) {
    const withoutQuery = databaseUrl.replace(/\?.*$/, "");
    const path = withoutQuery.startsWith("file://") ? fileURLToPath(withoutQuery) : withoutQuery.slice("file:".length);
    if (path === "") throw new Error(`no file path in database URL ${databaseUrl}`);
    return { kind: "sqlite", file: path === ":memory:" ? path : resolve(process.cwd(), path) };
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    const url = new URL(databaseUrl);
    const schema = url.searchParams.get("schema") ?? undefined;
    url.searchParams.delete("schema");
    return { kind: "postgres", connectionString: url.toString(), schema };
  }
  throw new Error(`unsupported database URL (expected file:, postgresql:// or postgres://): ${redact(databaseUrl)}`);
}

export function redact(databaseUrl: string): string {
  return databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The adapter factory for a target; creates the SQLite file's directory. */
export function createAdapterFactory(target: DatabaseTarget): PrismaBetterSqlite3 | PrismaPg {
  if (target.kind === "sqlite") {
    if (target.file !== ":memory:") mkdirSync(dirname(target.file), { recursive: true });
    return new PrismaBetterSqlite3({ url: target.file, timeout: SQLITE_BUSY_TIMEOUT_MS });
  }
  return new PrismaPg(
    { connectionString: target.connectionString, options: pgSessionOptions(target) },
    target.schema ? { schema: target.schema } : undefined,
  );
}

/**
 * The `options` of every PostgreSQL session the service opens (Prisma's pool, the catalog read pool,
 * the LISTEN connection).
 * adapter-pg writes DateTime parameters without an offset and reads timestamptz by overwriting the
 * offset with +00:00: both are right only in a UTC session.
 * Unqualified names in migrations and raw SQL resolve through search_path; public stays on it
 * because that is where the pg_trgm operator classes live.
 * random_page_cost 1.1 (default 4, priced for spinning disks): the catalog lives in memory or on
 * SSD. At 4 the planner answered a search for 8 characters of a seller address with a sequential
 * scan of every listing (57 ms at 20k listings) instead of the trigram indexes (7 ms).
 */
export function pgSessionOptions(target: { schema: string | undefined }): string {
  return target.schema
    ? `-c TimeZone=UTC -c random_page_cost=1.1 -c search_path=${quoteIdent(target.schema).replaceAll(" ", "\\ ")},public`
    : "-c TimeZone=UTC -c random_page_cost=1.1";
}
