import { defineChain, type Chain } from "viem";
import { MULTICALL3_ADDRESS } from "./contracts.js";
import { CHAIN_ID } from "../constants.js";

/** A plain viem chain for any node URL (default id 8453), with Multicall3 at its canonical address. */
export function chainForRpc(rpcUrl: string, chainId: number = CHAIN_ID): Chain {
  return defineChain({
    id: chainId,
    name: chainId === CHAIN_ID ? "Base (via custom RPC)" : `Chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
}
