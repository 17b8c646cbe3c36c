// The listing reads of the usage indexer (src/usage/indexer.ts), for UsageStore: the seller book
// (the live sellers and their prices, read in pages), its stamp (summed up in the database), and
// the listings a rollup can change. None of them brings the whole catalog in as listing objects.
import { setImmediate } from "node:timers/promises";
import { getAddress } from "viem";
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import { toDate } from "../storage/catalog-reader.js";
import type { CatalogTransactions } from "../storage/catalog/catalog-transactions.js";
import type { LiveListing, SellerBook } from "./usage-types.js";

/** Rows a paged read takes at once before it yields to requests (about 10 ms of work each). */
export const READ_PAGE = 2_000;

const LIVE = (now: Date) =>
  ({ state: "active", leftoverSeed: false, expiresAt: { gt: now } }) satisfies Prisma.ListingWhereInput;
/** Change-log events that leave the live sellers and their prices as they were. */
const EVENTS_OUTSIDE_THE_BOOK = ["listing.health_changed", "listing.drifted", "listing.verified", "listing.expiring"];
/** Addresses per `in` list. */
const ADDRESS_BATCH = 500;

export async function liveListings(
  transactions: CatalogTransactions,
  now: Date,
  marketplace: string,
  where: Prisma.ListingWhereInput,
): Promise<LiveListing[]> {
  const rows = await transactions.read(() =>
    transactions.db.prisma.listing.findMany({
      where: { ...LIVE(now), ...where },
      select: {
        id: true,
        sellerPayTo: true,
        priceAtomic: true,
        listedAt: true,
        expiresAt: true,
        calls30d: true,
        usageSummary: true,
        sellerUsage: true,
      },
    }),
  );
  return rows
    .map(({ sellerPayTo, ...row }) => ({ ...row, seller: sellerPayTo.toLowerCase() }))
    .filter((row) => row.seller !== marketplace);
}

/**
 * The live listings a rollup can change: those of `sellers` (lowercase: the ones with transfers in
 * the window) and those already showing usage. Not the whole catalog: at 100k listings nearly
 * none has a sale, and reading them all held the request thread for seconds.
 */
export async function rollupListings(
  transactions: CatalogTransactions,
  now: Date,
  marketplace: string,
  sellers: string[],
): Promise<LiveListing[]> {
  const found = new Map<string, LiveListing>();
  const showing = await liveListings(transactions, now, marketplace, { usageSummary: { not: Prisma.DbNull } });
  for (const listing of showing) found.set(listing.id, listing);
  for (let index = 0; index < sellers.length; index += ADDRESS_BATCH) {
    // Stored as sent through getAddress (checksummed); all lower case covers rows written before that.
    const forms = sellers.slice(index, index + ADDRESS_BATCH).flatMap((seller) => [getAddress(seller), seller]);
    for (const listing of await liveListings(transactions, now, marketplace, { sellerPayTo: { in: forms } }))
      found.set(listing.id, listing);
  }
  return [...found.values()];
}

/**
 * What the seller book is made of, summed up by the database (no row comes to the process): it
 * changes when a live third-party listing is added, removed or repriced, not when a probe or a
 * rollup writes health or usage columns (which move the catalog version every few seconds).
 */
export async function sellerBookStamp(transactions: CatalogTransactions, now: Date): Promise<string> {
  const stamp = await transactions.read(() =>
    transactions.db.prisma.listing.aggregate({
      where: LIVE(now),
      _count: { _all: true },
      _max: { listedAt: true },
      _sum: { priceMicros: true },
    }),
  );
  return `${stamp._count._all}|${stamp._max.listedAt?.getTime() ?? ""}|${stamp._sum.priceMicros ?? ""}`;
}

/** The live sellers and their prices, read with only the columns that takes, in pages with a yield between them. */
export async function sellerBook(
  transactions: CatalogTransactions,
  now: Date,
  marketplace: string,
): Promise<SellerBook> {
  const book: SellerBook = {
    earliest: new Map(),
    firstListedAt: Number.POSITIVE_INFINITY,
    prices: new Map(),
    nextExpiry: Number.POSITIVE_INFINITY,
  };
  const listed = new Map<string, string[]>();
  // Each page walks the primary key from where the last one ended, the live test computed per row:
  // with the live test in WHERE, the planner took the (state, leftoverSeed, expiresAt) index and
  // sorted every live listing by id for each page (3.5-4.7 s of CPU for the book at 100k listings,
  // read again whenever a listing is added, removed or repriced). Through the driver, as catalog reads.
  let after: string | undefined;
  for (;;) {
    const from = after === undefined ? Prisma.empty : Prisma.sql`WHERE "id" > ${after}`;
    const rows = await transactions.db.reader.rows(
      Prisma.sql`SELECT "id", "sellerPayTo", "priceAtomic", "listedAt", "expiresAt",
          CASE WHEN "state" = 'active' AND "leftoverSeed" = ${false} AND "expiresAt" > ${now} THEN 1 ELSE 0 END AS "live"
        FROM "Listing" ${from} ORDER BY "id" LIMIT ${READ_PAGE}`,
      { onePlan: true },
    );
    for (const row of rows) {
      const seller = String(row.sellerPayTo).toLowerCase();
      if (Number(row.live) !== 1 || seller === marketplace) continue;
      const listedAt = toDate(row.listedAt).getTime();
      const earliest = book.earliest.get(seller);
      if (earliest === undefined || listedAt < earliest) book.earliest.set(seller, listedAt);
      book.firstListedAt = Math.min(book.firstListedAt, listedAt);
      const price = String(row.priceAtomic);
      const prices = listed.get(seller);
      if (!prices) listed.set(seller, [price]);
      else if (!prices.includes(price)) prices.push(price);
      book.nextExpiry = Math.min(book.nextExpiry, toDate(row.expiresAt).getTime());
    }
    if (rows.length < READ_PAGE) break;
    after = String(rows.at(-1)!.id);
    await setImmediate();
  }
  // Sellers asking the same prices share one set: a catalog has far fewer price lists than sellers.
  const shared = new Map<string, ReadonlySet<string>>();
  for (const [seller, prices] of listed) {
    const key = prices.sort().join(",");
    let set = shared.get(key);
    if (!set) shared.set(key, (set = new Set(prices)));
    book.prices.set(seller, set);
  }
  return book;
}

/**
 * The change log's newest seq, and whether an event after `after` can change the seller book (a
 * listing created, renewed, updated, delisted or expired; not a health change, a verification or
 * an expiry notice). Reads only the events after `after`, by seq.
 */
export async function bookEvents(
  transactions: CatalogTransactions,
  after: number | null,
): Promise<{ seq: number; relevant: boolean }> {
  const events = transactions.db.prisma.listingEvent;
  const last = await transactions.read(() => events.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } }));
  const seq = last?.seq ?? 0;
  if (after === null || seq <= after) return { seq, relevant: after === null };
  const found = await transactions.read(() =>
    events.findFirst({
      where: { seq: { gt: after }, type: { notIn: EVENTS_OUTSIDE_THE_BOOK } },
      select: { seq: true },
    }),
  );
  return { seq, relevant: found !== null };
}
