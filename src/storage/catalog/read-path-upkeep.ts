import type { Database } from "../database.js";

/** The search index's merge, in steps of this many pages written (about 10 ms each at 10k listings), at most this many steps a run. */
const MERGE_PAGES_PER_STEP = 32;
const MERGE_STEPS = 2_000;

/**
 * Keeps the read paths fast: SQLite merges the search index's segments (a query reads each
 * segment's postings: 1.4 ms against 0.5 ms for a 12-character search at 10k listings after a day
 * of inserts) and refreshes the planner's statistics; PostgreSQL vacuums and refreshes its
 * statistics, which its planner picks the catalog's plans from. SQLite's merge runs in small steps with the event loop
 * free between them: better-sqlite3 is synchronous, and one 'optimize' of the whole index held every
 * request for about 0.4 s at 10k listings. `alone` runs a step where no transaction interleaves.
 */
export async function tidyReadPaths(
  db: Database,
  alone: <T>(fn: () => Promise<T>) => Promise<T>,
  signal?: AbortSignal,
): Promise<void> {
  const { prisma } = db;
  if (db.kind === "postgres") {
    // VACUUM, not only ANALYZE: it also empties the GIN indexes' pending lists (a manual ANALYZE
    // does not), which every trigram search otherwise reads through; after a bulk load of 100k
    // listings a search for 8 characters of an address took 25 ms, 0.6 ms after. It also keeps
    // the visibility map current for the index-only counts.
    await prisma.$executeRawUnsafe(`VACUUM (ANALYZE) "Listing"`);
    return;
  }
  // A merge step joins the segments of a level once it has `usermerge` of them (default 4): at 2 the
  // steps end with one segment, as a full 'optimize' would. The setting is kept in the index.
  await alone(() =>
    prisma.$executeRawUnsafe(`INSERT INTO "ListingSearch" ("ListingSearch", "rank") VALUES ('usermerge', 2)`),
  );
  const totalChanges = async () =>
    Number((await prisma.$queryRawUnsafe<{ n: unknown }[]>("SELECT total_changes() AS n"))[0]?.n ?? 0);
  for (let step = 0; step < MERGE_STEPS && !signal?.aborted; step++) {
    const more = await alone(async () => {
      const before = await totalChanges();
      await prisma.$executeRawUnsafe(
        `INSERT INTO "ListingSearch" ("ListingSearch", "rank") VALUES ('merge', ${MERGE_PAGES_PER_STEP})`,
      );
      // FTS5: fewer than two changes means there was nothing left to merge.
      return (await totalChanges()) - before >= 2;
    });
    if (!more) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await alone(() => prisma.$queryRawUnsafe("PRAGMA optimize"));
}
