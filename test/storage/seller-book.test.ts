// The usage indexer's seller book (src/usage/usage-listings.ts sellerBook): every live third-party
// seller with its earliest listing and its live prices, read in pages. Rows that are not live (another
// state, expired, a leftover seed row) and the marketplace's own listings stay out of it.
import { randomUUID } from "node:crypto";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_PAGE, sellerBook } from "../../src/usage/usage-listings.js";
import { insertListingRows, type ListingRow } from "../../tools/bench/seed-listings.js";
import { testDatabaseKinds } from "./databases.js";
import { address, at, listingInput, MARKET, openStore, type StoreContext } from "./fixtures.js";

/** More than a page, so the book is read across page boundaries. */
const ROWS = READ_PAGE + 500;
const NOW = at(0);

type Kind = "live" | "failed" | "expired" | "seed" | "market";
const kindOf = (i: number): Kind => (["live", "live", "live", "failed", "expired", "seed", "market"] as const)[i % 7]!;

describe.each(testDatabaseKinds())("the seller book on $kind", (kind) => {
  let ctx: StoreContext;
  const rows: Array<ListingRow & { kind: Kind }> = [];

  beforeAll(async () => {
    ctx = await openStore(kind);
    for (let i = 0; i < ROWS; i++) {
      const kindOfRow = kindOf(i);
      // A seller in three has several listings, so earliest and prices are chosen among them.
      const seller = kindOfRow === "market" ? getAddress(MARKET) : getAddress(address(1 + (i % Math.floor(ROWS / 3))));
      const { resource, method, priceUsdc, description, network } = listingInput({ description: `listing ${i}` });
      rows.push({
        kind: kindOfRow,
        id: randomUUID(),
        resource: `${resource}/${i}`,
        method,
        priceUsdc,
        description,
        sellerPayTo: seller,
        network,
        priceAtomic: String(1_000 * (1 + (i % 5))),
        priceMicros: BigInt(1_000 * (1 + (i % 5))),
        state: kindOfRow === "failed" ? "failed" : "active",
        leftoverSeed: kindOfRow === "seed",
        listedAt: at(-ROWS + i),
        expiresAt: kindOfRow === "expired" ? at(-1) : at(1_000 + i),
        updatedAt: NOW,
      });
    }
    await insertListingRows(
      ctx.test.url,
      rows.map(({ kind: _kind, ...row }) => row),
    );
  }, 120_000);
  afterAll(() => ctx?.close());

  it("holds each live third-party seller's earliest listing and live prices, and nothing else", async () => {
    const book = await sellerBook(ctx.store.transactions, NOW, MARKET.toLowerCase());

    const earliest = new Map<string, number>();
    const prices = new Map<string, Set<string>>();
    let nextExpiry = Number.POSITIVE_INFINITY;
    for (const row of rows.filter((row) => row.kind === "live")) {
      const seller = String(row.sellerPayTo).toLowerCase();
      const listedAt = (row.listedAt as Date).getTime();
      earliest.set(seller, Math.min(earliest.get(seller) ?? listedAt, listedAt));
      prices.set(seller, (prices.get(seller) ?? new Set()).add(String(row.priceAtomic)));
      nextExpiry = Math.min(nextExpiry, (row.expiresAt as Date).getTime());
    }

    expect(book.earliest).toEqual(earliest);
    expect(book.firstListedAt).toBe(Math.min(...earliest.values()));
    expect(new Map([...book.prices].map(([seller, set]) => [seller, new Set(set)]))).toEqual(prices);
    expect(book.nextExpiry).toBe(nextExpiry);
    // The rows kept out were there to be kept out.
    const kept = new Set(["failed", "expired", "seed", "market"]);
    expect(rows.filter((row) => kept.has(row.kind)).length).toBeGreaterThan(ROWS / 2);
  });
});
