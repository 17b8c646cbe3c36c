// The first-party demo rows' idempotent load (ListingStore.upsertSeedListings runs it in one catalog
// write): each row is found by its stable id (else by resource and method) and compared column by
// column with what is stored, so a row that already matches is left alone.
import { isDeepStrictEqual } from "node:util";
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import type { Tx } from "../catalog/catalog-transactions.js";
import type { SeedListingInput } from "../listing-types.js";
import { listingFields, listingState } from "./listing-fields.js";

/** Creates, updates or leaves each seed row in `tx`; what it did, counted. */
export async function upsertSeedRows(
  tx: Tx,
  rows: SeedListingInput[],
): Promise<{ created: number; updated: number; unchanged: number }> {
  const counts = { created: 0, updated: 0, unchanged: 0 };
  for (const row of rows) {
    const data = {
      ...listingFields(row),
      ...listingState("active"),
      leftoverSeed: true,
      listedAt: row.listedAt,
      expiresAt: row.expiresAt,
    };
    const existing = await tx.listing.findFirst({
      where: row.id
        ? { id: row.id, leftoverSeed: true }
        : { resource: row.resource, method: row.method, leftoverSeed: true },
      orderBy: { id: "asc" },
    });
    if (!existing) {
      await tx.listing.create({ data: row.id ? { id: row.id, ...data } : data });
      counts.created++;
    } else if (
      (Object.keys(data) as (keyof typeof data)[]).every((k) => {
        const want = data[k] === Prisma.DbNull ? null : data[k];
        return isDeepStrictEqual(
          existing[k] instanceof Date ? existing[k].getTime() : existing[k],
          want instanceof Date ? want.getTime() : want,
        );
      })
    ) {
      counts.unchanged++;
    } else {
      await tx.listing.update({ where: { id: existing.id }, data });
      counts.updated++;
    }
  }
  return counts;
}
