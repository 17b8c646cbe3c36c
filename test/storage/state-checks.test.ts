// The database itself refuses a listing or payment state the service does not know (the
// *_state_checks migration: triggers on SQLite and on PostgreSQL), on a fresh
// database and on one migrated before the rule existed, without disturbing the search index.
import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../generated/prisma/sqlite/client.js";
import { openDatabase, type Database } from "../../src/storage/database.js";
import {
  LISTING_STATES,
  ListingStore,
  PAYMENT_STATES,
  type Listing,
  type Payment,
  type PaymentInput,
} from "../../src/storage/listing/listing-store.js";
import { applyMigrations, migrationsDir } from "../../src/storage/migrate.js";
import { SQLITE_STATE_CHECK_SQL } from "../../src/storage/state-checks.js";
import { testDatabaseKinds, type TestDatabase } from "./databases.js";
import { T0, TTL_MS, at, catalogSearch, listingInput, paymentInput } from "./fixtures.js";

const STATE_CHECKS = /^\d{14}_state_checks$/;

/** The committed migrations before the state checks, as a folder of their own. */
async function migrationsBeforeStateChecks(
  kind: "sqlite" | "postgres",
): Promise<{ dir: string; names: string[]; remove(): Promise<void> }> {
  const all = migrationsDir(kind);
  const names = (await readdir(all)).filter((name) => /^\d{14}_/.test(name)).sort();
  const cut = names.findIndex((name) => STATE_CHECKS.test(name));
  expect(cut).toBeGreaterThan(0);
  const dir = await mkdtemp(join(tmpdir(), "migrations-before-state-checks-"));
  for (const name of names.slice(0, cut)) await cp(join(all, name), join(dir, name), { recursive: true });
  await cp(join(all, "migration_lock.toml"), join(dir, "migration_lock.toml"));
  return { dir, names: names.slice(0, cut), remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * What a refused write tells an operator. On SQLite the trigger's RAISE(ABORT) reaches Prisma as
 * SQLITE_CONSTRAINT_TRIGGER, which the adapter files under P2003 ("foreign key"); the trigger's own
 * message is kept in meta.driverAdapterError. On PostgreSQL the trigger's message is the error's.
 */
async function refusal(write: Promise<unknown>): Promise<string> {
  const error = await write.then(
    () => expect.unreachable("the write was accepted"),
    (e: unknown) => e as { message: string; meta?: unknown },
  );
  return `${error.message} ${JSON.stringify(error.meta ?? {})}`;
}

/** Every way a store bug could write a state outside the rule: all must be refused, none saved. */
async function expectBadStatesRefused(db: Database, store: ListingStore) {
  const { listing, payment } = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(1));
  const { inputSchema: _, ...fresh } = listingInput();
  const listingData = { ...fresh, priceAtomic: "30000", state: "deleted", listedAt: T0, expiresAt: at(60) };
  const rowsBefore = [await db.prisma.listing.count(), await db.prisma.payment.count()];

  expect(await refusal(db.prisma.listing.create({ data: listingData }))).toMatch(/Listing_state_check/);
  expect(await refusal(db.prisma.listing.update({ where: { id: listing.id }, data: { state: "ACTIVE" } }))).toMatch(
    /Listing_state_check/,
  );
  expect(await refusal(db.prisma.listing.update({ where: { id: listing.id }, data: { state: "" } }))).toMatch(
    /Listing_state_check/,
  );
  expect(await refusal(db.prisma.payment.create({ data: { ...paymentInput(), state: "refunded" } }))).toMatch(
    /Payment_state_check/,
  );
  expect(await refusal(db.prisma.payment.update({ where: { id: payment.id }, data: { state: "active" } }))).toMatch(
    /Payment_state_check/,
  );

  expect([await db.prisma.listing.count(), await db.prisma.payment.count()]).toEqual(rowsBefore);
  expect((await db.prisma.listing.findUniqueOrThrow({ where: { id: listing.id } })).state).toBe("pending");
  expect((await db.prisma.payment.findUniqueOrThrow({ where: { id: payment.id } })).state).toBe("pending");
  // Every state the service does write still passes.
  await store.activateListing(listing.id, { txHash: `0x${"ab".repeat(32)}`, now: at(2) });
  const failing = await store.createPendingListingWithPayment(listingInput(), paymentInput(), at(3));
  await store.failListing(failing.listing.id, { reason: "transaction_failed", chainChecked: true, now: at(4) });
  const states = async (): Promise<[Listing["state"][], Payment["state"][]]> => [
    (await db.prisma.listing.findMany({ orderBy: { state: "asc" } })).map((row) => row.state),
    (await db.prisma.payment.findMany({ orderBy: { state: "asc" } })).map((row) => row.state),
  ];
  expect(await states()).toEqual([
    expect.arrayContaining(["active", "failed"]),
    expect.arrayContaining(["settled", "failed"]),
  ]);
  // And so does every state the TypeScript definition declares: the two lists agree.
  for (const state of LISTING_STATES) await db.prisma.listing.update({ where: { id: listing.id }, data: { state } });
  for (const state of PAYMENT_STATES) await db.prisma.payment.update({ where: { id: payment.id }, data: { state } });
}

describe.each(testDatabaseKinds())("listing and payment states on $kind", (kind) => {
  const opened: { test: TestDatabase; db?: Database }[] = [];
  const fresh = async () => {
    const entry: { test: TestDatabase; db?: Database } = { test: await kind.create() };
    opened.push(entry);
    return entry;
  };

  let before: Awaited<ReturnType<typeof migrationsBeforeStateChecks>>;
  beforeAll(async () => {
    before = await migrationsBeforeStateChecks(kind.kind);
  });
  afterAll(async () => {
    for (const { test, db } of opened) {
      await db?.close();
      await test.drop();
    }
    await before?.remove();
  });

  it("are refused by a fresh database when they are not one the service knows", async () => {
    const entry = await fresh();
    const { applied } = await applyMigrations(entry.test.url);
    expect(applied.some((name) => STATE_CHECKS.test(name))).toBe(true);
    entry.db = await openDatabase(entry.test.url);
    await expectBadStatesRefused(entry.db, new ListingStore(entry.db, { ttlMs: TTL_MS }));
  });

  it("are refused by a database migrated before the rule existed, which keeps its rows and its search index", async () => {
    const entry = await fresh();
    expect(await applyMigrations(entry.test.url, { migrationsDir: before.dir })).toEqual({ applied: before.names });
    entry.db = await openDatabase(entry.test.url);
    const old = await insertWithTheOldColumns(entry.db, {
      description: "Translates invoices into plain words",
      state: "active",
    });
    const oldPending = {
      listing: await insertWithTheOldColumns(entry.db, { description: "Pending", state: "pending" }),
      payment: paymentInput(),
    };
    await insertPaymentWithTheOldColumns(entry.db, oldPending.payment, oldPending.listing.id);

    await entry.db.close(); // as at start-up: migrations run before the service opens the database
    const { applied } = await applyMigrations(entry.test.url);
    expect(applied[0]).toMatch(STATE_CHECKS);
    expect(await applyMigrations(entry.test.url)).toEqual({ applied: [] });
    entry.db = await openDatabase(entry.test.url);
    const migrated = new ListingStore(entry.db, { ttlMs: TTL_MS });

    const search = (query: string) =>
      catalogSearch(migrated, { query, includeSeed: false, limit: 10, offset: 0, now: at(1) });
    expect((await search("invoices")).rows.map((row) => row.id)).toEqual([old.id]);
    const added = await migrated.createListing(
      listingInput({ description: "Counts penguins in satellite photos" }),
      at(1),
    );
    expect((await search("penguins")).rows.map((row) => row.id)).toEqual([added.id]);
    expect((await migrated.findPayment(oldPending.payment))?.listing?.id).toBe(oldPending.listing.id);
    await expectBadStatesRefused(entry.db, migrated);
  });

  it("stop the migration of a database that already holds an unknown state, leaving it as it was", async () => {
    const entry = await fresh();
    await applyMigrations(entry.test.url, { migrationsDir: before.dir });
    entry.db = await openDatabase(entry.test.url);
    const listing = await insertWithTheOldColumns(entry.db, { description: "Archived", state: "archived" });
    await entry.db.close();

    await expect(applyMigrations(entry.test.url)).rejects.toThrow(
      kind.kind === "sqlite"
        ? /CHECK constraint failed: every_existing_row_has_a_known_state/
        : /every_existing_row_has_a_known_state/,
    );
    entry.db = await openDatabase(entry.test.url);
    const stateOf = async () =>
      (
        await entry.db!.prisma.$queryRawUnsafe<{ state: string }[]>(
          `SELECT "state" FROM "Listing" WHERE "id" = '${listing.id}'`,
        )
      )[0]?.state;
    expect(await stateOf()).toBe("archived");
    // Nothing of the rule was installed: the failed migration left no trigger or constraint behind.
    await entry.db.prisma.$executeRawUnsafe(`UPDATE "Listing" SET "state" = 'retired' WHERE "id" = '${listing.id}'`);
    expect(await stateOf()).toBe("retired");
  });
});

/** A row written as the service wrote it before the later migrations added columns (the current client would name them). */
async function insertWithTheOldColumns(
  db: Database,
  row: { description: string; state: string },
): Promise<{ id: string }> {
  const id = randomUUID();
  const input = listingInput({ description: row.description });
  const cast = Prisma.raw(db.kind === "postgres" ? "::uuid" : "");
  await db.prisma
    .$executeRaw`INSERT INTO "Listing" ("id", "resource", "method", "priceUsdc", "priceAtomic", "description", "sellerPayTo", "network", "state", "leftoverSeed", "listedAt", "expiresAt", "updatedAt")
    VALUES (${id}${cast}, ${input.resource}, ${input.method}, '0.03', '30000', ${input.description}, ${input.sellerPayTo}, ${input.network}, ${row.state}, false, ${T0}, ${new Date(T0.getTime() + TTL_MS)}, ${T0})`;
  return { id };
}

async function insertPaymentWithTheOldColumns(db: Database, payment: PaymentInput, listingId: string): Promise<void> {
  const cast = Prisma.raw(db.kind === "postgres" ? "::uuid" : "");
  await db.prisma
    .$executeRaw`INSERT INTO "Payment" ("id", "network", "asset", "payer", "nonce", "amount", "payTo", "state", "createdAt", "listingId")
    VALUES (${randomUUID()}${cast}, ${payment.network}, ${payment.asset.toLowerCase()}, ${payment.payer.toLowerCase()}, ${payment.nonce.toLowerCase()}, ${payment.amount}, ${payment.payTo.toLowerCase()}, 'pending', ${T0}, ${listingId}${cast})`;
}

describe("the SQLite state-check triggers a new migration re-installs", () => {
  it("are the ones the newest migration that (re)installs them carries, built from the states the service knows", async () => {
    const all = migrationsDir("sqlite");
    const folders = (await readdir(all)).filter((name) => /^\d{14}_/.test(name)).sort();
    const installs = async (table: "Listing" | "Payment") => {
      let newest = "";
      for (const folder of folders) {
        const sql = await readFile(join(all, folder, "migration.sql"), "utf8");
        if (sql.includes(`CREATE TRIGGER "${table}_state_check_insert"`)) newest = sql;
      }
      return newest;
    };
    expect(folders.some((name) => STATE_CHECKS.test(name))).toBe(true);
    expect(await installs("Listing")).toContain(SQLITE_STATE_CHECK_SQL.Listing);
    expect(await installs("Payment")).toContain(SQLITE_STATE_CHECK_SQL.Payment);
  });
});
