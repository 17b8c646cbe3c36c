// The search bench's catalog (catalog.ts: the graded listings plus padding to a size) written
// straight into a fresh SQLite file, every listing with a stored embedding, so a service started on
// it loads a ready engine. The query encoder's vectors stand in for the model's: embedding 100k texts
// with the model takes about 87 minutes of CPU, and a vector's values do not change what a search costs.
import Sqlite from "better-sqlite3";
import { applyMigrations } from "../../../src/storage/migrate.js";
import { benchCatalog, paddingListings, type BenchListing } from "./catalog.js";
import { fillEmbeddings } from "./service-bench.js";

/** Writes the catalog and one embedding per listing into a fresh SQLite file. */
export async function writeCatalog(file: string, size: number): Promise<void> {
  await applyMigrations(`file:${file}`);
  const listings: BenchListing[] = benchCatalog();
  for (const pad of paddingListings(Math.max(0, size - listings.length))) listings.push(pad);
  const sqlite = new Sqlite(file);
  try {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");
    const insertListing =
      sqlite.prepare(`INSERT INTO "Listing" ("id", "resource", "method", "priceUsdc", "priceAtomic", "priceMicros",
      "healthStatus", "ownerVerified", "calls30d", "description", "serviceName", "tags", "sellerPayTo", "network", "state", "leftoverSeed",
      "listedAt", "expiresAt", "updatedAt") VALUES (?, ?, 'GET', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'eip155:8453', 'active', 0, ?, ?, ?)`);
    const trigger = sqlite
      .prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'Listing_search_insert'`)
      .pluck()
      .get() as string;
    sqlite.transaction(() => {
      sqlite.exec(`DROP TRIGGER "Listing_search_insert"`);
      listings.forEach((listing, n) => {
        const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
        // Listed over the last 20 days, so none expires during the run.
        const listedAt = now - 20 * 86_400_000 + Math.floor((n / listings.length) * 19 * 86_400_000);
        insertListing.run(
          id,
          listing.resource,
          (listing.priceMicros / 1e6).toFixed(6),
          String(listing.priceMicros),
          listing.priceMicros,
          listing.health,
          Number(listing.verified),
          listing.calls30d,
          listing.description,
          listing.serviceName,
          JSON.stringify(listing.tags),
          listing.payTo,
          iso(listedAt),
          iso(listedAt + 30 * 86_400_000),
          iso(listedAt),
        );
      });
      sqlite.exec(`INSERT INTO "ListingSearch" ("ListingSearch") VALUES ('rebuild'); ${trigger};`);
    })();
  } finally {
    sqlite.close();
  }
  fillEmbeddings(file);
}
