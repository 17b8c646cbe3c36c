// How the settler account sends transactions and waits for them, so that concurrent settlements
// from many payers go out in parallel: gas and fees are estimated concurrently (a settlement that
// would revert fails there, before it takes a nonce), and only "take the next nonce, sign, send"
// runs in turns. A turn takes every settlement waiting, reads the node's pending count once, signs
// them with consecutive nonces and broadcasts them together; those arriving meanwhile wait for the
// next turn, which reads the count again. The nonce is always that count plus what the turn signed,
// never a counter of our own across turns: a broadcast whose answer was lost is in the count if the
// node has it, and a dropped one leaves no gap that would keep every later transaction from being
// mined. A broadcast refused below one the node took would leave such a gap: it is filled (fillGap).
import { AsyncResource } from "node:async_hooks";
import { LRUCache } from "lru-cache";
import {
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

export interface SettlementSender {
  sendTransaction(args: { to: Address; data?: Hex; gas?: bigint }): Promise<Hash>;
  waitForTransactionReceipt(args: { hash: Hash; timeout?: number }): Promise<TransactionReceipt>;
}

type SignableRequest = Parameters<NonNullable<Account["signTransaction"]>>[0];

/** A prepared settlement waiting for its turn; `inContext` runs a step in its caller's async context (RPC traces). */
interface WaitingSend {
  request: Omit<SignableRequest, "nonce">;
  to: Address;
  data: Hex | undefined;
  /** Function and first argument (for a transfer with authorization, the payer). */
  kind: string;
  inContext<T>(step: () => Promise<T>): Promise<T>;
  resolve(hash: Hash): void;
  reject(error: unknown): void;
}

export function createSettlementSender(wallet: SettlerWallet, pollingIntervalMs: number): SettlementSender {
  const recentlySent = new Map<string, number>();
  const account = wallet.account;
  const serializer = wallet.chain.serializers?.transaction;
  const waiting: WaitingSend[] = [];
  let turning = false;

  const isRecent = (kind: string) => (recentlySent.get(kind) ?? 0) > Date.now();

  /** Signs one settlement with the given nonce, in its caller's context. */
  const sign = (next: WaitingSend, nonce: number) =>
    next.inContext(async () => {
      // A send like one just made (same function, same first argument: for a transfer with
      // authorization, the same payer) may now revert: estimated again, it fails here, unsent,
      // rather than on chain with the gas burned.
      if (isRecent(next.kind)) await wallet.estimateGas({ account, to: next.to, data: next.data });
      const signed = await account.signTransaction!({ ...next.request, nonce } as SignableRequest, { serializer });
      recentlySent.set(next.kind, Date.now() + RECENT_SEND_MS);
      if (recentlySent.size > RECENT_SEND_LIMIT) recentlySent.delete(recentlySent.keys().next().value!);
      return signed;
    });

  /**
   * A nonce left unused below one the node accepted (its send was refused, or its answer lost and
   * the node may not have it) would hold every later transaction back: a transfer of nothing to
   * ourselves takes it. If the node has the lost one, it refuses this copy, which is what we want.
   */
  const fillGap = (failed: WaitingSend, nonce: number) =>
    failed
      .inContext(async () => {
        const filler = {
          ...failed.request,
          to: account.address,
          data: undefined,
          value: 0n,
          gas: 21_000n,
          nonce,
        } as SignableRequest;
        await wallet.sendRawTransaction({
          serializedTransaction: await account.signTransaction!(filler, { serializer }),
        });
      })
      .catch(() => undefined);

  /**
   * One turn: the node's pending count once, then the waiting settlements signed with consecutive
   * nonces and broadcast together (one JSON-RPC batch). A settlement like one already in this turn
   * (same payer) waits for the next turn, so its estimate sees that one's effect.
   */
  const turn = async (sends: WaitingSend[]) => {
    let nonce: number;
    try {
      nonce = await sends[0]!.inContext(() =>
        wallet.getTransactionCount({ address: account.address, blockTag: "pending" }),
      );
    } catch (error) {
      sends[0]!.reject(error);
      waiting.unshift(...sends.slice(1));
      return;
    }
    const signed: { send: WaitingSend; nonce: number; serializedTransaction: Hex }[] = [];
    const deferred: WaitingSend[] = [];
    for (const next of sends) {
      if (signed.some(({ send }) => send.kind === next.kind)) {
        deferred.push(next);
        continue;
      }
      try {
        signed.push({ send: next, nonce, serializedTransaction: await sign(next, nonce) });
        nonce++;
      } catch (error) {
        next.reject(error);
      }
    }
    waiting.unshift(...deferred);
    const sent = await Promise.allSettled(
      signed.map(({ send, serializedTransaction }) =>
        send.inContext(() => wallet.sendRawTransaction({ serializedTransaction })),
      ),
    );
    const lastAccepted = sent.map((outcome) => outcome.status).lastIndexOf("fulfilled");
    for (const [index, outcome] of sent.entries()) {
      const { send, nonce } = signed[index]!;
      if (outcome.status === "fulfilled") {
        send.resolve(outcome.value);
        continue;
      }
      send.reject(outcome.reason);
      if (index < lastAccepted) await fillGap(send, nonce);
    }
  };

  const takeTurns = async () => {
    if (turning) return;
    turning = true;
    try {
      while (waiting.length) await turn(waiting.splice(0));
    } finally {
      turning = false;
    }
  };

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
      const {
        account: _account,
        parameters: _parameters,
        ...request
      } = prepared as typeof prepared & { parameters?: unknown };
      return new Promise<Hash>((resolve, reject) => {
        const inContext = AsyncResource.bind(<T>(step: () => Promise<T>) => step());
        waiting.push({
          request: request as WaitingSend["request"],
          to,
          data,
          kind: (data ?? "0x").slice(0, 2 + 8 + 64),
          inContext,
          resolve,
          reject,
        });
        void takeTurns();
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
 * getCode that remembers an address's code for a while. The SDK asks for the payer's code four times
 * per payment (ERC-6492 classification and the signature check, in verify and again in settle); one
 * read serves them all. The code only chooses between an ECDSA recovery and an ERC-1271 call for our
 * own check: the token contract checks the signature again when the transfer runs, so a stale answer
 * can never move money. Only answers are remembered: a failed read fails the request that made it
 * (its RPC trace sees the fault), and the next one reads again.
 */
export function rememberingCodeReader(wallet: Pick<SettlerWallet, "getCode">, rememberMs: number, limit: number) {
  const known = new LRUCache<string, { code: Hex | undefined }>({ max: limit, ttl: rememberMs });
  return async (args: { address: Address }): Promise<Hex | undefined> => {
    const key = args.address.toLowerCase();
    const remembered = known.get(key);
    if (remembered) return remembered.code;
    const code = await wallet.getCode({ address: args.address });
    known.set(key, { code });
    return code;
  };
}
