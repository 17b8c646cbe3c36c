// The branches of POST /listings (src/listing/paid-listing.ts) that only a fault reaches, each
// reached through real HTTP on a local chain by injecting that fault at exactly its step: the
// store failing before any charge or after the fee settled, a payer who empties its wallet or
// cancels its authorization while its seller is probed, and the probe's rate limit.
// Money moves exactly once, or not at all; the same payment sent again gets a definite answer.
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { createWalletClient, erc20Abi, http, parseAbi, parseSignature, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { reconcilePending } from "../../src/listing/reconciler.js";
import { createLogger } from "../../src/logger.js";
import type { Payments } from "../../src/payments/setup.js";
import type { ListingStore } from "../../src/storage/listing/listing-store.js";
import { chainPayments, handSignedHeader, paymentKeyOf } from "../support/payments.js";
import { actingOnceWhenProbed, SELLER_PAY_TO, type Seller, type SellerAnswer } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { PAID_FLOW_ENV, startFeeMarket, type FeeMarket } from "../support/fee-market.js";

const SELLER = SELLER_PAY_TO;
const cancelAuthorization = parseAbi([
  "function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
]);

let chain: LocalChain;
let payments: Payments;
let market: FeeMarket;
let server: TestServer;
let seller: Seller;
let fee: PaymentRequirements;
let honest: () => SellerAnswer;
const restoreStore: Array<() => void> = [];

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 4 });
  payments = await chainPayments(chain);
  market = await startFeeMarket(payments);
  ({ server, seller, honest, fee } = market);
});

afterAll(async () => {
  await market?.close();
  await chain?.stop();
});

afterEach(() => {
  for (const restore of restoreStore.splice(0)) restore();
  seller.answer = honest;
});

const buyer = (index: number) => chain.buyers[index]!;
const listingBody = (path: string) => ({
  resource: `${seller.url}${path}`,
  priceUsdc: "0.01",
  description: "A resource for the paid-flow branch tests.",
  sellerPayTo: SELLER,
});
const post = (body: unknown, header: string, to: TestServer = server) =>
  to.fetch("/listings", {
    method: "POST",
    headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
    body: JSON.stringify(body),
  });
const marketBalance = () => chain.balanceOf(chain.marketplacePayTo);
const visible = async () => (await server.contexts.listings.store.counts(new Date())).foreign;
const stored = (header: string) => server.contexts.listings.store.findPayment(paymentKeyOf(header));
const reconcile = (minutesAhead: number) =>
  reconcilePending({
    store: server.contexts.listings.store,
    chain: payments.chain!,
    logger: createLogger("silent"),
    now: () => new Date(Date.now() + minutesAhead * 60_000),
  });

/** The store's `method` throws (as a database that stopped answering would) the next `times` calls. */
function failStore<K extends "findPayment" | "liveListingFor" | "createPendingListingWithPayment" | "activateListing">(
  method: K,
  times = 1,
) {
  const store = server.contexts.listings.store as ListingStore & Record<K, (...args: unknown[]) => Promise<unknown>>;
  const original = store[method];
  let left = times;
  const calls: number[] = [];
  store[method] = (async (...args: unknown[]) => {
    calls.push(Date.now());
    if (left-- > 0) throw new Error(`injected: ${method} failed`);
    return (original as (...a: unknown[]) => Promise<unknown>).apply(store, args);
  }) as never;
  restoreStore.push(() => {
    delete (store as Partial<Record<K, unknown>>)[method]; // the prototype's method again
  });
  return calls;
}

async function expectStorageUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  expect(response.headers.get("payment-response")).toBeNull();
  const body = (await response.json()) as { error: string; message: string };
  expect(body).toEqual({ error: "storage_unavailable", message: expect.stringContaining("nothing was charged") });
  expect(body.message).not.toMatch(/injected|findPayment|liveListingFor|createPending/);
}

describe("storage_unavailable: the store fails before any charge", () => {
  it.each([
    ["findPayment", "reading the payment's earlier result", false],
    ["liveListingFor", "reading the seller's live listing", false],
    ["createPendingListingWithPayment", "recording the pending listing and its payment", true],
  ] as const)(
    "%s (%s): 503, nothing charged or saved, and the same payment lists once when sent again",
    async (method, _step, probed) => {
      const header = await handSignedHeader(buyer(0).privateKey, fee);
      const path = `/storage-${method}`;
      const [balance, rows, probes] = [
        await marketBalance(),
        (await server.contexts.listings.store.counts(new Date())).rawAll,
        seller.requests.length,
      ];
      const calls = failStore(method);
      await expectStorageUnavailable(await post(listingBody(path), header));
      expect(calls).toHaveLength(1);
      expect(await marketBalance()).toBe(balance);
      expect((await server.contexts.listings.store.counts(new Date())).rawAll).toBe(rows);
      expect(await stored(header)).toBeNull();
      expect(seller.requests.length - probes).toBe(probed ? 1 : 0);

      const again = await post(listingBody(path), header);
      expect(again.status).toBe(200);
      expect(await marketBalance()).toBe(balance + 100_000n);
      expect((await stored(header))!.payment.state).toBe("settled");
    },
  );
});

describe("activation_deferred: the fee settled, then activation failed", () => {
  it("answers 503 with the settled PAYMENT-RESPONSE; the reconciler activates it exactly once; the same payment then gets the listing", async () => {
    const header = await handSignedHeader(buyer(1).privateKey, fee);
    const body = listingBody("/activation-deferred");
    const [balance, visibleBefore] = [await marketBalance(), await visible()];
    const calls = failStore("activateListing");

    const response = await post(body, header);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("60");
    const receipt = decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!);
    expect(receipt).toMatchObject({
      success: true,
      network: "eip155:8453",
      payer: buyer(1).address,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await response.json()).toEqual({
      error: "activation_deferred",
      message: expect.stringContaining(receipt.transaction),
    });
    expect(calls).toHaveLength(1);
    expect(await marketBalance()).toBe(balance + 100_000n); // the fee did move
    expect(await visible()).toBe(visibleBefore); // but nothing is listed yet
    expect((await stored(header))!.payment.state).toBe("pending");

    // Sent again before the reconciler ran: in progress, never a second charge.
    const early = await post(body, header);
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ error: "payment_in_progress" });

    expect(await reconcile(7)).toEqual({ activated: 1, failed: 0, waiting: 0 });
    expect(await reconcile(7)).toEqual({ activated: 0, failed: 0, waiting: 0 });
    expect(await visible()).toBe(visibleBefore + 1);
    const { payment, listing } = (await stored(header))!;
    expect(payment).toMatchObject({ state: "settled", txHash: receipt.transaction });
    expect(listing?.state).toBe("active");

    const later = await post(body, header);
    expect(later.status).toBe(200);
    expect(await later.json()).toMatchObject({ id: listing!.id, transaction: receipt.transaction, renewed: false });
    expect(await marketBalance()).toBe(balance + 100_000n);
    expect(await visible()).toBe(visibleBefore + 1);
  });
});

describe("a fault inside the activation: the listing and its first health sample commit together or not at all", () => {
  it("a failing health-sample write leaves no half-listed row: 503 activation_deferred, the reconciler activates it exactly once, one charge", async () => {
    const header = await handSignedHeader(buyer(2).privateKey, fee);
    const body = listingBody("/sample-fault");
    const [balance, visibleBefore] = [await marketBalance(), await visible()];
    // The database refuses the health sample's day row: a fault in the activation's last writes.
    const prisma = server.database.prisma;
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER "test_refuse_health_day" BEFORE INSERT ON "HealthDay" BEGIN SELECT RAISE(ABORT, 'injected'); END`,
    );
    restoreStore.push(() => void prisma.$executeRawUnsafe(`DROP TRIGGER IF EXISTS "test_refuse_health_day"`));

    const response = await post(body, header);
    expect(response.status).toBe(503);
    const receipt = decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!);
    expect(receipt).toMatchObject({ success: true, payer: buyer(2).address });
    expect(await response.json()).toMatchObject({ error: "activation_deferred" });
    expect(await marketBalance()).toBe(balance + 100_000n);
    // Nothing of the activation stayed: not visible, the payment still pending, no health row.
    expect(await visible()).toBe(visibleBefore);
    const pending = (await stored(header))!;
    expect(pending.payment.state).toBe("pending");
    expect(pending.listing?.state).toBe("pending");
    expect(await prisma.listingHealth.count({ where: { listingId: pending.listing!.id } })).toBe(0);

    await prisma.$executeRawUnsafe(`DROP TRIGGER "test_refuse_health_day"`);
    expect(await reconcile(7)).toEqual({ activated: 1, failed: 0, waiting: 0 });
    expect(await reconcile(7)).toEqual({ activated: 0, failed: 0, waiting: 0 });
    expect(await visible()).toBe(visibleBefore + 1);
    const later = await post(body, header);
    expect(later.status).toBe(200);
    expect(await later.json()).toMatchObject({ id: pending.listing!.id, transaction: receipt.transaction });
    expect(await marketBalance()).toBe(balance + 100_000n);
  });
});

describe("a settlement refused after verification", () => {
  it("payment_already_failed: a payer who empties its wallet while probed gets 402 with a failed PAYMENT-RESPONSE, then 409 for the same payment", async () => {
    const payer = buyer(3);
    const header = await handSignedHeader(payer.privateKey, fee);
    const body = listingBody("/emptied-wallet");
    const wallet = createWalletClient({
      account: privateKeyToAccount(payer.privateKey),
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    });
    const emptying = actingOnceWhenProbed(async () => {
      const everything = await chain.balanceOf(payer.address);
      const hash = await wallet.writeContract({
        address: chain.asset,
        abi: erc20Abi,
        functionName: "transfer",
        args: [buyer(0).address, everything],
      });
      return chain.publicClient.waitForTransactionReceipt({ hash });
    }, honest);
    seller.answer = emptying.answer;
    const [balance, visibleBefore] = [await marketBalance(), await visible()];

    const response = await post(body, header);
    expect(emptying.result()).toBeDefined();
    expect(response.status).toBe(402);
    expect(decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_insufficient_balance",
      transaction: "",
      payer: payer.address,
    });
    expect(await response.json()).toMatchObject({ error: "invalid_exact_evm_insufficient_balance", x402Version: 2 });
    expect(await marketBalance()).toBe(balance);
    expect(await visible()).toBe(visibleBefore);
    const { payment, listing } = (await stored(header))!;
    expect(payment).toMatchObject({
      state: "failed",
      failureReason: "invalid_exact_evm_insufficient_balance",
      chainCheckedAt: null,
    });
    expect(listing?.state).toBe("failed");

    const again = await post(body, header);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: "payment_already_failed",
      message: expect.stringContaining("invalid_exact_evm_insufficient_balance"),
    });
    expect(await marketBalance()).toBe(balance);
  });

  it("authorization_canceled: a payer who cancels its authorization while probed gets 402, the chain's word recorded, nothing listed", async () => {
    const payer = buyer(2);
    const account = privateKeyToAccount(payer.privateKey);
    const nonce = `0x${"c4".repeat(32)}` as Hex;
    const header = await handSignedHeader(payer.privateKey, fee, { nonce });
    const body = listingBody("/canceled");
    const canceling = actingOnceWhenProbed(async () => {
      const signature = await account.signTypedData({
        domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: chain.asset },
        types: {
          CancelAuthorization: [
            { name: "authorizer", type: "address" },
            { name: "nonce", type: "bytes32" },
          ],
        },
        primaryType: "CancelAuthorization",
        message: { authorizer: account.address, nonce },
      });
      const { v, r, s } = parseSignature(signature);
      const wallet = createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl) });
      const hash = await wallet.writeContract({
        address: chain.asset,
        abi: cancelAuthorization,
        functionName: "cancelAuthorization",
        args: [account.address, nonce, Number(v), r, s],
      });
      return chain.publicClient.waitForTransactionReceipt({ hash });
    }, honest);
    seller.answer = canceling.answer;
    const [balance, visibleBefore] = [await marketBalance(), await visible()];

    const response = await post(body, header);
    expect(canceling.result()).toBeDefined();
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({ error: "authorization_canceled", x402Version: 2 });
    expect(decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!)).toMatchObject({
      success: false,
      errorReason: "authorization_canceled",
    });
    expect(await marketBalance()).toBe(balance);
    expect(await visible()).toBe(visibleBefore);
    const { payment } = (await stored(header))!;
    expect(payment).toMatchObject({ state: "failed", failureReason: "authorization_canceled" });
    expect(payment.chainCheckedAt).not.toBeNull(); // final: the reconciler will not look again
    expect((await post(body, header)).status).toBe(409);
  });
});

describe("rate_limited: the seller probe's limit on the paid route", () => {
  it("answers 429 with Retry-After before probing or charging; the same payment lists once the limit allows", async () => {
    const limited = await startTestServer({ ...PAID_FLOW_ENV, PROBE_RATE_PER_CLIENT: "1" }, { payments });
    try {
      const header = await handSignedHeader(buyer(0).privateKey, fee);
      const body = listingBody("/rate-limited");
      const dryRun = await limited.fetch("/listings/validate", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(dryRun.status).toBe(200); // the client's one probe this minute
      const [balance, probes] = [await marketBalance(), seller.requests.length];

      const response = await post(body, header, limited);
      expect(response.status).toBe(429);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await response.json()).toEqual({
        error: "rate_limited",
        message: expect.stringContaining("Nothing was charged"),
      });
      expect(seller.requests.length).toBe(probes);
      expect(await marketBalance()).toBe(balance);
      expect(await limited.contexts.listings.store.findPayment(paymentKeyOf(header))).toBeNull();

      // The authorization is untouched: another instance, without the spent quota, takes it.
      expect((await post(body, header)).status).toBe(200);
      expect(await marketBalance()).toBe(balance + 100_000n);
    } finally {
      await limited.close();
    }
  });
});
