// Settlements waiting for the settler's turn go out together: one pending-nonce read, consecutive
// nonces, one JSON-RPC batch. A broadcast the node refuses in the middle of a turn must not hold the
// later ones back (a nonce gap keeps every later transaction of the account from being mined): the
// unused nonce is taken by a transfer of nothing to the settler itself. Real anvil chain, behind the
// fault-injecting proxy.
import { createWalletClient, http, publicActions, type Hash, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { createSettlementSender, type SettlementSender } from "../../src/chain/settlement-sender.js";
import { startRpcProxy, type RpcProxy } from "../support/rpc-proxy.js";

let chain: LocalChain;
let proxy: RpcProxy;
let sender: SettlementSender;
let settler: `0x${string}`;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 1 });
  proxy = await startRpcProxy(chain.rpcUrl);
  const account = privateKeyToAccount(chain.settler.privateKey);
  settler = account.address;
  const wallet = createWalletClient({
    account,
    chain: chain.chain,
    transport: http(proxy.url, { batch: true }),
    pollingInterval: 50,
  }).extend(publicActions);
  sender = createSettlementSender(wallet, 50);
});

afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
});

/** A call to an account without code, with a distinct first argument (as each payer's settlement has). */
const settlementLike = (i: number) => ({
  to: chain.marketplacePayTo,
  data: `0x12345678${i.toString(16).padStart(64, "0")}` as Hex,
});

it("mines every settlement after one the node refused in the middle of a turn", async () => {
  const nonceBefore = await chain.publicClient.getTransactionCount({ address: settler });
  proxy.inject("eth_sendRawTransaction", { kind: "refuse-first-of-broadcasts" });
  // The first send takes a turn alone; the next three wait for it and go out together.
  const first = sender.sendTransaction(settlementLike(1));
  const rest = [2, 3, 4].map((i) => sender.sendTransaction(settlementLike(i)));
  const outcomes = await Promise.allSettled([first, ...rest]);

  expect(proxy.pending()).toBe(0);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
  const hashes = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value as Hash] : []));
  const receipts = await Promise.all(hashes.map((hash) => sender.waitForTransactionReceipt({ hash, timeout: 10_000 })));
  expect(receipts.map((receipt) => receipt.status)).toEqual(["success", "success", "success"]);
  // The three settlements and the transfer that took the refused one's nonce.
  expect(await chain.publicClient.getTransactionCount({ address: settler })).toBe(nonceBefore + 4);
  // The account is not stuck: the next settlement is mined.
  const next = await sender.sendTransaction(settlementLike(5));
  expect((await sender.waitForTransactionReceipt({ hash: next, timeout: 10_000 })).status).toBe("success");
});
