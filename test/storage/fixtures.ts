import { getAddress } from "viem";
import { applyMigrations } from "../../src/storage/migrate.js";
import { openDatabase, type Database } from "../../src/storage/database.js";
import {
  EMPTY_PAGE,
  ListingStore,
  catalogView,
  type CatalogFilters,
  type Listing,
  type ListingInput,
  type Page,
  type PaymentInput,
} from "../../src/storage/listing/listing-store.js";
import type { TestDatabaseKind, TestDatabase } from "./databases.js";

export const T0 = new Date("2030-01-01T00:00:00.000Z");
export const at = (minutes: number): Date => new Date(T0.getTime() + minutes * 60_000);
/** Listings in these suites live one hour. */
export const TTL_MS = 60 * 60_000;

export const address = (n: number): string => `0xabcdef${n.toString(16).padStart(34, "0")}`;
export const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
export const MARKET = "0x00000000000000000000000000000000000000fe";

let counter = 0;
export function listingInput(overrides: Partial<ListingInput> = {}): ListingInput {
  counter++;
  return {
    resource: `https://seller${counter}.example.com/api/thing`,
    method: "POST",
    priceUsdc: "0.03",
    description: `Generic paid endpoint number ${counter}`,
    sellerPayTo: address(counter),
    network: "eip155:8453",
    ...overrides,
  };
}

export function paymentInput(overrides: Partial<PaymentInput> = {}): PaymentInput {
  counter++;
  return {
    network: "eip155:8453",
    asset: USDC,
    payer: getAddress(address(1000 + counter)),
    nonce: `0x${counter.toString(16).padStart(64, "0")}`,
    amount: "100000",
    payTo: MARKET,
    ...overrides,
  };
}

export interface StoreContext {
  test: TestDatabase;
  db: Database;
  store: ListingStore;
  close(): Promise<void>;
}

export async function openStore(kind: TestDatabaseKind): Promise<StoreContext> {
  const test = await kind.create();
  await applyMigrations(test.url);
  const db = await openDatabase(test.url);
  return {
    test,
    db,
    store: new ListingStore(db, { ttlMs: TTL_MS }),
    close: async () => {
      await db.close();
      await test.drop();
    },
  };
}

export async function clearListings(db: Database): Promise<void> {
  await db.prisma.payment.deleteMany();
  await db.prisma.listing.deleteMany();
}

/** A page of the catalog reads' newest-first order, seed rows shown or not. */
export function catalogPage(
  store: ListingStore,
  q: { includeSeed: boolean; limit: number; offset: number; now: Date },
): Promise<Page<Listing>> {
  return store.catalog.page({ includeSeed: q.includeSeed }, q);
}

/** A catalog search with the Bazaar filters, as the catalog query layer runs it (empty when no row can pass the filters). */
export function catalogSearch(
  store: ListingStore,
  q: CatalogFilters & { query?: string | undefined; includeSeed: boolean; limit: number; offset: number; now: Date },
): Promise<Page<Listing>> {
  const view = catalogView(q, q.includeSeed);
  return view ? store.catalog.search(view, q.query?.trim() ?? "", q) : Promise.resolve(EMPTY_PAGE);
}
