import { createNonceManager, type NonceManager } from "viem";
import { getTransactionCount } from "viem/actions";

/**
 * A nonce manager of its own for one signing account. viem's shared `nonceManager` remembers the last
 * nonce per (address, chain id) for the life of the process, so after a restarted local chain (same
 * keys, same id 8453) it hands out a nonce above the node's and the transaction never gets mined.
 */
export function createPendingNonceManager(): NonceManager {
  return createNonceManager({
    source: {
      get: ({ address, client }) => getTransactionCount(client, { address, blockTag: "pending" }),
      set: () => {},
    },
  });
}
