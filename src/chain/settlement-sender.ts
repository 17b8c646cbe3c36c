// How the settler account sends transactions and waits for them, so that concurrent settlements
// from many payers go out in parallel: gas and fees are estimated concurrently (a settlement that
// would revert fails there, before it takes a nonce), and only "take the next nonce, sign, send"
// runs one at a time. The nonce is the node's pending count, read inside that turn, never a counter
// of our own: a broadcast whose answer was lost is in that count if the node has it, and a dropped
// one leaves no gap that would keep every later transaction from being mined.
import {
  hashTypedData,
  TransactionReceiptNotFoundError,
  WaitForTransactionReceiptTimeoutError,
  type Account,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type PublicActions,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from "viem";
import { RECENT_SEND_LIMIT, RECENT_SEND_MS } from "../constants.js";

type SettlerWallet = WalletClient<Transport, Chain, Account> & PublicActions<Transport, Chain>;

/** Runs the given steps one after another, in call order; a failed step does not stop the next. */
function oneAtATime(): <T>(step: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve();
  return (step) => {
    const result = queue.then(step, step);
    queue = result.catch(() => undefined);
    return result;
  };
}

export interface SettlementSender {
  sendTransaction(args: { to: Address; data?: Hex; gas?: bigint }): Promise<Hash>;
  waitForTransactionReceipt(args: { hash: Hash; timeout?: number }): Promise<TransactionReceipt>;
}

export function createSettlementSender(wallet: SettlerWallet, pollingIntervalMs: number): SettlementSender {
  const inTurn = oneAtATime();
  const recentlySent = new Map<string, number>();
  const account = wallet.account;
  const serializer = wallet.chain.serializers?.transaction;
  return {
    async sendTransaction({ to, data, gas }) {
      const prepared = await wallet.prepareTransactionRequest({
        account,
        chain: wallet.chain,
        to,
        data,
        gas,
        parameters: ["chainId", "fees", "gas", "type"],
      });
      const kind = (data ?? "0x").slice(0, 2 + 8 + 64);
      return inTurn(async () => {
        // A send like one just made (same function, same first argument: for a transfer with
        // authorization, the same payer) may now revert: estimated again, it fails here, unsent,
        // rather than on chain with the gas burned.
        if ((recentlySent.get(kind) ?? 0) > Date.now()) await wallet.estimateGas({ account, to, data });
        const nonce = await wallet.getTransactionCount({ address: account.address, blockTag: "pending" });
        const { account: _account, parameters: _parameters, ...request } = prepared as typeof prepared & { parameters?: unknown };
        const serializedTransaction = await account.signTransaction!({ ...request, nonce } as Parameters<NonNullable<Account["signTransaction"]>>[0], {
          serializer,
        });
        recentlySent.set(kind, Date.now() + RECENT_SEND_MS);
        if (recentlySent.size > RECENT_SEND_LIMIT) recentlySent.delete(recentlySent.keys().next().value!);
        return wallet.sendRawTransaction({ serializedTransaction });
      });
    },
    // One receipt read at once (the local chain mines on submission), then one per polling interval:
    // no block-number watcher per settlement as viem's wait runs.
    async waitForTransactionReceipt({ hash, timeout }) {
      const deadline = timeout === undefined ? Infinity : Date.now() + timeout;
      for (;;) {
        try {
          return await wallet.getTransactionReceipt({ hash });
        } catch (error) {
          if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
        }
        if (Date.now() + pollingIntervalMs > deadline) throw new WaitForTransactionReceiptTimeoutError({ hash });
        await new Promise((resolve) => setTimeout(resolve, pollingIntervalMs));
      }
    },
  };
}

/**
 * verifyTypedData that recovers an EOA's signature locally first (viem's default asks the node to
 * run the ERC-6492 validator, a round trip per check) and remembers signatures it found valid for a
 * while: verify and settle each check the same authorization, and only a valid one is remembered.
 */
export function rememberingTypedDataVerifier(wallet: SettlerWallet, rememberMs: number, limit: number) {
  const valid = new Map<string, number>();
  return async (args: Parameters<SettlerWallet["verifyTypedData"]>[0]): Promise<boolean> => {
    const signature = typeof args.signature === "string" ? args.signature : null;
    const key = signature && `${args.address.toLowerCase()}:${hashTypedData(args as Parameters<typeof hashTypedData>[0])}:${signature}`;
    const now = Date.now();
    if (key && (valid.get(key) ?? 0) > now) return true;
    const ok = await wallet.verifyTypedData({ ...args, mode: "eoa" } as typeof args);
    if (ok && key) {
      if (valid.size >= limit) for (const [k, until] of valid) if (until <= now || valid.size >= limit) valid.delete(k);
      valid.set(key, now + rememberMs);
    }
    return ok;
  };
}

/**
 * getCode that remembers an address's code for a while. The SDK asks for the payer's code four times
 * per payment (ERC-6492 classification and the signature check, in verify and again in settle); one
 * read serves them all. The code only chooses between an ECDSA recovery and an ERC-1271 call for our
 * own check: the token contract checks the signature again when the transfer runs, so a stale answer
 * can never move money. Only answers are remembered: a failed read fails the request that made it
 * (its RPC trace sees the fault), and the next one reads again.
 */
export function rememberingCodeReader(wallet: Pick<SettlerWallet, "getCode">, rememberMs: number, limit: number) {
  const known = new Map<string, { until: number; code: Hex | undefined }>();
  return async (args: { address: Address }): Promise<Hex | undefined> => {
    const key = args.address.toLowerCase();
    const remembered = known.get(key);
    if (remembered && remembered.until > Date.now()) return remembered.code;
    const code = await wallet.getCode({ address: args.address });
    const now = Date.now();
    if (known.size >= limit) for (const [k, entry] of known) if (entry.until <= now || known.size >= limit) known.delete(k);
    known.set(key, { until: now + rememberMs, code });
    return code;
  };
}
