import { getAddress } from "viem";
import type { ListingInput } from "../../src/storage/listing/listing-store.js";
import { listingInput } from "../storage/fixtures.js";
import { testDatabaseKinds, type TestDatabase, type TestDatabaseKind } from "../storage/databases.js";
import { startTestServer, type TestServer } from "./server.js";

/** A clock the test moves; the server reads and writes with it. */
export class TestClock {
  constructor(private time: number) {}
  now = (): Date => new Date(this.time);
  advance(ms: number): void {
    this.time += ms;
  }
  set(date: Date): void {
    this.time = date.getTime();
  }
}

export const DAY_MS = 24 * 60 * 60 * 1000;
export const T0 = new Date("2030-01-01T00:00:00.000Z");

export function sellerAddress(n: number): string {
  return getAddress(`0x${(0xabc000 + n).toString(16).padStart(40, "0")}`);
}

/** A valid listing body with unique resource and seller. */
export const listing = listingInput;

export interface CatalogServer {
  server: TestServer;
  clock: TestClock;
  db: TestDatabase;
  /** Lists directly in the store at the clock's current time, then moves the clock 1 s on. */
  list(overrides?: Partial<ListingInput>): ReturnType<TestServer["contexts"]["listings"]["store"]["createListing"]>;
  json<T = Record<string, unknown>>(
    path: string,
    init?: RequestInit,
  ): Promise<{ status: number; body: T; headers: Headers }>;
  close(): Promise<void>;
}

export async function startCatalogServer(
  kind: TestDatabaseKind,
  env: Record<string, string> = {},
): Promise<CatalogServer> {
  const db = await kind.create();
  const clock = new TestClock(T0.getTime());
  const server = await startTestServer({ DATABASE_URL: db.url, ...env }, { now: clock.now });
  return {
    server,
    clock,
    db,
    async list(overrides) {
      const created = await server.contexts.listings.store.createListing(listing(overrides), clock.now());
      clock.advance(1000);
      return created;
    },
    async json(path, init) {
      const response = await server.fetch(path, init);
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: (text ? JSON.parse(text) : undefined) as never,
      };
    },
    async close() {
      await server.close();
      await db.drop();
    },
  };
}

/** SQLite always; PostgreSQL too when TEST_POSTGRES_URL is set. */
export const databaseKinds = testDatabaseKinds();
