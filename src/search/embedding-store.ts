// The search engine's reads and writes (src/search/): every live listing's searchable fields with its
// stored sentence embedding (ListingEmbedding), the rows changed since a moment, the catalog version,
// and embeddings saved by the backfill. Reads page by keyset (the load by id, the changes by
// updatedAt and id), so loading 100k listings never holds one huge result, and a look for changes
// at rest reads an empty range of Listing_updatedAt_idx, not every row.
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import type { Database } from "../storage/database.js";
import { toDate } from "../storage/catalog-reader.js";

export interface StoredSearchRow {
  id: string;
  serviceName: string | null;
  description: string;
  resource: string;
  tags: string[];
  sellerPayTo: string;
  priceMicros: number;
  ownerVerified: boolean;
  healthStatus: string;
  calls30d: number;
  listedAt: Date;
  expiresAt: Date;
  updatedAt: Date;
  /** Whether it is shown at all: active and not expired. */
  live: boolean;
  leftoverSeed: boolean;
  network: string;
  extensionKeys: string;
  /** `indexed` for a row read from another catalog, else `listed`. */
  source: "listed" | "indexed";
  /** What the seller declared beside its description: its input schema and Bazaar extension (JSON, or JSON text on SQLite). */
  inputSchema: unknown;
  bazaar: unknown;
  embedding: { model: string; textHash: string; vector: Uint8Array } | null;
}

export interface EmbeddingRow {
  listingId: string;
  model: string;
  textHash: string;
  vector: Uint8Array;
}

const PAGE = 2000;
/** What the engine holds: active and indexed listings not expired at `now`. */
const liveAt = (now: Date) => Prisma.sql`l."state" IN ('active', 'indexed') AND l."expiresAt" > ${now}`;

const COLUMNS = Prisma.sql`l."id", l."serviceName", l."description", l."resource", l."tags", l."sellerPayTo", l."priceMicros", l."ownerVerified",
  l."healthStatus", l."calls30d", l."listedAt", l."expiresAt", l."updatedAt", l."state", l."leftoverSeed", l."network", l."extensionKeys", l."inputSchema", l."bazaar",
  e."model" AS "embeddingModel", e."textHash" AS "embeddingHash", e."vector" AS "embeddingVector"`;

function parseTags(value: unknown): string[] {
  if (typeof value !== "string" || value === "") return [];
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === "string") : [];
  } catch {
    return [];
  }
}

function toRow(row: Record<string, unknown>, now: Date): StoredSearchRow {
  const expiresAt = toDate(row.expiresAt);
  const vector = row.embeddingVector;
  return {
    id: String(row.id),
    serviceName: (row.serviceName as string | null) ?? null,
    description: String(row.description),
    resource: String(row.resource),
    tags: parseTags(row.tags),
    sellerPayTo: String(row.sellerPayTo),
    priceMicros: Number(row.priceMicros),
    ownerVerified: row.ownerVerified === true || row.ownerVerified === 1 || row.ownerVerified === 1n,
    healthStatus: String(row.healthStatus),
    calls30d: Number(row.calls30d),
    listedAt: toDate(row.listedAt),
    expiresAt,
    updatedAt: toDate(row.updatedAt),
    // Indexed rows our probe confirmed are searched too: the catalog view then keeps only the source asked for.
    live: (row.state === "active" || row.state === "indexed") && expiresAt > now,
    leftoverSeed: row.leftoverSeed === true || row.leftoverSeed === 1 || row.leftoverSeed === 1n,
    network: String(row.network),
    extensionKeys: String(row.extensionKeys ?? ""),
    source: row.state === "indexed" ? "indexed" : "listed",
    inputSchema: row.inputSchema ?? null,
    bazaar: row.bazaar ?? null,
    embedding:
      vector instanceof Uint8Array && row.embeddingModel
        ? { model: String(row.embeddingModel), textHash: String(row.embeddingHash), vector }
        : null,
  };
}

/** Where a page of changedSince starts: after `since`, or after the last row of the page before. */
export type ChangedFrom = { since: Date } | { after: { updatedAt: Date; id: string } };

/**
 * A page of the rows changed after a moment, oldest change first, walking Listing_updatedAt_idx
 * (updatedAt, id) from that moment: at rest the range is empty and nothing else is read. (Ordered by
 * id instead, every row was read and sorted: 73 ms of CPU a second idle at 100k listings, issue 45.)
 */
export function changedSinceSql(from: ChangedFrom): Prisma.Sql {
  const where =
    "since" in from
      ? Prisma.sql`l."updatedAt" > ${from.since}`
      : Prisma.sql`(l."updatedAt", l."id") > (${from.after.updatedAt}, ${from.after.id})`;
  return Prisma.sql`SELECT ${COLUMNS} FROM "Listing" l LEFT JOIN "ListingEmbedding" e ON e."listingId" = l."id"
    WHERE ${where} ORDER BY l."updatedAt", l."id" LIMIT ${PAGE}`;
}

export class EmbeddingStore {
  constructor(private readonly db: Database) {}

  // The catalog reader (the driver, outside Prisma): at 100k listings the engine's load read 50
  // pages of 2,000 rows with their vectors through Prisma's query interpreter, the peak of the
  // service's memory while loading.
  private async rows(sql: Prisma.Sql, now: Date): Promise<StoredSearchRow[]> {
    return (await this.db.reader.rows(sql)).map((row) => toRow(row, now));
  }

  private query(where: Prisma.Sql, after: string | undefined, now: Date): Promise<StoredSearchRow[]> {
    const keyset = after === undefined ? Prisma.empty : Prisma.sql` AND l."id" > ${after}`;
    return this.rows(
      Prisma.sql`SELECT ${COLUMNS} FROM "Listing" l LEFT JOIN "ListingEmbedding" e ON e."listingId" = l."id"
          WHERE ${where}${keyset} ORDER BY l."id" LIMIT ${PAGE}`,
      now,
    );
  }

  /** The catalog version (CatalogState, bumped by every catalog write's transaction; 0 before the first). */
  async catalogVersion(): Promise<number> {
    const [row] = await this.db.reader.rows(Prisma.sql`SELECT "version" FROM "CatalogState" WHERE "id" = 1`);
    return Number(row?.version ?? 0);
  }

  /** Every live listing, page by page (each page handed to `take` before the next is read). */
  async eachLive(now: Date, take: (rows: StoredSearchRow[]) => void | Promise<void>): Promise<number> {
    let after: string | undefined;
    let count = 0;
    for (;;) {
      const rows = await this.query(liveAt(now), after, now);
      if (rows.length === 0) return count;
      await take(rows);
      count += rows.length;
      after = rows.at(-1)!.id;
    }
  }

  /** How many listings eachLive would hand over (the engine makes room for them once, not by growing). */
  async countLive(now: Date): Promise<number> {
    const [row] = await this.db.reader.rows(Prisma.sql`SELECT COUNT(*) AS "n" FROM "Listing" l WHERE ${liveAt(now)}`);
    return Number(row?.n ?? 0);
  }

  /** Listings changed (updatedAt) after `since`, in any state: a listing that went is seen going. */
  async changedSince(since: Date, now: Date): Promise<StoredSearchRow[]> {
    const out: StoredSearchRow[] = [];
    let from: ChangedFrom = { since };
    for (;;) {
      const rows = await this.rows(changedSinceSql(from), now);
      out.push(...rows);
      if (rows.length < PAGE) return out;
      const last = rows.at(-1)!;
      from = { after: { updatedAt: last.updatedAt, id: last.id } };
    }
  }

  /** Stores embeddings (replacing a listing's previous one); a listing deleted meanwhile is skipped. */
  async save(rows: EmbeddingRow[], now: Date = new Date()): Promise<void> {
    if (rows.length === 0) return;
    await this.db.exclusive(async () => {
      for (const row of rows) {
        await this.db.prisma
          .$executeRaw`INSERT INTO "ListingEmbedding" ("listingId", "model", "textHash", "vector", "embeddedAt")
          SELECT l."id", ${row.model}, ${row.textHash}, ${Buffer.from(row.vector)}, ${now} FROM "Listing" l WHERE l."id" = ${this.idParam(row.listingId)}
          ON CONFLICT ("listingId") DO UPDATE SET "model" = excluded."model", "textHash" = excluded."textHash", "vector" = excluded."vector", "embeddedAt" = excluded."embeddedAt"`;
      }
    });
  }

  private idParam(id: string): Prisma.Sql {
    return this.db.kind === "postgres" ? Prisma.sql`${id}::uuid` : Prisma.sql`${id}`;
  }

  async count(): Promise<number> {
    return this.db.exclusive(() => this.db.prisma.listingEmbedding.count());
  }
}
