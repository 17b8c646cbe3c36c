import { formatUnits, parseUnits } from "viem";
import type { Listing, Payment, Prisma } from "../../generated/prisma/sqlite/client.js";

export type { Listing, Payment } from "../../generated/prisma/sqlite/client.js";

export type ListingMethod = "GET" | "POST";
/** The only states the store writes; the *_state_checks migration makes the database refuse any other. */
export const LISTING_STATES = ["pending", "active", "failed", "delisted", "indexing", "indexed"] as const;
export const PAYMENT_STATES = ["pending", "settled", "failed"] as const;
export type ListingState = (typeof LISTING_STATES)[number];

/** What can happen to a listing: the catalog's change log (ListingEvent) and its webhooks (issue 27). */
export const LISTING_EVENT_TYPES = [
  "listing.created",
  "listing.renewed",
  "listing.updated",
  "listing.delisted",
  "listing.expiring",
  "listing.expired",
  "listing.health_changed",
  "listing.drifted",
  "listing.verified",
] as const;
export type ListingEventType = (typeof LISTING_EVENT_TYPES)[number];

/** Why a listing is in its state: a machine-readable code, words for a person, and the evidence. */
export interface ListingReason {
  code: string;
  message: string;
  evidence?: Record<string, unknown>;
}

/** One change to record in the same transaction as the write that made it (CatalogTransactions.write). */
export interface ListingEventDraft {
  listingId: string;
  sellerPayTo: string;
  type: ListingEventType;
  /** The listing's state after the change and why. */
  status: { state: string; reasons: ListingReason[] };
  data?: Record<string, unknown>;
}
export type PaymentState = (typeof PAYMENT_STATES)[number];

/** What a seller submits (already validated by the HTTP layer). */
export interface ListingInput {
  resource: string;
  method: ListingMethod;
  /** Decimal in token units, at most 6 decimals; stored canonical ("0.030" -> "0.03"). */
  priceUsdc: string;
  description: string;
  /** 0x address; stored in checksummed form. */
  sellerPayTo: string;
  inputSchema?: Prisma.InputJsonObject | null | undefined;
  network: string;
  /** What the seller's own 402 challenge declares, already sanitised; absent when it declares nothing. */
  metadata?: SellerMetadata | undefined;
}

/** The resource fields of a seller's 402 challenge kept as seller metadata, each stored in the Listing column of its name. */
export const RESOURCE_METADATA_FIELDS = [
  "mimeType",
  "serviceName",
  "tags",
  "iconUrl",
] as const satisfies readonly (keyof Listing)[];

/** The Listing columns seller metadata is stored in: those fields, extensions.bazaar and the extension key it sets. */
export const METADATA_COLUMNS = [
  ...RESOURCE_METADATA_FIELDS,
  "bazaar",
  "extensionKeys",
] as const satisfies readonly (keyof Listing)[];
export type MetadataColumn = (typeof METADATA_COLUMNS)[number];

/** Service metadata a seller publishes in its 402 challenge (Bazaar metadata rules applied before storing). */
export interface SellerMetadata {
  mimeType?: string | undefined;
  serviceName?: string | undefined;
  tags?: string[] | undefined;
  iconUrl?: string | undefined;
  /** The challenge's `extensions.bazaar` object (info and schema). */
  bazaar?: Prisma.InputJsonObject | undefined;
}

/** First-party demo row (leftoverSeed): dates are explicit so a reload changes nothing. */
export interface SeedListingInput extends ListingInput {
  /** Stable across restarts (src/catalog/seed-inventory.ts seedListingId); without it, rows are keyed by (resource, method). */
  id?: string | undefined;
  listedAt: Date;
  expiresAt: Date;
}

/** The EIP-3009 authorization that identifies a payment. */
export interface PaymentKey {
  network: string;
  asset: string;
  payer: string;
  /** 0x-prefixed 32-byte hex. */
  nonce: string;
}

export interface PaymentInput extends PaymentKey {
  /** Integer string in the token's smallest unit. */
  amount: string;
  payTo: string;
}

export interface Page<T> {
  rows: T[];
  total: number;
}

export const EMPTY_PAGE: Page<never> = Object.freeze({ rows: [], total: 0 }) as Page<never>;

export interface CatalogStamp {
  version: number;
  changedAt: Date;
  /** Earliest expiresAt > now among active rows: a cache built at `now` is stale from then on. */
  nextExpiry: Date | null;
}

/** The payment was seen before; nothing was written. Carries the earlier result. */
export class DuplicatePaymentError extends Error {
  override readonly name = "DuplicatePaymentError";
  constructor(
    readonly payment: Payment,
    readonly listing: Listing | null,
  ) {
    super(
      `payment ${payment.nonce} from ${payment.payer} on ${payment.network} was already submitted (state ${payment.state})`,
    );
  }
}

/** activateListing / failListing on a listing that is missing or not pending. */
export class ListingStateError extends Error {
  override readonly name = "ListingStateError";
}

export const USDC_DECIMALS = 6;

/** Canonical decimal and atomic integer strings; RangeError on a malformed price. */
export function normalizePrice(priceUsdc: string): { priceUsdc: string; priceAtomic: string } {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(priceUsdc);
  if (!match || (match[2]?.length ?? 0) > USDC_DECIMALS) {
    throw new RangeError(`price must be a decimal with at most ${USDC_DECIMALS} decimals: ${priceUsdc}`);
  }
  const atomic = parseUnits(priceUsdc, USDC_DECIMALS);
  return { priceUsdc: formatUnits(atomic, USDC_DECIMALS), priceAtomic: atomic.toString() };
}

/** The unique key in stored form: addresses and nonce lowercase (see createPendingListingWithPayment). */
export function normalizePaymentKey(key: PaymentKey): PaymentKey {
  return {
    network: key.network,
    asset: key.asset.toLowerCase(),
    payer: key.payer.toLowerCase(),
    nonce: key.nonce.toLowerCase(),
  };
}

/**
 * A Listing row's indexedKey: one indexed row per METHOD + resource across every source. The index
 * store (src/indexing/index-store.ts) writes it; the listing store deletes the indexed row by it
 * when someone lists that resource.
 */
export const indexedKeyOf = (method: string, resource: string) => `${method} ${resource}`;
