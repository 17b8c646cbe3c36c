// Real databases for the storage suites: a temp SQLite file always, and a fresh
// schema on PostgreSQL when TEST_POSTGRES_URL is set (dropped afterwards).
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAdapterFactory, parseDatabaseUrl } from "../../src/storage/connection.js";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface TestDatabaseKind {
  kind: "sqlite" | "postgres";
  create(): Promise<TestDatabase>;
}

async function createSqlite(): Promise<TestDatabase> {
  const dir = await mkdtemp(join(tmpdir(), "storage-test-"));
  return { url: `file:${join(dir, "test.db")}`, drop: () => rm(dir, { recursive: true, force: true }) };
}

async function pgAdmin<T>(baseUrl: string, fn: (run: (sql: string) => Promise<void>) => Promise<T>): Promise<T> {
  const target = parseDatabaseUrl(baseUrl);
  if (target.kind !== "postgres") throw new Error("TEST_POSTGRES_URL must be a PostgreSQL URL");
  const admin = await createAdapterFactory({ ...target, schema: undefined }).connect();
  try {
    return await fn((sql) => admin.executeScript(sql));
  } finally {
    await admin.dispose();
  }
}

async function createPostgres(baseUrl: string): Promise<TestDatabase> {
  const schema = `test_${randomBytes(6).toString("hex")}`;
  const url = new URL(baseUrl);
  url.searchParams.set("schema", schema);
  return {
    url: url.toString(),
    drop: () => pgAdmin(baseUrl, (run) => run(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
  };
}

export function testDatabaseKinds(): TestDatabaseKind[] {
  const kinds: TestDatabaseKind[] = [{ kind: "sqlite", create: createSqlite }];
  const pgUrl = process.env.TEST_POSTGRES_URL;
  if (pgUrl) kinds.push({ kind: "postgres", create: () => createPostgres(pgUrl) });
  return kinds;
}

/** Rows of an EXPLAIN, as one string. */
export function planText(rows: Record<string, unknown>[]): string {
  return rows.map((r) => Object.values(r).join(" ")).join("\n");
}
