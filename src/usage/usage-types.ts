// The shapes the usage store reads and writes (src/usage/usage-store.ts), for the usage indexer and its tests.
import type { Prisma } from "../../generated/prisma/sqlite/client.js";

export interface Checkpoint {
  blockNumber: bigint;
  blockHash: string;
  updatedAt: Date;
}

/** One Transfer log, addresses lowercase, amount in the token's smallest unit. */
export interface TransferRow {
  id: string;
  blockNumber: bigint;
  blockHash: string;
  txHash: string;
  logIndex: number;
  payer: string;
  payTo: string;
  amount: string;
  at: Date;
  /** "pending" (a transfer to a tracked seller: its transaction is read later) or "skip"; see the schema. */
  kind?: string;
}

/** Transfers from one payer to one address of one amount, of one kind and sender, in a window: what rollups are made of. */
export interface TransferGroup {
  payTo: string;
  payer: string;
  amount: string;
  kind: string;
  sender: string | null;
  count: number;
  firstAt: Date;
  lastAt: Date;
}

/** A transfer to a seller whose transaction is not read yet. */
export interface PendingTransfer {
  id: string;
  txHash: string;
  logIndex: number;
  payer: string;
  payTo: string;
  amount: string;
}

/** A live third-party listing, as the rollup needs it. */
export interface LiveListing {
  id: string;
  /** Lowercase. */
  seller: string;
  priceAtomic: string;
  listedAt: Date;
  expiresAt: Date;
  calls30d: number;
  usageSummary: unknown;
  sellerUsage: unknown;
}

/** The live prices of each seller's listings (lowercase seller): what a sale to the seller can be. */
export type SellerPrices = Map<string, ReadonlySet<string>>;

/**
 * What the usage indexer keeps between passes: the sellers (with their earliest listing) and their
 * live prices, not the listings themselves (at 100k listings those were ~100 MB of objects).
 */
export interface SellerBook {
  /** Each seller's earliest live listing, epoch ms (not a Date: 96 bytes each, 7.7 MB at 80,000 sellers). */
  earliest: Map<string, number>;
  /** The earliest of them (Infinity with no seller). */
  firstListedAt: number;
  prices: SellerPrices;
  /** When the first of these listings expires (ms): the book is read again then. */
  nextExpiry: number;
}

/** What one listing's published usage becomes. */
export interface UsageUpdate {
  id: string;
  calls30d: number;
  usageSummary: Prisma.InputJsonObject;
  sellerUsage: Prisma.InputJsonObject | null;
}

/** Where a chunk of reading moves things, written with its transfers. */
export interface RangeCommit {
  transfers: TransferRow[];
  /** The sellers read in this chunk and the block they are now read to. */
  sellers: string[];
  coveredTo: bigint;
  /** The new checkpoint, when the chunk was the forward read of every in-step seller. */
  checkpoint?: { blockNumber: bigint; blockHash: string } | undefined;
  /** Other cursors (full ChainCheckpoint names: funding reads) now at coveredTo. */
  cursors?: string[];
}
