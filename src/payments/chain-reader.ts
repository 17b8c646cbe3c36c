// Read-only chain access: did THIS EIP-3009 authorization move exactly the fee to the marketplace
// wallet? `authorizationState(payer, nonce)` alone cannot say: nonces are per payer, so the payer
// can burn a nonce with another authorization (a 0-value transfer to itself, say). The proof is
// the receipt of the transaction that used (payer, nonce): its AuthorizationUsed log, and the
// token's Transfer log right after it, from the payer to the wallet for exactly the fee.
import {
  createPublicClient,
  decodeEventLog,
  http,
  isAddressEqual,
  parseAbi,
  type Address,
  type Hex,
  type Log,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { testUsdcAbi } from "../chain/contracts.js";
import { chainForRpc } from "../chain/viem-chain.js";

const TOKEN_EVENTS = parseAbi([
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);
const [AUTHORIZATION_USED, AUTHORIZATION_CANCELED] = TOKEN_EVENTS;

/** One listing fee, as the payer authorized it. */
export interface FeeAuthorization {
  asset: Address;
  payer: Address;
  nonce: Hex;
  /** The marketplace wallet. */
  payTo: Address;
  /** Atomic units. */
  amount: bigint;
}

export type FeeEvidence =
  /** The authorization's own transfer paid exactly the fee to the wallet in `txHash`. */
  | { state: "paid"; txHash: Hex }
  /** The nonce was used by a transfer that did not pay the fee (burned by another authorization). */
  | { state: "spent_elsewhere"; txHash: Hex }
  | { state: "canceled" }
  /** Not used (yet), as of the latest block, whose time is `chainTime`. */
  | { state: "unused"; chainTime: Date }
  /** Used, but the transaction lies beyond the lookback window: nothing can be proven either way. */
  | { state: "untraceable" };

export interface ChainReader {
  /** What the chain says of a fee; `hint` is a transaction said to have settled it (checked, not trusted). */
  feeEvidence(fee: FeeAuthorization, hint?: string): Promise<FeeEvidence>;
}

function decoded(log: Log) {
  try {
    return decodeEventLog({ abi: TOKEN_EVENTS, data: log.data, topics: log.topics, strict: true });
  } catch {
    return null;
  }
}

/**
 * Judges one receipt: null when it does not use (payer, nonce); otherwise paid or spent elsewhere,
 * by the token's Transfer log that immediately follows the AuthorizationUsed log (the order
 * FiatToken's transferWithAuthorization and receiveWithAuthorization emit them in).
 */
export function judgeReceipt(
  receipt: { status: string; logs: readonly Log[]; transactionHash: Hex },
  fee: FeeAuthorization,
): FeeEvidence | null {
  if (receipt.status !== "success") return null;
  const events = receipt.logs.filter((log) => isAddressEqual(log.address, fee.asset)).map(decoded);
  const used = events.findIndex(
    (event) =>
      event?.eventName === "AuthorizationUsed" &&
      isAddressEqual(event.args.authorizer, fee.payer) &&
      event.args.nonce.toLowerCase() === fee.nonce.toLowerCase(),
  );
  if (used < 0) return null;
  const transfer = events[used + 1];
  const paysTheFee =
    transfer?.eventName === "Transfer" &&
    isAddressEqual(transfer.args.from, fee.payer) &&
    isAddressEqual(transfer.args.to, fee.payTo) &&
    transfer.args.value === fee.amount;
  return paysTheFee
    ? { state: "paid", txHash: receipt.transactionHash }
    : { state: "spent_elsewhere", txHash: receipt.transactionHash };
}

export function createChainReader(rpcUrl: string, lookbackBlocks: number): ChainReader {
  // Batched: the receipts of many settlements confirmed together are read in one HTTP request.
  const client: PublicClient = createPublicClient({
    chain: chainForRpc(rpcUrl),
    transport: http(rpcUrl, { timeout: 10_000, batch: true }),
  });

  const receiptOf = async (hash: Hex): Promise<TransactionReceipt | null> => {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (error) {
      if ((error as Error).name === "TransactionReceiptNotFoundError") return null;
      throw error;
    }
  };

  const firstEvent = async (
    event: typeof AUTHORIZATION_USED | typeof AUTHORIZATION_CANCELED,
    fee: FeeAuthorization,
  ) => {
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    const fromBlock = latest > BigInt(lookbackBlocks) ? latest - BigInt(lookbackBlocks) : 0n;
    const logs = await client.getLogs({
      address: fee.asset,
      event,
      args: { authorizer: fee.payer, nonce: fee.nonce },
      fromBlock,
      toBlock: "latest",
    });
    return logs[0] ?? null;
  };

  return {
    async feeEvidence(fee, hint) {
      if (hint && /^0x[0-9a-fA-F]{64}$/.test(hint)) {
        const receipt = await receiptOf(hint as Hex);
        const judged = receipt && judgeReceipt(receipt, fee);
        if (judged) return judged;
      }
      const used = await client.readContract({
        address: fee.asset,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [fee.payer, fee.nonce],
      });
      if (!used) {
        const block = await client.getBlock({ blockTag: "latest" });
        return { state: "unused", chainTime: new Date(Number(block.timestamp) * 1000) };
      }
      const usedLog = await firstEvent(AUTHORIZATION_USED, fee);
      if (usedLog) {
        const receipt = await receiptOf(usedLog.transactionHash);
        const judged = receipt && judgeReceipt(receipt, fee);
        if (judged) return judged;
        throw new Error(`the receipt of ${usedLog.transactionHash} is not available yet`);
      }
      if (await firstEvent(AUTHORIZATION_CANCELED, fee)) return { state: "canceled" };
      return { state: "untraceable" };
    },
  };
}
