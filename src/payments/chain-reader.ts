// Read-only chain access for the reconciler: has an EIP-3009 authorization been used, and by which
// transaction, or was it canceled?
import { createPublicClient, http, parseAbiItem, type Address, type Hex, type PublicClient } from "viem";
import { testUsdcAbi } from "../chain/contracts.js";
import { chainForRpc } from "../chain/viem-chain.js";

const AUTHORIZATION_USED = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
const AUTHORIZATION_CANCELED = parseAbiItem("event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)");

export type AuthorizationOnChain =
  /** Used: the transfer happened. `txHash` is null when its event lies beyond the lookback window. */
  | { state: "used"; txHash: Hex | null }
  | { state: "canceled" }
  /** Not used (yet), as of the latest block, whose time is `chainTime`. */
  | { state: "unused"; chainTime: Date };

export interface ChainReader {
  authorization(asset: Address, payer: Address, nonce: Hex): Promise<AuthorizationOnChain>;
}

export function createChainReader(rpcUrl: string, lookbackBlocks: number): ChainReader {
  const client: PublicClient = createPublicClient({ chain: chainForRpc(rpcUrl), transport: http(rpcUrl, { timeout: 10_000 }) });

  const findEvent = async (event: typeof AUTHORIZATION_USED | typeof AUTHORIZATION_CANCELED, asset: Address, payer: Address, nonce: Hex) => {
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    const fromBlock = latest > BigInt(lookbackBlocks) ? latest - BigInt(lookbackBlocks) : 0n;
    try {
      const logs = await client.getLogs({ address: asset, event, args: { authorizer: payer, nonce }, fromBlock, toBlock: "latest" });
      return logs[0] ?? null;
    } catch {
      // Some nodes refuse wide log ranges; the state read alone still decides.
      return null;
    }
  };

  return {
    async authorization(asset, payer, nonce) {
      const used = await client.readContract({ address: asset, abi: testUsdcAbi, functionName: "authorizationState", args: [payer, nonce] });
      if (!used) {
        const block = await client.getBlock({ blockTag: "latest" });
        return { state: "unused", chainTime: new Date(Number(block.timestamp) * 1000) };
      }
      const transfer = await findEvent(AUTHORIZATION_USED, asset, payer, nonce);
      if (transfer) return { state: "used", txHash: transfer.transactionHash };
      if (await findEvent(AUTHORIZATION_CANCELED, asset, payer, nonce)) return { state: "canceled" };
      return { state: "used", txHash: null };
    },
  };
}
