// The indexer's view of the chain: the head, a block's hash and time, and the payment token's
// Transfer logs to or from a batch of addresses over a block range (one eth_getLogs per batch and
// direction; the addresses go in the topic filter, so the node returns only what we track).
import { createPublicClient, http, parseAbiItem, type Address, type PublicClient, type Transport } from "viem";
import { chainForRpc } from "../chain/viem-chain.js";
import type { TransferRow } from "../storage/usage-store.js";

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

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
  transfers(range: { fromBlock: bigint; toBlock: bigint }, direction: "to" | "from", addresses: Address[]): Promise<TransferRow[]>;
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
      if (found.some((ref) => ref === null)) throw new Error("a block named by a log is gone (reorg in progress); the range is read again next pass");
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
      for (const log of logs) if (log.blockTimestamp !== undefined && log.blockTimestamp !== null) timestamps.set(log.blockNumber, Number(log.blockTimestamp));
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
  };
}
