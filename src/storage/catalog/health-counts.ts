// Live third-party listings by published health status (the status document's byHealth). A read of
// the catalog's own columns, so it sits with the catalog's storage; listing health itself (rules,
// store, re-prober) lives in src/health/.
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions } from "./catalog-transactions.js";

export type HealthCounts = Record<"healthy" | "unhealthy" | "drifted" | "unknown", number>;

/** Counted once per catalog state (`token`, the catalog's freshness), in the catalog's one state memo. */
export function healthCounts(transactions: CatalogTransactions, now: Date, token?: string): Promise<HealthCounts> {
  return transactions.memo.get(token, "health-counts", () => countByHealth(transactions, now));
}

async function countByHealth(transactions: CatalogTransactions, now: Date): Promise<HealthCounts> {
  const rows = await transactions.db.reader.rows(Prisma.sql`SELECT "healthStatus", COUNT(*) AS "count" FROM "Listing"
      WHERE "state" = 'active' AND "leftoverSeed" = ${false} AND "expiresAt" > ${now} GROUP BY "healthStatus"`);
  const counts: HealthCounts = { healthy: 0, unhealthy: 0, drifted: 0, unknown: 0 };
  for (const row of rows)
    if (String(row.healthStatus) in counts) counts[row.healthStatus as keyof HealthCounts] = Number(row.count ?? 0);
  return counts;
}
