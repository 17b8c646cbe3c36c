// Owner operations on a live listing (claim, update, delist) and the refresh's seller metadata.
// A signed operation spends its nonce in the same transaction as its change: OwnerNonce's primary
// key makes a nonce usable once across every instance, and a replay changes nothing. Every change is
// published through CatalogTransactions.write, so the catalog version moves with it.
import { isDeepStrictEqual } from "node:util";
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import type { CatalogTransactions, Tx } from "../catalog/catalog-transactions.js";
import { HOUR_MS } from "../../constants.js";
import { listingEvent, termChanges } from "./listing-status.js";
import { METADATA_COLUMNS, type ListingEventDraft, type MetadataColumn } from "../listing-types.js";
import { metadataFields } from "./listing-fields.js";
import { normalizePrice, type Listing, type ListingMethod, type SellerMetadata } from "./listing-store.js";
import { isUniqueViolation } from "../database.js";

/** The nonce was spent already (by this operation sent twice, or by another). */
export class NonceUsedError extends Error {
  constructor(readonly nonce: string) {
    super(`nonce ${nonce} was used already`);
    this.name = "NonceUsedError";
  }
}

/** A method change would make the listing a twin of another live listing of the same seller. */
export class ListingConflictError extends Error {
  constructor(readonly otherId: string) {
    super(`listing ${otherId} already lists this resource with that method`);
    this.name = "ListingConflictError";
  }
}

/** The signed nonce an operation spends. */
export interface SpentNonce {
  nonce: string;
  action: "claim" | "update" | "delist";
  /** The recovered signer (the listing's sellerPayTo). */
  signer: string;
}

/** What an update writes; absent fields stay. `metadata`: what the probe that accepted the change read. */
export interface StoredChanges {
  description?: string | undefined;
  method?: ListingMethod | undefined;
  inputSchema?: Prisma.InputJsonObject | null | undefined;
  priceUsdc?: string | undefined;
  metadata?: SellerMetadata | undefined;
}

/** Far beyond any deadline accepted (10 minutes ahead, plus clock skew). */
const NONCE_KEPT_MS = HOUR_MS;

/** A live listing; `withIndexed`: or an indexed row our probe confirmed (its payTo may claim it, issue 28). */
const liveWhere = (id: string, now: Date, withIndexed = false) => ({
  id,
  state: { in: withIndexed ? ["active", "indexed"] : ["active"] },
  expiresAt: { gt: now },
});

function updateData(changes: StoredChanges) {
  const price = changes.priceUsdc === undefined ? undefined : normalizePrice(changes.priceUsdc);
  return {
    ...(changes.description !== undefined && { description: changes.description }),
    ...(changes.method !== undefined && { method: changes.method }),
    ...(changes.inputSchema !== undefined && { inputSchema: changes.inputSchema ?? Prisma.DbNull }),
    ...(price && { ...price, priceMicros: BigInt(price.priceAtomic) }),
    ...(changes.metadata && metadataFields(changes.metadata)),
  };
}

/** The metadata columns as stored, for comparing a fresh probe's with them. */
const storedMetadata = (listing: Listing) =>
  Object.fromEntries(METADATA_COLUMNS.map((column) => [column, listing[column]])) as Pick<Listing, MetadataColumn>;

export class OwnerStore {
  constructor(private readonly transactions: CatalogTransactions) {}

  /** The live listing (active, not expired; with `withIndexed` a confirmed indexed row too), or null. */
  live(id: string, now: Date, withIndexed = false): Promise<Listing | null> {
    return this.transactions.read(() =>
      this.transactions.prisma.listing.findFirst({ where: liveWhere(id, now, withIndexed) }),
    );
  }

  /** Whether a nonce was spent (a cheap early answer; the insert in the operation's transaction decides). */
  async nonceUsed(nonce: string): Promise<boolean> {
    const found = await this.transactions.read(() =>
      this.transactions.prisma.ownerNonce.findUnique({ where: { nonce: nonce.toLowerCase() } }),
    );
    return found !== null;
  }

  /** Marks the listing owner-verified. Null when it is not live. */
  claim(id: string, spent: SpentNonce, now: Date): Promise<Listing | null> {
    return this.signed(id, spent, now, true, async (tx, listing) => {
      if (listing.ownerVerified) return { listing, changed: false };
      const claimed = await tx.listing.update({ where: { id }, data: { ownerVerified: true } });
      return {
        listing: claimed,
        changed: true,
        events: [listingEvent(claimed, "listing.verified", now, { by: "owner_claim", signer: spent.signer })],
      };
    });
  }

  /** Writes the changes (the owner's signature also verifies it). Null when it is not live. */
  update(id: string, changes: StoredChanges, spent: SpentNonce, now: Date): Promise<Listing | null> {
    return this.signed(id, spent, now, false, async (tx, listing) => {
      if (changes.method !== undefined && changes.method !== listing.method) {
        const twin = await tx.listing.findFirst({
          where: {
            resource: listing.resource,
            method: changes.method,
            sellerPayTo: listing.sellerPayTo,
            state: "active",
            expiresAt: { gt: now },
            id: { not: id },
          },
          select: { id: true },
        });
        if (twin) throw new ListingConflictError(twin.id);
      }
      const updated = await tx.listing.update({ where: { id }, data: { ...updateData(changes), ownerVerified: true } });
      const inputSchema =
        changes.inputSchema !== undefined && !isDeepStrictEqual(listing.inputSchema, updated.inputSchema)
          ? { inputSchema: { changed: true } }
          : {};
      const events = [
        listingEvent(updated, "listing.updated", now, {
          by: "owner",
          ...termChanges(listing, updated),
          ...inputSchema,
        }),
      ];
      if (!listing.ownerVerified)
        events.push(listingEvent(updated, "listing.verified", now, { by: "owner_update", signer: spent.signer }));
      return { listing: updated, changed: true, events };
    });
  }

  /** Withdraws the listing: state "delisted", hidden from every read at once. Null when it is not live. */
  delist(id: string, spent: SpentNonce, now: Date): Promise<Listing | null> {
    return this.signed(id, spent, now, false, async (tx) => {
      const delisted = await tx.listing.update({ where: { id }, data: { state: "delisted", delistedAt: now } });
      return {
        listing: delisted,
        changed: true,
        events: [listingEvent(delisted, "listing.delisted", now, { by: "owner", signer: spent.signer })],
      };
    });
  }

  /** A fresh probe's seller metadata; `changed` when it differs from what was stored. Null when it is not live. */
  refreshMetadata(
    id: string,
    metadata: SellerMetadata,
    now: Date,
  ): Promise<{ listing: Listing; changed: boolean } | null> {
    return this.transactions.write<{ listing: Listing; changed: boolean } | null>(now, async (tx) => {
      const listing = await tx.listing.findFirst({ where: liveWhere(id, now) });
      if (!listing) return { result: null, changed: false };
      const fresh = metadataFields(metadata);
      const comparable = { ...fresh, bazaar: fresh.bazaar === Prisma.DbNull ? null : fresh.bazaar };
      const stored = storedMetadata(listing);
      const same = METADATA_COLUMNS.every((key) => isDeepStrictEqual(comparable[key] ?? null, stored[key] ?? null));
      if (same) return { result: { listing, changed: false }, changed: false };
      const updated = await tx.listing.update({ where: { id }, data: fresh });
      const fields = METADATA_COLUMNS.filter((key) => !isDeepStrictEqual(comparable[key] ?? null, stored[key] ?? null));
      const events = updated.leftoverSeed
        ? []
        : [listingEvent(updated, "listing.updated", now, { by: "seller_402", metadataChanged: fields })];
      return { result: { listing: updated, changed: true }, changed: true, events };
    });
  }

  /** Listings withdrawn by their owners (the status document counts them as removed). */
  delistedCount(): Promise<number> {
    return this.transactions.read(() => this.transactions.prisma.listing.count({ where: { state: "delisted" } }));
  }

  /** The live listing, the nonce spent, then `change`, in one published transaction; a spent nonce raises NonceUsedError. */
  private async signed(
    id: string,
    spent: SpentNonce,
    now: Date,
    withIndexed: boolean,
    change: (tx: Tx, listing: Listing) => Promise<{ listing: Listing; changed: boolean; events?: ListingEventDraft[] }>,
  ): Promise<Listing | null> {
    try {
      return await this.transactions.write(now, async (tx) => {
        const listing = await tx.listing.findFirst({ where: liveWhere(id, now, withIndexed) });
        if (!listing) return { result: null, changed: false };
        await tx.ownerNonce.create({
          data: {
            nonce: spent.nonce.toLowerCase(),
            listingId: id,
            action: spent.action,
            signer: spent.signer,
            usedAt: now,
          },
        });
        // A nonce need only be remembered while a signature carrying it is within its deadline.
        await tx.ownerNonce.deleteMany({ where: { usedAt: { lt: new Date(now.getTime() - NONCE_KEPT_MS) } } });
        const done = await change(tx, listing);
        // Indexed rows are not this marketplace's listings: their changes stay out of its change log.
        const logged = !listing.leftoverSeed && listing.indexedKey === null;
        return { result: done.listing, changed: done.changed, ...(logged && done.events && { events: done.events }) };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new NonceUsedError(spent.nonce);
      throw error;
    }
  }
}
