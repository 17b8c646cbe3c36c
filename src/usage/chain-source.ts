// The indexer's view of the chain: the head, a block's hash and time, and the payment token's
// Transfer logs to or from a batch of addresses over a block range (one eth_getLogs per batch and
// direction; the addresses go in the topic filter, so the node returns only what we track), and what
// a transaction showed: who sent it and which transfers an EIP-3009 authorization paid.
import {
  createPublicClient,
  http,
  parseAbiItem,
  toEventSelector,
  type Address,
  type Hex,
  type PublicClient,
  type Transport,
} from "viem";
import { chainForRpc } from "../chain/viem-chain.js";
import type { TransferRow } from "./usage-store.js";

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const TRANSFER_TOPIC = toEventSelector(TRANSFER);
const AUTHORIZATION_USED_TOPIC = toEventSelector(
  parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)"),
);
/** Receipts asked for in one JSON-RPC batch. */
const RECEIPT_BATCH = 50;

/** What one transaction showed: its sender and the Transfer logs an authorization paid. */
export interface TxFacts {
  /** Lowercase tx.from. */
  sender: string;
  /**
   * Log indexes of the token's Transfer logs that directly follow the token's
   * AuthorizationUsed(authorizer) with authorizer = the Transfer's from: what
   * transferWithAuthorization (EIP-3009, the x402 exact scheme) emits.
   */
  authorized: Set<number>;
}

export interface BlockRef {
  number: bigint;
  hash: string;
  /** Unix seconds. */
  timestamp: number;
}

export interface UsageChain {
  head(): Promise<bigint>;
  /** null when the chain has no such block (yet, or any more after a reorg). */
  block(number: bigint): Promise<BlockRef | null>;
  /** Transfer logs of the token in [fromBlock, toBlock] whose `to` (or `from`) is one of `addresses`. */
  transfers(
    range: { fromBlock: bigint; toBlock: bigint },
    direction: "to" | "from",
    addresses: Address[],
  ): Promise<TransferRow[]>;
  /** One receipt per transaction (batched); a transaction the node does not know (yet) is missing from the map. */
  transactions(hashes: string[]): Promise<Map<string, TxFacts>>;
}

export interface UsageChainOptions {
  asset: Address;
  rpcUrl: string;
  /** Another transport (the benchmark counts RPC calls through one). */
  transport?: Transport;
}

export function createUsageChain(options: UsageChainOptions): UsageChain {
  const client: PublicClient = createPublicClient({
    chain: chainForRpc(options.rpcUrl),
    transport: options.transport ?? http(options.rpcUrl, { timeout: 30_000, retryCount: 2 }),
  });
  // Receipts in JSON-RPC batches: one request carries many (each still counts as a call at the node).
  const receiptClient: PublicClient = options.transport
    ? client
    : createPublicClient({
        chain: chainForRpc(options.rpcUrl),
        transport: http(options.rpcUrl, { timeout: 30_000, retryCount: 2, batch: { batchSize: RECEIPT_BATCH } }),
      });
  const asset = options.asset.toLowerCase();
  const timestamps = new Map<bigint, number>();

  const block = async (number: bigint): Promise<BlockRef | null> => {
    try {
      const found = await client.getBlock({ blockNumber: number });
      timestamps.set(number, Number(found.timestamp));
      if (timestamps.size > 10_000) timestamps.clear();
      return { number, hash: found.hash, timestamp: Number(found.timestamp) };
    } catch (error) {
      if ((error as Error).name === "BlockNotFoundError") return null;
      throw error;
    }
  };

  /** Block times the logs did not carry (nodes before the `blockTimestamp` log field), a few blocks at a time. */
  const timesOf = async (numbers: bigint[]): Promise<void> => {
    const missing = [...new Set(numbers)].filter((number) => !timestamps.has(number));
    for (let index = 0; index < missing.length; index += 16) {
      const found = await Promise.all(missing.slice(index, index + 16).map(block));
      if (found.some((ref) => ref === null))
        throw new Error("a block named by a log is gone (reorg in progress); the range is read again next pass");
    }
  };

  return {
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    block,
    async transfers(range, direction, addresses) {
      const logs = await client.getLogs({
        address: options.asset,
        event: TRANSFER,
        args: direction === "to" ? { to: addresses } : { from: addresses },
        fromBlock: range.fromBlock,
        toBlock: range.toBlock,
        strict: true,
      });
      for (const log of logs)
        if (log.blockTimestamp !== undefined && log.blockTimestamp !== null)
          timestamps.set(log.blockNumber, Number(log.blockTimestamp));
      await timesOf(logs.map((log) => log.blockNumber));
      return logs.map((log) => ({
        id: `${log.transactionHash}:${log.logIndex}`,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        payer: log.args.from.toLowerCase(),
        payTo: log.args.to.toLowerCase(),
        amount: log.args.value.toString(),
        at: new Date(timestamps.get(log.blockNumber)! * 1000),
      }));
    },
    async transactions(hashes) {
      const facts = new Map<string, TxFacts>();
      const receipts = await Promise.all(
        hashes.map((hash) =>
          receiptClient.getTransactionReceipt({ hash: hash as Hex }).catch((error: Error) => {
            if (error.name === "TransactionReceiptNotFoundError") return null;
            throw error;
          }),
        ),
      );
      for (const receipt of receipts) {
        if (!receipt) continue;
        const authorized = new Set<number>();
        const logs = receipt.logs.filter((log) => log.address.toLowerCase() === asset);
        for (let index = 0; index + 1 < logs.length; index++) {
          const authorization = logs[index]!;
          const transfer = logs[index + 1]!;
          if (authorization.topics[0] !== AUTHORIZATION_USED_TOPIC || transfer.topics[0] !== TRANSFER_TOPIC) continue;
          if (transfer.logIndex !== authorization.logIndex + 1) continue;
          if (topicAddress(authorization.topics[1]) !== topicAddress(transfer.topics[1])) continue;
          authorized.add(transfer.logIndex);
        }
        facts.set(receipt.transactionHash, { sender: receipt.from.toLowerCase(), authorized });
      }
      return facts;
    },
  };
}

const topicAddress = (topic: string | undefined) => (topic ? `0x${topic.slice(-40).toLowerCase()}` : null);
