// Where the usage indexer stands on the chain, read through UsageChain (chain-source.ts): a block
// that must be there, the last block before a time (a binary search on block times), the fork point
// after a reorg (stored block hashes against the chain's), and the Transfer logs of many sellers in
// address batches. Functions of the chain and the store only: the indexer keeps the state.
import type { Address } from "viem";
import type { BlockRef, UsageChain } from "./chain-source.js";
import type { TransferRow, UsageStore } from "./usage-store.js";

/** Listing time vs block time: a seller is read from a block this much before its listedAt. */
export const CLOCK_SKEW_MS = 5 * 60_000;

export const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
export const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);

/** The Transfer logs to and from `sellers` over [fromBlock, toBlock], `addressBatch` addresses per eth_getLogs. */
export async function transfersOf(
  { chain, addressBatch }: { chain: UsageChain; addressBatch: number },
  sellers: Address[],
  fromBlock: bigint,
  toBlock: bigint,
): Promise<TransferRow[]> {
  const rows: TransferRow[] = [];
  for (let index = 0; index < sellers.length; index += addressBatch) {
    const batch = sellers.slice(index, index + addressBatch);
    const [to, from] = await Promise.all([
      chain.transfers({ fromBlock, toBlock }, "to", batch),
      chain.transfers({ fromBlock, toBlock }, "from", batch),
    ]);
    rows.push(...to, ...from);
  }
  return rows;
}

/**
 * The highest block at or below the old checkpoint whose stored transfers still carry the chain's
 * hash (everything below a matching block is canonical); at most reorgWindowBlocks back.
 */
export async function findFork(
  {
    chain,
    store,
    reorgWindowBlocks,
  }: { chain: UsageChain; store: Pick<UsageStore, "storedBlocks">; reorgWindowBlocks: number },
  checkpoint: bigint,
  head: bigint,
): Promise<{ number: bigint; hash: string }> {
  const floor = maxBig(0n, minBig(checkpoint, head) - BigInt(reorgWindowBlocks));
  let fork = floor;
  for (const stored of await store.storedBlocks(floor, checkpoint)) {
    if (stored.blockNumber > head) continue;
    const onChain = await chain.block(stored.blockNumber);
    if (onChain?.hash === stored.blockHash) {
      fork = stored.blockNumber;
      break;
    }
  }
  const ref = await mustBlock(chain, fork);
  return { number: ref.number, hash: ref.hash };
}

/** The last block whose time is before `time` minus the clock skew (binary search on block times), at most `ceiling`. */
export async function blockBefore(chain: UsageChain, time: Date, ceiling: bigint): Promise<bigint> {
  const target = (time.getTime() - CLOCK_SKEW_MS) / 1000;
  let low = 0n;
  let high = ceiling;
  if ((await mustBlock(chain, high)).timestamp < target) return high;
  while (low < high) {
    const middle = (low + high + 1n) / 2n;
    if ((await mustBlock(chain, middle)).timestamp < target) low = middle;
    else high = middle - 1n;
  }
  return low;
}

/** A block the chain must have: a missing one (a reorg in progress?) fails the pass, which runs again. */
export async function mustBlock(chain: UsageChain, number: bigint): Promise<BlockRef> {
  const ref = await chain.block(number);
  if (!ref) throw new Error(`block ${number} is not on the chain (a reorg in progress?); the pass runs again`);
  return ref;
}
