import { execFile } from "node:child_process";
import { readFile, readdir } from "node:fs/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import { openDatabase, type Database } from "../../src/storage/database.js";
import { applyMigrations, diffMigration, migrationsDir, schemaPath } from "../../src/storage/migrate.js";
import { isTrigramIndex, LISTING_INDEXES_SQL } from "../../src/storage/search-index.js";
import { testDatabaseKinds, type TestDatabase } from "./databases.js";

/**
 * In a process of its own, as `npm start` does: migrate, then live on until every timer the engine
 * armed has fired (a 10 s advisory-lock timeout on PostgreSQL, a constant of the engine's that it
 * never clears), migrate again and print; then exit on its own once the second run's timer has fired.
 * Freeing the engine's wasm before that timer fired killed the first version 10 s after start.
 * Waiting on the timers themselves rather than a fixed 12 s holds whatever their length, and ends as
 * soon as they have run. The engine arms them through its wasm glue (schema_engine_bg.js): the
 * count of those seen is printed, so that a glue that arms them some other way fails the test
 * instead of silently waiting for nothing.
 */
const LIVE_ON_SCRIPT = `
const engineTimers = [];
const arm = globalThis.setTimeout;
globalThis.setTimeout = function (callback, ms, ...args) {
  if (!/schema_engine_bg\\.js/.test(new Error().stack ?? "")) return arm(callback, ms, ...args);
  let ran;
  engineTimers.push(new Promise((resolve) => (ran = resolve)));
  return arm((...values) => { try { callback(...values); } finally { ran(); } }, ms, ...args);
};
const { applyMigrations } = await import(process.env.MIGRATE_MODULE);
await applyMigrations(process.env.DATABASE_URL);
const outlived = engineTimers.length;
await Promise.all([...engineTimers, new Promise((resolve) => arm(resolve, 500))]);
const again = await applyMigrations(process.env.DATABASE_URL);
console.log(JSON.stringify({ again: again.applied.length, outlived }));
`;

const committed = async (kind: "sqlite" | "postgres") =>
  (await readdir(migrationsDir(kind))).filter((name) => /^\d{14}_/.test(name)).sort();

describe.each(testDatabaseKinds())("migrations on $kind", ({ kind, create }) => {
  let test: TestDatabase;
  let db: Database | undefined;

  beforeAll(async () => {
    test = await create();
  });
  afterAll(async () => {
    await db?.close();
    await test.drop();
  });

  it("applies every committed migration to a fresh database, and a second apply is a no-op", async () => {
    const names = await committed(kind);
    expect(names.length).toBeGreaterThan(0);
    expect(await applyMigrations(test.url)).toEqual({ applied: names });
    expect(await applyMigrations(test.url)).toEqual({ applied: [] });

    db = await openDatabase(test.url);
    const history = await db.prisma.$queryRawUnsafe<{ migration_name: string; finished: unknown }[]>(
      `SELECT "migration_name", "finished_at" AS "finished" FROM "_prisma_migrations" ORDER BY "migration_name"`,
    );
    expect(history.map((h) => h.migration_name)).toEqual(names);
    expect(history.every((h) => h.finished !== null)).toBe(true);
    expect(await db.prisma.listing.count()).toBe(0);
  });

  it("applies a fresh database's migrations from two processes at once: one applies, the other finds nothing left", async () => {
    const fresh = await create();
    try {
      const both = await Promise.all([applyMigrations(fresh.url), applyMigrations(fresh.url)]);
      expect(both.map((run) => run.applied.length).sort((a, b) => a - b)).toEqual([0, (await committed(kind)).length]);
    } finally {
      await fresh.drop();
    }
  });

  it("creates the search index", async () => {
    const sql =
      kind === "sqlite"
        ? `SELECT name FROM sqlite_master WHERE name IN ('ListingSearch', 'Listing_search_insert', 'Listing_search_update', 'Listing_search_delete') ORDER BY name`
        : LISTING_INDEXES_SQL;
    const rows = await db!.prisma.$queryRawUnsafe<{ name: string; definition?: string }[]>(sql);
    const names = (
      kind === "sqlite" ? rows : rows.filter((row) => isTrigramIndex({ definition: row.definition! }))
    ).map((r) => r.name);
    expect(names).toEqual(
      kind === "sqlite"
        ? ["ListingSearch", "Listing_search_delete", "Listing_search_insert", "Listing_search_update"]
        : [
            "Listing_description_trgm_idx",
            "Listing_resource_trgm_idx",
            "Listing_sellerPayTo_trgm_idx",
            "Listing_serviceName_trgm_idx",
            "Listing_tags_trgm_idx",
          ],
    );
  });

  if (kind === "sqlite") {
    it("opens SQLite in WAL mode with a busy timeout", async () => {
      const [mode] = await db!.prisma.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode");
      const [busy] = await db!.prisma.$queryRawUnsafe<{ timeout: unknown }[]>("PRAGMA busy_timeout");
      expect(mode?.journal_mode).toBe("wal");
      expect(Number(busy?.timeout)).toBeGreaterThan(0);
    });

    it("gives each of its connections the page cache it is configured with, not better-sqlite3's 16 MiB", async () => {
      const sized = await openDatabase(test.url, { sqliteCacheMb: 3 });
      try {
        const [writer] = await sized.prisma.$queryRawUnsafe<{ cache_size: unknown }[]>("PRAGMA cache_size");
        const [reader] = await sized.reader.rows(Prisma.sql`PRAGMA cache_size`);
        expect([Number(writer?.cache_size), Number(reader?.cache_size)]).toEqual([-3 * 1024, -3 * 1024]);
      } finally {
        await sized.close();
      }
    });
  }

  it(
    "lives on after migrating, past the engine's own timers, and migrates again as a no-op",
    { timeout: 60_000 },
    async () => {
      const fresh = await create();
      try {
        const { stdout } = await promisify(execFile)(
          process.execPath,
          ["--import", "tsx", "--input-type=module", "-e", LIVE_ON_SCRIPT],
          {
            env: {
              ...process.env,
              DATABASE_URL: fresh.url,
              MIGRATE_MODULE: new URL("../../src/storage/migrate.ts", import.meta.url).href,
            },
            timeout: 45_000,
          },
        );
        const { again, outlived } = JSON.parse(stdout) as { again: number; outlived: number };
        expect(again).toBe(0);
        // PostgreSQL's advisory-lock timeout is the timer this is about; SQLite's engine takes no lock.
        if (kind === "postgres") expect(outlived).toBeGreaterThan(0);
      } finally {
        await fresh.drop();
      }
    },
  );

  it("diffs the committed migrations against the schema: nothing to do, and a new column when the schema grows", async () => {
    const shadowDatabaseUrl = process.env.TEST_POSTGRES_URL;
    const schema = await readFile(schemaPath(kind), "utf8");
    expect(await diffMigration({ kind, schema, shadowDatabaseUrl })).toBeNull();
    const grown = schema.replace(/(model Listing \{\n)/, "$1  note String?\n");
    const sql = await diffMigration({ kind, schema: grown, shadowDatabaseUrl });
    expect(sql).toMatch(
      kind === "sqlite"
        ? /ALTER TABLE "Listing" ADD COLUMN "note" TEXT/
        : /ALTER TABLE "Listing" ADD COLUMN\s+"note" TEXT/,
    );
  });
});
