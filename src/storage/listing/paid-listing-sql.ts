// The paid flow's reads and writes as raw statements, one text for both databases: they run on
// the SQLite driver (CatalogTransactions.writeRaw, the catalog reader) or through Prisma's raw
// queries on PostgreSQL, whose parameters are typed by the column they meet. Rows come back as the
// driver gives them and are decoded by listing-row.ts (a Listing) and toPayment here.
import { randomUUID } from "node:crypto";
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import { toDate, toDateOrNull, type SqlRow } from "../catalog-reader.js";
import { JSON_COLUMNS, RENEWED_COLUMNS, toListing } from "../catalog/listing-row.js";
import type { Listing, Payment, PaymentKey } from "../listing-types.js";

type Query = (sql: Prisma.Sql) => Promise<SqlRow[]>;

const quoted = (column: string) => Prisma.raw(`"${column}"`);

/** A raw Payment row as Prisma returns it. */
export function toPayment(row: SqlRow): Payment {
  return {
    id: String(row.id),
    network: String(row.network),
    asset: String(row.asset),
    payer: String(row.payer),
    nonce: String(row.nonce),
    amount: String(row.amount),
    payTo: String(row.payTo),
    state: String(row.state),
    txHash: (row.txHash as string | null) ?? null,
    failureReason: (row.failureReason as string | null) ?? null,
    chainCheckedAt: toDateOrNull(row.chainCheckedAt),
    createdAt: toDate(row.createdAt),
    settledAt: toDateOrNull(row.settledAt),
    listingId: (row.listingId as string | null) ?? null,
  };
}

/** A value as a raw statement writes it: JSON columns as text (Prisma.DbNull and null as NULL). */
function columnValue(column: string, value: unknown): unknown {
  if (value === Prisma.DbNull || value === undefined) return null;
  return JSON_COLUMNS.has(column as keyof Listing) && value !== null ? JSON.stringify(value) : value;
}

/**
 * Inserts a listing row (a fresh id; updatedAt the wall-clock time, as Prisma's @updatedAt sets it)
 * and returns it. Columns not given take their defaults.
 */
export async function insertListing(query: Query, columns: Record<string, unknown>): Promise<Listing> {
  const entries = Object.entries({ id: randomUUID(), ...columns, updatedAt: new Date() });
  const names = Prisma.join(entries.map(([column]) => quoted(column)));
  const values = Prisma.join(entries.map(([column, value]) => Prisma.sql`${columnValue(column, value)}`));
  const [row] = await query(Prisma.sql`INSERT INTO "Listing" (${names}) VALUES (${values}) RETURNING *`);
  return toListing(row!);
}

/** Inserts a pending payment; null when its (network, asset, payer, nonce) is recorded already. */
export async function insertPaymentUnlessRecorded(
  query: Query,
  payment: PaymentKey & { amount: string; payTo: string; state: string; createdAt: Date; listingId: string },
): Promise<Payment | null> {
  const { network, asset, payer, nonce, amount, payTo, state, createdAt, listingId } = payment;
  const rows =
    await query(Prisma.sql`INSERT INTO "Payment" ("id", "network", "asset", "payer", "nonce", "amount", "payTo", "state", "createdAt", "listingId")
    VALUES (${randomUUID()}, ${network}, ${asset}, ${payer}, ${nonce}, ${amount}, ${payTo}, ${state}, ${createdAt}, ${listingId})
    ON CONFLICT ("network", "asset", "payer", "nonce") DO NOTHING RETURNING *`);
  return rows[0] ? toPayment(rows[0]) : null;
}

/** The payment recorded under a key, and the listing it paid for. */
export async function paymentByKey(
  query: Query,
  key: PaymentKey,
): Promise<{ payment: Payment; listing: Listing | null } | null> {
  const [row] = await query(Prisma.sql`SELECT * FROM "Payment"
    WHERE "network" = ${key.network} AND "asset" = ${key.asset} AND "payer" = ${key.payer} AND "nonce" = ${key.nonce}`);
  if (!row) return null;
  const payment = toPayment(row);
  if (!payment.listingId) return { payment, listing: null };
  const [listing] = await query(Prisma.sql`SELECT * FROM "Listing" WHERE "id" = ${payment.listingId}`);
  return { payment, listing: listing ? toListing(listing) : null };
}

/** A listing by id with the payer of its first payment (a pending listing has exactly one). */
export async function listingWithPayer(
  query: Query,
  listingId: string,
): Promise<{ listing: Listing; payer: string | undefined } | null> {
  const [row] = await query(Prisma.sql`SELECT l.*,
      (SELECT p."payer" FROM "Payment" p WHERE p."listingId" = l."id" ORDER BY p."createdAt" LIMIT 1) AS "firstPayer"
    FROM "Listing" l WHERE l."id" = ${listingId}`);
  return row ? { listing: toListing(row), payer: (row.firstPayer as string | null) ?? undefined } : null;
}

/** The live listing and who may renew it: its sellerPayTo and the payer of its first settled fee (lowercase), in one statement. */
export async function liveListingOf(
  query: Query,
  of: Pick<Listing, "resource" | "method" | "sellerPayTo">,
  now: Date,
): Promise<{ listing: Listing; renewers: string[] } | null> {
  const [row] = await query(Prisma.sql`SELECT l.*,
      (SELECT p."payer" FROM "Payment" p WHERE p."listingId" = l."id" AND p."state" = 'settled' ORDER BY p."createdAt" LIMIT 1) AS "firstPayer"
    FROM "Listing" l
    WHERE l."resource" = ${of.resource} AND l."method" = ${of.method} AND l."sellerPayTo" = ${of.sellerPayTo}
      AND l."leftoverSeed" = ${false} AND l."state" = 'active' AND l."expiresAt" > ${now}
    ORDER BY l."expiresAt" DESC LIMIT 1`);
  if (!row) return null;
  const listing = toListing(row);
  const first = row.firstPayer as string | null;
  return { listing, renewers: [listing.sellerPayTo.toLowerCase(), ...(first ? [first] : [])] };
}

/** Settles the payments of a listing (moving them to `toListingId` on a renewal). */
export function settlePaymentsSql(
  listingId: string,
  settlement: { txHash: string; now: Date; toListingId?: string },
): Prisma.Sql {
  const moved = settlement.toListingId ? Prisma.sql`, "listingId" = ${settlement.toListingId}` : Prisma.empty;
  return Prisma.sql`UPDATE "Payment" SET "state" = 'settled', "txHash" = ${settlement.txHash}, "settledAt" = ${settlement.now}, "failureReason" = NULL${moved}
    WHERE "listingId" = ${listingId}`;
}

/** Makes a pending (or failed) listing live, returning it. */
export async function activateListingRow(
  query: Query,
  listingId: string,
  terms: { listedAt: Date; expiresAt: Date; ownerVerified: boolean },
): Promise<Listing> {
  const [row] =
    await query(Prisma.sql`UPDATE "Listing" SET "state" = 'active', "listedAt" = ${terms.listedAt}, "expiresAt" = ${terms.expiresAt},
      "ownerVerified" = ${terms.ownerVerified}, "updatedAt" = ${new Date()}
    WHERE "id" = ${listingId} RETURNING *`);
  return toListing(row!);
}

/** Renews a live listing with the terms of the paid pending row (listing-row.ts's RENEWED_COLUMNS), returning it. */
export async function renewListingRow(
  query: Query,
  liveId: string,
  pendingId: string,
  terms: { expiresAt: Date; ownerVerified: boolean },
): Promise<Listing> {
  const columns = Prisma.join(RENEWED_COLUMNS.map(quoted));
  const copied = Prisma.join(RENEWED_COLUMNS.map((column) => Prisma.raw(`p."${column}"`)));
  const [row] =
    await query(Prisma.sql`UPDATE "Listing" SET (${columns}) = (SELECT ${copied} FROM "Listing" p WHERE p."id" = ${pendingId}),
      "expiresAt" = ${terms.expiresAt}, "ownerVerified" = ${terms.ownerVerified}, "updatedAt" = ${new Date()}
    WHERE "id" = ${liveId} RETURNING *`);
  return toListing(row!);
}
