import { randomUUID } from "node:crypto";
import Sqlite from "better-sqlite3";
import pg from "pg";
import { getAddress, keccak256, toHex } from "viem";
import { parseDatabaseUrl, pgSessionOptions, quoteIdent } from "../../src/storage/connection.js";
import { sqliteValue } from "../../src/storage/catalog-reader.js";
import { applyMigrations } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/database.js";
import { ListingStore } from "../../src/storage/listing/listing-store.js";
import { isTrigramIndex, LISTING_INDEXES_SQL } from "../../src/storage/search-index.js";

/** What sellers sell; each description draws a subject and a few details from these. */
const SUBJECTS = [
  "weather",
  "forecast",
  "translate",
  "summarise",
  "image",
  "audio",
  "quote",
  "stock",
  "search",
  "geocode",
  "ocr",
  "embed",
  "classify",
  "price",
  "news",
  "sentiment",
  "transcribe",
  "route",
  "invoice",
  "resize",
];
const DETAILS = [
  "fast",
  "accurate",
  "hourly",
  "global",
  "realtime",
  "cached",
  "batch",
  "streaming",
  "private",
  "verified",
  "multilingual",
  "historical",
  "low-latency",
  "open",
  "structured",
  "daily",
  "regional",
  "detailed",
  "compact",
  "premium",
];
const NOUNS = ["api", "service", "endpoint", "data", "model", "feed", "lookup", "report", "tool", "agent"];
/** Words that many descriptions contain: the bench's "common word" searches. */
export const COMMON_WORDS = ["service", "api", "weather", "data", "fast"];

const DAY_MS = 24 * 3600 * 1000;
/** Listings live 30 days; the seeded ones were listed over the last 25, so none expires during a run. */
const LISTING_LIFETIME_MS = 30 * DAY_MS;
const LISTED_OVER_MS = 25 * DAY_MS;

/** A random-looking, reproducible seller address, as real ones are. */
export function benchSeller(n: number): string {
  return getAddress(`0x${keccak256(toHex(`seller ${n}`)).slice(-40)}`);
}

/** A small deterministic generator, so every run seeds the same catalog. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

export interface SeededCatalog {
  size: number;
  /** Sellers 1..sellers each have at least one listing (benchSeller(n)). */
  sellers: number;
  /** listedAt of the oldest and the newest seeded listing. */
  oldest: Date;
  newest: Date;
}

/** A Listing row as the table stores it: the columns to write, the same ones in every row. */
export type ListingRow = Record<string, string | number | bigint | boolean | Date | null>;

/** Rows per PostgreSQL statement: 1,000 rows of ~20 columns stay well under its 65,535 parameters. */
const PG_ROWS_PER_INSERT = 1_000;

/**
 * Inserts listing rows straight through the driver, in one transaction, as the Prisma adapters
 * would write them. Prisma's createMany cost about 1.3 ms of Node CPU a row whatever the batch size;
 * the driver a few microseconds.
 * SQLite: one prepared INSERT, in the formats Prisma's SQLite adapter writes (sqliteValue: ISO text
 * with +00:00, booleans as 0/1). The search index's insert trigger is set aside and the index rebuilt once at the
 * end: row by row, each insert cost more as the index grew (Prisma's createMany took 130 s for 100k
 * rows, the driver with the trigger about as long).
 * PostgreSQL: multi-row INSERTs of PG_ROWS_PER_INSERT rows, in a session with the service's options
 * (UTC, the schema on the search path). The trigram (GIN) indexes are likewise dropped and created
 * again from their own definitions (fastupdate=off included) once the rows are in: kept up to date
 * row by row they took 16 s of the server's CPU for 20k rows, built at once under 1 s.
 */
export async function insertListingRows(databaseUrl: string, rows: Iterable<ListingRow>): Promise<void> {
  const target = parseDatabaseUrl(databaseUrl);
  const iterator = rows[Symbol.iterator]();
  const first = iterator.next();
  if (first.done) return;
  const columns = Object.keys(first.value);
  const columnList = columns.map((column) => `"${column}"`).join(", ");
  const rest = { [Symbol.iterator]: () => iterator };
  if (target.kind === "sqlite") {
    const sqlite = new Sqlite(target.file);
    try {
      const insert = sqlite.prepare(
        `INSERT INTO "Listing" (${columnList}) VALUES (${columns.map(() => "?").join(", ")})`,
      );
      const write = (row: ListingRow) => insert.run(...columns.map((column) => sqliteValue(row[column])));
      const trigger = sqlite
        .prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'Listing_search_insert'`)
        .pluck()
        .get() as string;
      sqlite.transaction(() => {
        sqlite.exec(`DROP TRIGGER "Listing_search_insert"`);
        write(first.value);
        for (const row of rest) write(row);
        sqlite.exec(`INSERT INTO "ListingSearch" ("ListingSearch") VALUES ('rebuild'); ${trigger};`);
      })();
    } finally {
      sqlite.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: target.connectionString, options: pgSessionOptions(target) });
  await client.connect();
  try {
    const value = (v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === "bigint" ? v.toString() : v);
    const flush = async (batch: ListingRow[]) => {
      const tuples = batch.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`);
      await client.query(
        `INSERT INTO "Listing" (${columnList}) VALUES ${tuples.join(", ")}`,
        batch.flatMap((row) => columns.map((column) => value(row[column]))),
      );
    };
    await client.query("BEGIN");
    const trigramIndexes = (await client.query<{ name: string; definition: string }>(LISTING_INDEXES_SQL)).rows.filter(
      isTrigramIndex,
    );
    for (const index of trigramIndexes) await client.query(`DROP INDEX ${quoteIdent(index.name)}`);
    let batch: ListingRow[] = [first.value];
    for (const row of rest) {
      if (batch.length === PG_ROWS_PER_INSERT) {
        await flush(batch);
        batch = [];
      }
      batch.push(row);
    }
    await flush(batch);
    for (const index of trigramIndexes) await client.query(index.definition);
    await client.query("COMMIT");
  } finally {
    await client.end();
  }
}

/**
 * Fills a fresh database with `count` active foreign listings: a seller each (one in five sells two
 * or three), descriptions from a vocabulary, listedAt spread over 25 days at random gaps, expiry 30
 * days after listing. Bulk inserts through the driver (insertListingRows), then one store write so
 * the catalog version moves as after a real listing.
 */
export async function seedListings(databaseUrl: string, count: number): Promise<SeededCatalog> {
  await applyMigrations(databaseUrl);
  const next = random(count);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const newest = Date.now() - 60_000;
  const oldest = newest - LISTED_OVER_MS;
  // Random gaps that add up to the whole span, newest listing last.
  const gaps = Array.from({ length: count }, () => next());
  const scale = LISTED_OVER_MS / gaps.reduce((sum, gap) => sum + gap, 0);
  let listedAt = oldest;
  let seller = 0;
  const listing = (n: number): ListingRow => {
    if (n > 0) listedAt += gaps[n]! * scale;
    if (next() >= 0.2 || n === 0) seller++;
    const subject = pick(SUBJECTS);
    const details = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(DETAILS)).join(" ");
    const cents = 1 + Math.floor(next() * 50);
    return {
      id: randomUUID(),
      resource: `https://${subject}-${n}.seller${seller}.example.com/v1/${subject}`,
      method: next() < 0.4 ? "GET" : "POST",
      priceUsdc: `0.${String(cents).padStart(2, "0")}`,
      priceAtomic: String(cents * 10_000),
      priceMicros: cents * 10_000,
      // As the re-prober and the usage indexer leave a catalog: mostly healthy, some verified, few sales.
      healthStatus: next() < 0.85 ? "healthy" : next() < 0.7 ? "unhealthy" : "drifted",
      ownerVerified: next() < 0.4,
      calls30d: next() < 0.7 ? 0 : Math.floor(next() * 500),
      description: `${details[0]!.toUpperCase()}${details.slice(1)} ${subject} ${pick(NOUNS)}: ${pick(NOUNS)} answers in JSON, priced per call`,
      sellerPayTo: benchSeller(seller),
      network: "eip155:8453",
      state: "active",
      leftoverSeed: false,
      listedAt: new Date(Math.round(listedAt)),
      expiresAt: new Date(Math.round(listedAt) + LISTING_LIFETIME_MS),
      updatedAt: new Date(Math.round(listedAt)),
    };
  };
  function* listings() {
    for (let n = 0; n < count; n++) yield listing(n);
  }
  await insertListingRows(databaseUrl, listings());
  const db = await openDatabase(databaseUrl);
  try {
    await new ListingStore(db).createListing(
      {
        resource: "https://last.example.com/x",
        method: "POST",
        priceUsdc: "0.01",
        description: "The last listing of the bench data",
        sellerPayTo: benchSeller(seller + 1),
        network: "eip155:8453",
      },
      new Date(),
    );
    return { size: count + 1, sellers: seller, oldest: new Date(oldest), newest: new Date(Math.round(listedAt)) };
  } finally {
    await db.close();
  }
}
