// The money path against a hostile world: a payer who burns its own nonce while we probe or settle,
// a chain node that fails, loses answers or drops broadcasts (through a fault-injecting JSON-RPC
// proxy in front of a real anvil chain), and a stranger paying to rewrite a seller's listing.
// Money moves only on the chain's evidence, exactly once; replies never carry upstream text.
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { parseSignature } from "viem";
import { createTestClient, createWalletClient, http, parseAbi, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { reconcilePending } from "../../src/listing/reconciler.js";
import { createLogger } from "../../src/logger.js";
import { createInProcessFacilitator } from "../../src/payments/facilitator.js";
import type { Payments } from "../../src/payments/setup.js";
import { handSignedHeader, handSignedPayload, paymentKeyOf, selfSettledPayments } from "../support/payments.js";
import { startRpcProxy, type RpcProxy } from "../support/rpc-proxy.js";
import {
  actingOnceWhenProbed,
  challenge,
  challengeAnswer,
  requirement,
  SELLER_PAY_TO,
  startSeller,
  type Seller,
  type SellerAnswer,
} from "../support/sellers.js";
import type { TestServer } from "../support/server.js";
import { startFeeMarket, type FeeMarket } from "../support/fee-market.js";

const SELLER = SELLER_PAY_TO;
const logger = createLogger("silent");
const transferWithAuthorization = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
]);

let chain: LocalChain;
let proxy: RpcProxy;
let payments: Payments;
let market: FeeMarket;
let server: TestServer;
let seller: Seller;
let fee: PaymentRequirements;
let honest: () => SellerAnswer;
/** When set, the facilitator claims every settlement succeeded with this transaction, settling nothing. */
let claimedTransaction: Hex | undefined;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 4 });
  proxy = await startRpcProxy(chain.rpcUrl);
  // The settler talks to the chain through the proxy; the chain reader (evidence) talks to it directly.
  const inProcess = createInProcessFacilitator({
    rpcUrl: proxy.url,
    settlerPrivateKey: chain.settler.privateKey,
    chain: chain.chain,
    confirmationTimeoutMs: 1500,
    pollingIntervalMs: 50,
  });
  const facilitator: FacilitatorClient = {
    ...inProcess.client,
    settle: async (payload, requirements) =>
      claimedTransaction
        ? {
            success: true,
            transaction: claimedTransaction,
            network: requirements.network,
            payer: (payload.payload as { authorization: { from: string } }).authorization.from,
          }
        : inProcess.client.settle(payload, requirements),
  };
  payments = await selfSettledPayments(chain, facilitator, inProcess.settlerAddress);
  market = await startFeeMarket(payments);
  ({ server, seller, honest, fee } = market);
});

afterAll(async () => {
  await market?.close();
  await proxy?.close();
  await chain?.stop();
});

beforeEach(() => {
  proxy.clear();
  seller.answer = honest;
  claimedTransaction = undefined;
});

const buyer = (index: number) => chain.buyers[index]!.privateKey;
const listingBody = (path: string, overrides: Record<string, unknown> = {}) => ({
  resource: `${seller.url}${path}`,
  priceUsdc: "0.01",
  description: "A resource for the settlement fault tests.",
  sellerPayTo: SELLER,
  ...overrides,
});
const post = (body: unknown, header: string) =>
  server.fetch("/listings", {
    method: "POST",
    headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
    body: JSON.stringify(body),
  });
const marketBalance = () => chain.balanceOf(chain.marketplacePayTo);
const visible = async () => (await server.contexts.listings.store.counts(new Date())).foreign;
const stored = async (header: string) => server.contexts.listings.store.findPayment(paymentKeyOf(header));
const reconcile = (minutesAhead: number) =>
  reconcilePending({
    store: server.contexts.listings.store,
    chain: payments.chain!,
    logger,
    now: () => new Date(Date.now() + minutesAhead * 60_000),
  });
const freshNonce = () => `0x${randomBytes(32).toString("hex")}` as Hex;

/** The payer spends its own nonce with a 0-value transfer to itself: the nonce is used, no fee moves. */
async function burnNonce(key: Hex, nonce: Hex): Promise<Hex> {
  const payer = privateKeyToAccount(key);
  const payload = await handSignedPayload(key, requirement({ payTo: payer.address, amount: "0", asset: chain.asset }), {
    nonce,
  });
  const { authorization, signature } = payload.payload as { authorization: Record<string, string>; signature: Hex };
  const { v, r, s } = parseSignature(signature);
  const wallet = createWalletClient({ account: payer, chain: chain.chain, transport: http(chain.rpcUrl) });
  const hash = await wallet.writeContract({
    address: chain.asset,
    abi: transferWithAuthorization,
    functionName: "transferWithAuthorization",
    args: [
      payer.address,
      payer.address,
      0n,
      BigInt(authorization.validAfter!),
      BigInt(authorization.validBefore!),
      nonce,
      Number(v),
      r,
      s,
    ],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

/** No reply text or header may carry the node's URL, a raw transaction, library versions or the settler. */
async function expectNoUpstreamText(response: Response): Promise<string> {
  const body = await response.text();
  const headers = [...response.headers.entries()].map(([name, value]) =>
    name === "payment-response" ? JSON.stringify(decodePaymentResponseHeader(value)) : value,
  );
  for (const text of [body, ...headers]) {
    expect(text).not.toContain(new URL(proxy.url).host);
    expect(text).not.toContain(new URL(chain.rpcUrl).host);
    expect(text).not.toMatch(/viem@|Version:|Request Arguments|Raw Call Arguments| {4}at /);
    expect(text).not.toMatch(/0x[0-9a-fA-F]{200,}/); // a signed transaction, not a hash
    expect(text.toLowerCase()).not.toContain(chain.settler.address.toLowerCase());
  }
  return body;
}

describe("a payer who burns its nonce with another authorization", () => {
  it("gets no listing when it burns the nonce while the seller is probed: the settlement fails, nothing is listed", async () => {
    const nonce = freshNonce();
    const header = await handSignedHeader(buyer(0), fee, { nonce });
    const burning = actingOnceWhenProbed(() => burnNonce(buyer(0), nonce), honest);
    seller.answer = burning.answer;
    const before = await marketBalance();
    const response = await post(listingBody("/burn-while-probed"), header);
    const burned = burning.result();
    expect(burned).toBeDefined();
    expect(response.status).toBe(402);
    const body = JSON.parse(await expectNoUpstreamText(response)) as { error: string };
    expect(body.error).toBe("authorization_used_elsewhere");
    expect(decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!)).toMatchObject({
      success: false,
      errorReason: "authorization_used_elsewhere",
      transaction: burned,
    });
    expect(await marketBalance()).toBe(before);
    expect(await visible()).toBe(0);
    const { payment, listing } = (await stored(header))!;
    expect(payment).toMatchObject({ state: "failed", failureReason: "authorization_used_elsewhere" });
    expect(payment.chainCheckedAt).not.toBeNull();
    expect(listing?.state).toBe("failed");
    // Final: the reconciler has nothing left to look at.
    expect(await reconcile(7)).toEqual({ activated: 0, failed: 0, waiting: 0 });
  });

  it("gets no listing from the reconciler when it burns the nonce of a settlement left unconfirmed", async () => {
    const nonce = freshNonce();
    const header = await handSignedHeader(buyer(1), fee, { nonce });
    proxy.inject("eth_sendRawTransaction", { kind: "drop" }, 10); // every attempt of the broadcast dies
    const before = await marketBalance();
    const response = await post(listingBody("/burn-while-pending"), header);
    expect(response.status).toBe(502);
    await expectNoUpstreamText(response);
    expect((await stored(header))!.payment.state).toBe("pending");

    const burned = await burnNonce(buyer(1), nonce);
    expect(await reconcile(7)).toEqual({ activated: 0, failed: 1, waiting: 0 });
    expect(await marketBalance()).toBe(before);
    expect(await visible()).toBe(0);
    expect((await stored(header))!.payment).toMatchObject({
      state: "failed",
      failureReason: "authorization_used_elsewhere",
      txHash: burned,
    });
    expect((await post(listingBody("/burn-while-pending"), header)).status).toBe(409);
  });
});

describe("a chain node that fails", () => {
  it("answers 502 when the node answers 500 during verification, saves nothing, and takes the same payment later", async () => {
    const header = await handSignedHeader(buyer(2), fee);
    proxy.inject("eth_call", { kind: "status", status: 500 }, 10);
    const response = await post(listingBody("/verify-500"), header);
    expect(response.status).toBe(502);
    expect(JSON.parse(await expectNoUpstreamText(response))).toMatchObject({ error: "facilitator_bad_response" });
    expect(await stored(header)).toBeNull();

    proxy.clear();
    const before = await marketBalance();
    const again = await post(listingBody("/verify-500"), header);
    expect(again.status).toBe(200);
    expect(await marketBalance()).toBe(before + 100_000n);
  });

  it("answers 502 when the node refuses us (401) during verification, and saves nothing", async () => {
    const header = await handSignedHeader(buyer(2), fee);
    proxy.inject("eth_call", { kind: "status", status: 401 }, 10);
    const response = await post(listingBody("/verify-401"), header);
    expect(response.status).toBe(502);
    expect(JSON.parse(await expectNoUpstreamText(response))).toMatchObject({ error: "facilitator_bad_response" });
    expect(await stored(header)).toBeNull();
  });

  it("answers 502 when the node fails before the broadcast, releases the payment, and settles it when sent again", async () => {
    const header = await handSignedHeader(buyer(3), fee);
    proxy.inject("eth_estimateGas", { kind: "status", status: 500 }, 10);
    proxy.inject("eth_fillTransaction", { kind: "status", status: 500 }, 10);
    const before = await marketBalance();
    const seen = proxy.methods.length;
    const response = await post(listingBody("/settle-500"), header);
    expect(response.status).toBe(502);
    expect(JSON.parse(await expectNoUpstreamText(response))).toMatchObject({ error: "facilitator_bad_response" });
    expect(proxy.methods.slice(seen)).toContain("eth_estimateGas");
    expect(proxy.methods.slice(seen)).not.toContain("eth_sendRawTransaction");
    expect(await stored(header)).toBeNull();
    expect(await marketBalance()).toBe(before);

    proxy.clear();
    const again = await post(listingBody("/settle-500"), header);
    expect(again.status).toBe(200);
    expect(await marketBalance()).toBe(before + 100_000n);
  });

  it("loses no fee when the broadcast's answer is lost: pending, then active exactly once from the chain", async () => {
    const header = await handSignedHeader(buyer(0), fee);
    proxy.inject("eth_sendRawTransaction", { kind: "lose-answer" });
    const [before, visibleBefore] = [await marketBalance(), await visible()];
    const response = await post(listingBody("/lost-answer"), header);
    expect([502, 503]).toContain(response.status);
    await expectNoUpstreamText(response);
    expect(await marketBalance()).toBe(before + 100_000n); // the node did broadcast it
    expect(await visible()).toBe(visibleBefore);
    expect((await stored(header))!.payment.state).toBe("pending");
    expect((await post(listingBody("/lost-answer"), header)).status).toBe(409);

    expect(await reconcile(0)).toEqual({ activated: 0, failed: 0, waiting: 0 }); // within the grace period
    expect(await reconcile(7)).toEqual({ activated: 1, failed: 0, waiting: 0 });
    expect(await visible()).toBe(visibleBefore + 1);
    const { payment } = (await stored(header))!;
    expect(payment).toMatchObject({ state: "settled" });
    const again = await post(listingBody("/lost-answer"), header);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ transaction: payment.txHash, renewed: false });
    expect(await marketBalance()).toBe(before + 100_000n);
    expect(await reconcile(7)).toEqual({ activated: 0, failed: 0, waiting: 0 });
  });

  it("re-checks a failure recorded without the chain's word, and activates the listing whose fee did arrive", async () => {
    const header = await handSignedHeader(buyer(1), fee);
    proxy.inject("eth_sendRawTransaction", { kind: "lose-answer" });
    const response = await post(listingBody("/failed-but-paid"), header);
    expect([502, 503]).toContain(response.status);
    // What the first version did with a lost answer: it marked the payment failed.
    const { listing } = (await stored(header))!;
    await server.contexts.listings.store.failListing(listing!.id, {
      reason: "transaction_failed",
      chainChecked: false,
      now: new Date(),
    });
    const visibleBefore = await visible();
    expect(await reconcile(7)).toEqual({ activated: 1, failed: 0, waiting: 0 });
    expect(await visible()).toBe(visibleBefore + 1);
    expect((await stored(header))!.payment.state).toBe("settled");
  });

  it("recovers by itself from a broadcast the node accepted and dropped: the next settlement is mined", async () => {
    proxy.inject("eth_sendRawTransaction", { kind: "swallow-broadcast" });
    const dropped = await post(listingBody("/dropped"), await handSignedHeader(buyer(2), fee));
    expect(dropped.status).toBe(503);
    expect(JSON.parse(await expectNoUpstreamText(dropped))).toMatchObject({ error: "settlement_pending" });

    const before = await marketBalance();
    const next = await post(listingBody("/after-the-gap"), await handSignedHeader(buyer(3), fee));
    expect(next.status).toBe(200);
    expect(await marketBalance()).toBe(before + 100_000n);
  });
});

describe("a facilitator that claims a settlement it did not make", () => {
  it("lists nothing on the word of a success whose transaction paid someone else's fee", async () => {
    const honestHeader = await handSignedHeader(buyer(2), fee);
    expect((await post(listingBody("/honest"), honestHeader)).status).toBe(200);
    const anotherFee = (await stored(honestHeader))!.payment.txHash as Hex; // a real transaction, a real 0.10 to us

    claimedTransaction = anotherFee;
    const header = await handSignedHeader(buyer(3), fee);
    const [before, visibleBefore] = [await marketBalance(), await visible()];
    const response = await post(listingBody("/claimed"), header);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: "settlement_pending" });
    expect(await marketBalance()).toBe(before);
    expect(await visible()).toBe(visibleBefore);
    expect((await stored(header))!.payment.state).toBe("pending");
    // The reconciler finds the authorization unused; it fails once the chain passes its expiry.
    expect((await reconcile(7)).activated).toBe(0);
    expect((await stored(header))!.payment.state).toBe("pending");
  });
});

describe("a stranger paying for a seller's live listing", () => {
  it("is refused before anything is charged; the first payer and the sellerPayTo may renew", async () => {
    const sellerAccount = privateKeyToAccount(buyer(3));
    const owned = await startSeller(() =>
      challengeAnswer(challenge([requirement({ payTo: sellerAccount.address, amount: "20000", asset: chain.asset })])),
    );
    try {
      const body = (description: string) => ({
        resource: `${owned.url}/owned`,
        priceUsdc: "0.02",
        description,
        sellerPayTo: sellerAccount.address,
      });
      const first = await post(body("The seller's own description."), await handSignedHeader(buyer(0), fee));
      expect(first.status).toBe(200);
      const { id } = (await first.json()) as { id: string };

      const [balance, probes] = [await marketBalance(), owned.requests.length];
      const stranger = await post(body("DEFACED: this seller is a scam."), await handSignedHeader(buyer(1), fee));
      expect(stranger.status).toBe(403);
      expect(await stranger.json()).toMatchObject({ error: "not_listing_owner" });
      expect(await marketBalance()).toBe(balance);
      expect(owned.requests.length).toBe(probes);
      const search = (await (await server.fetch(`/search?query=${encodeURIComponent(owned.url)}`)).json()) as {
        items: { description: string }[];
      };
      expect(search.items.map((item) => item.description)).toEqual(["The seller's own description."]);

      const bySeller = await post(body("Updated by the seller."), await handSignedHeader(buyer(3), fee));
      expect(bySeller.status).toBe(200);
      expect(await bySeller.json()).toMatchObject({ id, renewed: true });
      const byFirstPayer = await post(body("Updated by the first payer."), await handSignedHeader(buyer(0), fee));
      expect(await byFirstPayer.json()).toMatchObject({ id, renewed: true });
    } finally {
      await owned.close();
    }
  });
});

describe("a broadcast refused with an HTTP error", () => {
  // Last: it moves the chain's clock past every authorization's expiry.
  it("stays pending (never failed on a guess) and fails only once the chain shows the authorization expired unused", async () => {
    const header = await handSignedHeader(buyer(0), fee);
    proxy.inject("eth_sendRawTransaction", { kind: "status", status: 401 }, 10);
    const before = await marketBalance();
    const response = await post(listingBody("/broadcast-401"), header);
    expect(response.status).toBe(502);
    await expectNoUpstreamText(response);
    expect((await stored(header))!.payment.state).toBe("pending");
    // Unused, but the chain is not past the authorization's expiry: it could still be mined.
    // (So do the broadcast dropped by the node and the settlement only claimed, in earlier tests.)
    expect(await reconcile(7)).toEqual({ activated: 0, failed: 0, waiting: 3 });
    expect((await stored(header))!.payment.state).toBe("pending");

    const testClient = createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) });
    await testClient.increaseTime({ seconds: 7 * 60 });
    await testClient.mine({ blocks: 1 });
    expect(await reconcile(7)).toEqual({ activated: 0, failed: 3, waiting: 0 });
    expect((await stored(header))!.payment).toMatchObject({
      state: "failed",
      failureReason: "not_settled_before_expiry",
    });
    expect(await marketBalance()).toBe(before);
  });
});
