// What a listing write stores in Listing's columns: a listing input's fields (price normalized,
// seller address checksummed, the seller metadata a probe read) and the states as typed values.
// The listing store, the seed rows' load and the owner's refresh (owner-store.ts) write through these.
import { getAddress } from "viem";
import { Prisma } from "../../../generated/prisma/sqlite/client.js";
import { BAZAAR_EXTENSION } from "../catalog/catalog-filters.js";
import {
  normalizePrice,
  type ListingInput,
  type ListingState,
  type MetadataColumn,
  type PaymentState,
  type SellerMetadata,
} from "../listing-types.js";

/** The Listing columns of the seller metadata a probe read (listing time and POST /listings/{id}/refresh). */
export function metadataFields(metadata: SellerMetadata = {}) {
  return {
    mimeType: metadata.mimeType ?? null,
    serviceName: metadata.serviceName ?? null,
    tags: metadata.tags?.length ? JSON.stringify(metadata.tags) : null,
    iconUrl: metadata.iconUrl ?? null,
    bazaar: metadata.bazaar ?? Prisma.DbNull,
    extensionKeys: metadata.bazaar ? BAZAAR_EXTENSION : "",
  } satisfies Record<MetadataColumn, unknown>;
}

/** A listing input's columns: the price in its three forms, the seller address checksummed, the seller metadata. */
export function listingFields(input: ListingInput) {
  const price = normalizePrice(input.priceUsdc);
  return {
    resource: input.resource,
    method: input.method,
    ...price,
    priceMicros: BigInt(price.priceAtomic),
    description: input.description,
    sellerPayTo: getAddress(input.sellerPayTo),
    inputSchema: input.inputSchema ?? Prisma.DbNull,
    network: input.network,
    ...metadataFields(input.metadata),
  };
}

// Prisma sees the state columns as plain strings: every state the store writes or filters on goes
// through these, so the compiler accepts only a declared state.
export const listingState = (state: ListingState) => ({ state });
export const paymentState = (state: PaymentState) => ({ state });
