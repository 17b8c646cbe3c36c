/**
 * `npm run db:migration -- <name>`: regenerate the PostgreSQL schema and both clients
 * from prisma/sqlite/schema.prisma, then diff the committed migrations of each provider
 * against its schema and write prisma/<provider>/migrations/<timestamp>_<name>/.
 *
 * PostgreSQL needs a server for its shadow schema: SHADOW_DATABASE_URL, else
 * TEST_POSTGRES_URL, else DATABASE_URL when it is a PostgreSQL URL. Without one the
 * PostgreSQL migration is skipped (and said so); SQLite needs nothing.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { redact } from "../src/storage/connection.js";
import { diffMigration, lockfileContent, migrationsDir, schemaPath } from "../src/storage/migrate.js";
import { POSTGRES_SEARCH_SQL, SQLITE_SEARCH_SQL } from "../src/storage/search-index.js";
import { SQLITE_STATE_CHECK_SQL } from "../src/storage/state-checks.js";
import { renderPrismaArtifacts, writeArtifacts } from "./prisma-artifacts.js";

const rawName = process.argv.slice(2).find((a) => !a.startsWith("-"));
if (!rawName) {
  console.error("usage: npm run db:migration -- <name>");
  process.exit(2);
}
const name = rawName
  .toLowerCase()
  .replace(/[^a-z0-9]+/g, "_")
  .replace(/^_|_$/g, "");
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const folder = `${stamp}_${name}`;

/** SQLite drops a table's triggers with it: a migration that (re)creates one installs them again. */
function withSqliteTriggers(sql: string): string {
  let out = sql;
  for (const table of ["Listing", "Payment"] as const) {
    if (!new RegExp(`CREATE TABLE "(new_)?${table}"`).test(sql)) continue;
    console.log(`sqlite: the migration (re)creates "${table}": appended its state-check triggers`);
    out = `${out.trimEnd()}\n\n${SQLITE_STATE_CHECK_SQL[table]}`;
  }
  return out;
}

function withSearchSql(kind: "sqlite" | "postgres", sql: string): string {
  if (kind === "sqlite") {
    // Creating or redefining Listing drops the FTS triggers: (re)install and rebuild.
    if (!/CREATE TABLE "(new_)?Listing"/.test(sql)) return withSqliteTriggers(sql);
    console.log(`sqlite: the migration (re)creates "Listing": appended the FTS5 search index setup`);
    return withSqliteTriggers(`${sql.trimEnd()}\n\n${SQLITE_SEARCH_SQL}`);
  }
  if (!sql.includes("gin_trgm_ops") || sql.includes("pg_trgm")) return sql;
  console.log("postgres: the migration creates trigram indexes: prepended CREATE EXTENSION pg_trgm");
  return `${POSTGRES_SEARCH_SQL}\n${sql}`;
}

async function writeMigration(kind: "sqlite" | "postgres", sql: string): Promise<void> {
  const dir = migrationsDir(kind);
  await mkdir(join(dir, folder), { recursive: true });
  const lock = join(dir, "migration_lock.toml");
  if (!(await readFile(lock, "utf8").catch(() => ""))) await writeFile(lock, lockfileContent(kind));
  const file = join(dir, folder, "migration.sql");
  await writeFile(file, withSearchSql(kind, sql));
  console.log(`${kind}: wrote ${file.slice(process.cwd().length + 1)}`);
}

function postgresUrl(): string | undefined {
  const { SHADOW_DATABASE_URL, TEST_POSTGRES_URL, DATABASE_URL } = process.env;
  if (SHADOW_DATABASE_URL) return SHADOW_DATABASE_URL;
  if (TEST_POSTGRES_URL) return TEST_POSTGRES_URL;
  if (DATABASE_URL && /^postgres(ql)?:\/\//.test(DATABASE_URL)) return DATABASE_URL;
  return undefined;
}

const changed = await writeArtifacts(await renderPrismaArtifacts());
console.log(changed.length ? `regenerated ${changed.length} Prisma artifacts` : "Prisma artifacts already up to date");

const sqliteSql = await diffMigration({ kind: "sqlite", schema: await readFile(schemaPath("sqlite"), "utf8") });
if (sqliteSql === null) console.log("sqlite: nothing to do, the migrations already match the schema");
else await writeMigration("sqlite", sqliteSql);

const pgUrl = postgresUrl();
if (!pgUrl) {
  console.warn("postgres: SKIPPED, no PostgreSQL to diff against (set SHADOW_DATABASE_URL or TEST_POSTGRES_URL)");
} else {
  try {
    const pgSql = await diffMigration({
      kind: "postgres",
      schema: await readFile(schemaPath("postgres"), "utf8"),
      shadowDatabaseUrl: pgUrl,
    });
    if (pgSql === null) console.log("postgres: nothing to do, the migrations already match the schema");
    else await writeMigration("postgres", pgSql);
  } catch (error) {
    console.warn(`postgres: SKIPPED, diff against ${redact(pgUrl)} failed: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
