// The usage service: the indexer on the configured chain (CHAIN_RPC_URL, else the embedded local
// chain; none: no indexer, the published usage stays as it is), for its background job (job.ts), and the reads
// GET /listings/{id} needs (the daily history, the indexer's lag).
import type { Address, Transport } from "viem";
import type { UsageConfig } from "../config.js";
import type { Logger } from "../logger.js";
import type { Listing } from "../storage/listing-types.js";
import { USAGE_CHECKPOINT, USAGE_HEAD, type UsageStore } from "./usage-store.js";
import { createUsageChain } from "./chain-source.js";
import { UsageIndexer } from "./indexer.js";
import { listingHistory } from "./history.js";
import type { UsageDay } from "./rollup.js";

/** Confirmations when USAGE_CONFIRMATIONS is not set: the embedded chain mines a block per transaction and nothing else reorgs it. */
export const EMBEDDED_CONFIRMATIONS = 0;
/** Elsewhere (Base: 2 s blocks): about 24 s behind the head. */
export const DEFAULT_CONFIRMATIONS = 12;

/** Where the indexer stands, as GET /listings/{id} shows it. */
export interface UsageIndexerState {
  currentToBlock: string;
  headBlock: string;
  lagBlocks: number;
  checkedAt: string;
}

export interface UsageService {
  /** The indexer its background job (job.ts) runs; null when no chain is configured. */
  indexer: UsageIndexer | null;
  /** A live listing's wash-filtered sales per UTC day, 30 days, oldest first ([] before its seller is indexed). */
  history(listing: Listing, now: Date): Promise<UsageDay[]>;
  /** From the database, so every instance shows what the indexing instance last wrote. */
  state(): Promise<UsageIndexerState | null>;
}

export interface UsageServiceOptions {
  /** The usage tables (src/repositories.ts). */
  store: UsageStore;
  config: UsageConfig;
  /** CHAIN_RPC_URL, or the embedded chain's; null: no indexer. */
  rpcUrl: string | null;
  embedded: boolean;
  asset: Address;
  marketplace: string;
  logger: Logger;
  now: () => Date;
  transport?: Transport;
}

export function createUsageService(options: UsageServiceOptions): UsageService {
  const { store } = options;
  const marketplace = options.marketplace.toLowerCase();
  let indexer: UsageIndexer | null = null;
  if (options.rpcUrl) {
    const { config } = options;
    indexer = new UsageIndexer({
      store,
      chain: createUsageChain({ asset: options.asset, rpcUrl: options.rpcUrl, transport: options.transport }),
      logger: options.logger,
      now: options.now,
      marketplace,
      confirmations: config.confirmations ?? (options.embedded ? EMBEDDED_CONFIRMATIONS : DEFAULT_CONFIRMATIONS),
      reorgWindowBlocks: config.reorgWindowBlocks,
      maxBlockRange: config.maxBlockRange,
      addressBatch: config.addressBatch,
      catchUpRest: config.catchUpRest,
    });
  } else {
    options.logger.info("usage indexer off: no CHAIN_RPC_URL (and no embedded chain); metadata.usage is not updated");
  }

  return {
    indexer,
    history: (listing, now) => listingHistory(store, listing, marketplace, now),
    async state() {
      const [checkpoint, head] = await Promise.all([store.checkpoint(USAGE_CHECKPOINT), store.checkpoint(USAGE_HEAD)]);
      if (!checkpoint || !head) return null;
      const lag = head.blockNumber > checkpoint.blockNumber ? head.blockNumber - checkpoint.blockNumber : 0n;
      return {
        currentToBlock: checkpoint.blockNumber.toString(),
        headBlock: head.blockNumber.toString(),
        lagBlocks: Number(lag),
        checkedAt: head.updatedAt.toISOString(),
      };
    },
  };
}
