import { getAddress, keccak256, toHex } from "viem";
import { applyMigrations } from "../../src/storage/migrate.js";
import { openDatabase } from "../../src/storage/database.js";
import { ListingStore } from "../../src/storage/listing-store.js";

const WORDS = ["weather", "forecast", "translate", "summarise", "image", "audio", "quote", "stock", "search", "geocode", "ocr", "embed", "classify", "price", "news"];

/** A random-looking, reproducible seller address, as real ones are. */
export function benchSeller(n: number): string {
  return getAddress(`0x${keccak256(toHex(`seller ${n}`)).slice(-40)}`);
}

/** Fills a fresh database with `count` active foreign listings (bulk insert, then one store write to bump the version). */
export async function seedListings(databaseUrl: string, count: number): Promise<void> {
  await applyMigrations(databaseUrl);
  const db = await openDatabase(databaseUrl);
  try {
    const now = Date.now();
    const batch = 1_000;
    for (let start = 0; start < count; start += batch) {
      const data = Array.from({ length: Math.min(batch, count - start) }, (_, i) => {
        const n = start + i;
        const listedAt = new Date(now - (count - n) * 1_000);
        return {
          resource: `https://seller${n}.example.com/api/${WORDS[n % WORDS.length]}`,
          method: n % 3 === 0 ? "GET" : "POST",
          priceUsdc: "0.03",
          priceAtomic: "30000",
          description: `${WORDS[n % WORDS.length]} service ${n}: answers in JSON, priced per call`,
          sellerPayTo: benchSeller(n),
          network: "eip155:8453",
          state: "active",
          leftoverSeed: false,
          listedAt,
          expiresAt: new Date(listedAt.getTime() + 30 * 24 * 3600 * 1000),
        };
      });
      await db.prisma.listing.createMany({ data });
    }
    await new ListingStore(db).createListing(
      { resource: "https://last.example.com/x", method: "POST", priceUsdc: "0.01", description: "The last listing of the bench data", sellerPayTo: benchSeller(count), network: "eip155:8453" },
      new Date(),
    );
  } finally {
    await db.close();
  }
}
