// The catalog's data layer. Every read takes `now` and returns only rows with state
// "active" and expiresAt > now, so a listing disappears the instant it expires.
// Every listing write bumps CatalogState in the same transaction.
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import { isUniqueViolation, type Database } from "../database.js";
import { CatalogReads } from "../catalog/catalog-reads.js";
import { CatalogTransactions, type RawTx, type Tx, type WriteOutcome } from "../catalog/catalog-transactions.js";
import {
  activateListingRow,
  insertListing,
  insertPaymentUnlessRecorded,
  listingWithPayer,
  liveListingOf,
  paymentByKey,
  renewListingRow,
  settlePaymentsSql,
} from "./paid-listing-sql.js";
import { listingEvent, termChanges } from "./listing-status.js";
import { healthCounts, type HealthCounts } from "../catalog/health-counts.js";
import { tidyReadPaths } from "../catalog/read-path-upkeep.js";
import { listingFields, listingState, paymentState } from "./listing-fields.js";
import { upsertSeedRows } from "./seed-rows.js";
import { readCatalogStamp, type FeedQuery } from "../catalog/listing-reads.js";
import {
  DuplicatePaymentError,
  indexedKeyOf,
  ListingStateError,
  normalizePaymentKey,
  type CatalogStamp,
  type Listing,
  type ListingInput,
  type Payment,
  type PaymentInput,
  type PaymentKey,
  type SeedListingInput,
} from "../listing-types.js";
import { LISTING_TTL_MS } from "../../constants.js";

export * from "../listing-types.js";
export { catalogStampSql, type FeedQuery } from "../catalog/listing-reads.js";
export type { CatalogView } from "../catalog/catalog-reads.js";
export { catalogView, ITEM_SCHEME, ITEM_TYPE, type CatalogFilters } from "../catalog/catalog-filters.js";

/** A fee paid by the listing's sellerPayTo itself proves its owner listed it. */
const paidByOwner = (listing: { sellerPayTo: string }, payer: string | undefined) =>
  payer !== undefined && payer === listing.sellerPayTo.toLowerCase();

/**
 * More writes in an activation's transaction, given the id of the listing it left live (the renewed
 * one on a renewal): the listing-time health sample, so a paid listing is never live without it.
 */
export type AlongsideActivation = (tx: RawTx, listingId: string) => Promise<Omit<WriteOutcome<unknown>, "result">>;

/** A payment's key was recorded by another request between the checks and the insert. */
class PaymentRecordedError extends Error {}

export class ListingStore {
  private readonly ttlMs: number;
  /** Catalog pages, searches, feeds and counts (catalog-reads.ts). */
  readonly catalog: CatalogReads;
  /** Every write that changes what the catalog shows goes through these (trust stores too). */
  readonly transactions: CatalogTransactions;

  constructor(
    private readonly db: Database,
    options: { ttlMs?: number } = {},
  ) {
    this.ttlMs = options.ttlMs ?? LISTING_TTL_MS;
    this.transactions = new CatalogTransactions(db);
    this.catalog = new CatalogReads(db.kind, db.reader, this.transactions.memo);
  }

  /** Called after every committed write that changed the catalog (this process's writes only). */
  onChange(listener: () => void): () => void {
    return this.transactions.onChange(listener);
  }

  get kind(): Database["kind"] {
    return this.db.kind;
  }

  private get prisma() {
    return this.db.prisma;
  }

  private read<T>(fn: () => Promise<T>): Promise<T> {
    return this.transactions.read(fn);
  }

  private write<T>(now: Date, fn: (tx: Tx) => Promise<WriteOutcome<T>>): Promise<T> {
    return this.transactions.write(now, fn);
  }

  /** Inserts an active listing directly (no payment): dev tools and tests. */
  createListing(input: ListingInput, now: Date): Promise<Listing> {
    return this.write(now, async (tx) => {
      await tx.listing.deleteMany({ where: { indexedKey: indexedKeyOf(input.method, input.resource) } });
      const listing = await tx.listing.create({
        data: {
          ...listingFields(input),
          ...listingState("active"),
          listedAt: now,
          expiresAt: new Date(now.getTime() + this.ttlMs),
        },
      });
      return {
        result: listing,
        changed: true,
        events: [listingEvent(listing, "listing.created", now, { by: "operator" })],
      };
    });
  }

  /**
   * Paid flow step 3: a pending (invisible) listing and its pending payment, in one
   * transaction. A payment whose (network, asset, payer, nonce) exists already raises
   * DuplicatePaymentError with the earlier payment and listing, and writes nothing.
   */
  async createPendingListingWithPayment(
    input: ListingInput,
    payment: PaymentInput,
    now: Date,
  ): Promise<{ listing: Listing; payment: Payment }> {
    // Addresses and the nonce are stored lowercase, so the unique (network, asset,
    // payer, nonce) key cannot be dodged by re-casing a replayed authorization.
    const key = normalizePaymentKey(payment);
    try {
      return await this.transactions.writeRaw(now, async (tx) => {
        const query = (sql: Prisma.Sql) => tx.$queryRaw(sql);
        // listedAt/expiresAt are placeholders until activation sets them.
        const listing = await insertListing(query, {
          ...listingFields(input),
          ...listingState("pending"),
          listedAt: now,
          expiresAt: new Date(now.getTime() + this.ttlMs),
        });
        const paymentRow = await insertPaymentUnlessRecorded(query, {
          ...key,
          amount: payment.amount,
          payTo: payment.payTo.toLowerCase(),
          ...paymentState("pending"),
          createdAt: now,
          listingId: listing.id,
        });
        // Thrown to roll the listing back: the payment was recorded first by another request.
        if (!paymentRow) throw new PaymentRecordedError();
        return { result: { listing, payment: paymentRow }, changed: true };
      });
    } catch (error) {
      if (!(error instanceof PaymentRecordedError) && !isUniqueViolation(error)) throw error;
      const existing = await this.findPayment(key);
      if (!existing) throw error;
      throw new DuplicatePaymentError(existing.payment, existing.listing);
    }
  }

  /**
   * Settlement proven on chain. If the same seller already has a live listing for the same
   * (resource, method), and this payment's payer may renew it (its original payer or its
   * sellerPayTo), that listing is renewed instead: its fields are replaced, its expiry extended by
   * one TTL, the payment moves to it and the pending row is deleted. A stranger's payment never
   * rewrites it: it becomes a listing of its own. A failed listing can be activated too (the
   * reconciler found its fee paid after all). Calling it again for an active listing returns it.
   */
  activateListing(
    listingId: string,
    settlement: { txHash: string; now: Date; alongside?: AlongsideActivation },
  ): Promise<{ listing: Listing; renewed: boolean }> {
    const { txHash, now, alongside } = settlement;
    return this.transactions.writeRaw<{ listing: Listing; renewed: boolean }>(now, async (tx) => {
      const outcome = await this.activateWithin(tx, listingId, txHash, now);
      if (!alongside) return outcome;
      const also = await alongside(tx, outcome.result.listing.id);
      return {
        ...outcome,
        changed: outcome.changed || also.changed,
        events: [...(outcome.events ?? []), ...(also.events ?? [])],
      };
    });
  }

  private async activateWithin(
    tx: RawTx,
    listingId: string,
    txHash: string,
    now: Date,
  ): Promise<WriteOutcome<{ listing: Listing; renewed: boolean }>> {
    const query = (sql: Prisma.Sql) => tx.$queryRaw(sql);
    const found = await listingWithPayer(query, listingId);
    const pending = found?.listing;
    if (pending?.state === "active") return { result: { listing: pending, renewed: false }, changed: false };
    if (pending?.state !== "pending" && pending?.state !== "failed") {
      throw new ListingStateError(`listing ${listingId} is ${pending ? pending.state : "missing"}, not pending`);
    }
    const current = await liveListingOf(query, pending, now);
    const payer = found!.payer;
    if (!current || !payer || !current.renewers.includes(payer)) {
      await tx.$executeRaw(settlePaymentsSql(listingId, { txHash, now }));
      // The resource's indexed row, if another catalog gave one, is replaced by this paid listing.
      await tx.$executeRaw(
        Prisma.sql`DELETE FROM "Listing" WHERE "indexedKey" = ${indexedKeyOf(pending.method, pending.resource)}`,
      );
      const listing = await activateListingRow(query, listingId, {
        listedAt: now,
        expiresAt: new Date(now.getTime() + this.ttlMs),
        ownerVerified: paidByOwner(pending, payer),
      });
      return {
        result: { listing, renewed: false },
        changed: true,
        events: [listingEvent(listing, "listing.created", now, { txHash })],
      };
    }
    await tx.$executeRaw(settlePaymentsSql(listingId, { txHash, now, toListingId: current.listing.id }));
    const listing = await renewListingRow(query, current.listing.id, listingId, {
      expiresAt: new Date(Math.max(current.listing.expiresAt.getTime(), now.getTime()) + this.ttlMs),
      ownerVerified: current.listing.ownerVerified || paidByOwner(pending, payer),
    });
    await tx.$executeRaw(Prisma.sql`DELETE FROM "Listing" WHERE "id" = ${listingId}`);
    const renewed = listingEvent(listing, "listing.renewed", now, {
      txHash,
      expiresAt: { from: current.listing.expiresAt.toISOString(), to: listing.expiresAt.toISOString() },
      ...termChanges(current.listing, listing),
    });
    const verified =
      !current.listing.ownerVerified && listing.ownerVerified
        ? [listingEvent(listing, "listing.verified", now, { by: "fee_paid_by_owner" })]
        : [];
    return { result: { listing, renewed: true }, changed: true, events: [renewed, ...verified] };
  }

  /**
   * The seller's live listing of the same (resource, method, sellerPayTo), with the lowercase
   * addresses that may renew it: its sellerPayTo and the payer of its first fee.
   */
  liveListingFor(input: ListingInput, now: Date): Promise<{ listing: Listing; renewers: string[] } | null> {
    const { resource, method, sellerPayTo } = listingFields(input);
    return liveListingOf((sql) => this.db.reader.rows(sql), { resource, method, sellerPayTo }, now);
  }

  /** Settlement failed. `chainChecked`: the chain confirmed that this authorization can no longer pay the fee. */
  failListing(
    listingId: string,
    failure: { reason: string; txHash?: string | null; chainChecked: boolean; now: Date },
  ): Promise<Listing> {
    return this.write(failure.now, async (tx) => {
      const pending = await tx.listing.findUnique({ where: { id: listingId } });
      if (pending?.state === "failed") return { result: pending, changed: false };
      if (pending?.state !== "pending")
        throw new ListingStateError(`listing ${listingId} is ${pending ? pending.state : "missing"}, not pending`);
      await tx.payment.updateMany({
        where: { listingId },
        data: {
          ...paymentState("failed"),
          failureReason: failure.reason,
          txHash: failure.txHash ?? null,
          chainCheckedAt: failure.chainChecked ? failure.now : null,
        },
      });
      const listing = await tx.listing.update({ where: { id: listingId }, data: listingState("failed") });
      return { result: listing, changed: true };
    });
  }

  /** A failed payment's re-check by the chain found it cannot pay: it is not looked at again. */
  async confirmFailure(paymentId: string, now: Date): Promise<void> {
    await this.read(() =>
      this.prisma.payment.updateMany({
        where: { id: paymentId, ...paymentState("failed") },
        data: { chainCheckedAt: now },
      }),
    );
  }

  /**
   * Nothing was broadcast for a pending payment (the facilitator could not be asked): its rows
   * are removed, so the same signed payment can be sent again as if never seen.
   */
  releasePendingListing(listingId: string, now: Date): Promise<void> {
    return this.write(now, async (tx) => {
      await tx.payment.deleteMany({ where: { listingId, ...paymentState("pending") } });
      const { count } = await tx.listing.deleteMany({ where: { id: listingId, ...listingState("pending") } });
      return { result: undefined, changed: count > 0 };
    });
  }

  findPayment(key: PaymentKey): Promise<{ payment: Payment; listing: Listing | null } | null> {
    return paymentByKey((sql) => this.db.reader.rows(sql), normalizePaymentKey(key));
  }

  /**
   * For the reconciler, created before `olderThan`: payments still pending, and failed ones whose
   * failure the chain has not confirmed (a broadcast may have gone through after all).
   */
  paymentsToReconcile(olderThan: Date, limit = 100): Promise<Payment[]> {
    return this.read(() =>
      this.prisma.payment.findMany({
        where: {
          createdAt: { lt: olderThan },
          OR: [paymentState("pending"), { ...paymentState("failed"), chainCheckedAt: null }],
        },
        orderBy: { createdAt: "asc" },
        take: limit,
      }),
    );
  }

  /**
   * Idempotent load of first-party demo rows, keyed by their stable id (else by resource and method). Rows that
   * already match are left alone, and the version moves only if something changed.
   */
  upsertSeedListings(
    rows: SeedListingInput[],
    now: Date,
  ): Promise<{ created: number; updated: number; unchanged: number }> {
    return this.write(now, async (tx) => {
      const counts = await upsertSeedRows(tx, rows);
      return { result: counts, changed: counts.created + counts.updated > 0 };
    });
  }

  /** The stored seed rows, any state or expiry. */
  seedRows(): Promise<Listing[]> {
    return this.read(() => this.prisma.listing.findMany({ where: { leftoverSeed: true }, orderBy: { id: "asc" } }));
  }

  /** Removes seed rows whose id is not in `keepIds` (a demo route gone, or a row of an earlier version). */
  deleteSeedRowsExcept(keepIds: string[], now: Date): Promise<number> {
    return this.write(now, async (tx) => {
      const { count } = await tx.listing.deleteMany({ where: { leftoverSeed: true, id: { notIn: keepIds } } });
      return { result: count, changed: count > 0 };
    });
  }

  /**
   * Foreign rows listed strictly after `since`, newest first. With `since`, the page is the
   * OLDEST `limit` rows after it, so a poller that passes the newest listedAt it saw as the
   * next `since` receives every row exactly once however many arrived meanwhile.
   */
  feed(q: FeedQuery): Promise<Listing[]> {
    const source = q.source === "listed" ? undefined : q.source;
    return this.catalog.feed({ includeSeed: false, health: q.health === "any" ? undefined : q.health, source }, q);
  }

  /** Visible foreign and seed rows, every stored row in any state (rawAll), and the foreign rows by health. */
  async counts(
    now: Date,
    token?: string,
  ): Promise<{ foreign: number; seed: number; rawAll: number; byHealth: HealthCounts; delisted: number }> {
    const [counts, byHealth, delisted] = await Promise.all([
      this.catalog.counts(now, token),
      healthCounts(this.transactions, now, token),
      this.transactions.memo.get(token, "delisted-count", () =>
        this.read(() => this.prisma.listing.count({ where: listingState("delisted") })),
      ),
    ]);
    return { ...counts, byHealth, delisted };
  }

  /** Cheap (one indexed statement): build caches and ETags from it. */
  catalogStamp(now: Date): Promise<CatalogStamp> {
    return this.read(() => readCatalogStamp(this.prisma, now));
  }

  /** The search index merged and planner statistics fresh (read-path-upkeep.ts). */
  tidyReadPaths(signal?: AbortSignal): Promise<void> {
    return tidyReadPaths(this.db, (fn) => this.read(fn), signal);
  }

  /** Deletes rows (any state) that expired before `before`; their payments are kept. */
  deleteExpired(before: Date): Promise<number> {
    return this.write(new Date(), async (tx) => {
      const { count } = await tx.listing.deleteMany({ where: { expiresAt: { lt: before } } });
      return { result: count, changed: count > 0 };
    });
  }
}
