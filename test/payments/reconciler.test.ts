// A crash (or a lost answer) between settlement and activation loses nothing: the listing stays
// pending, invisible, and the reconciler resolves it from the chain.
import type { FacilitatorClient } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { createTestClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { createJobRegistry } from "../../src/jobs/registry.js";
import { reconcilePending, reconcilerJob } from "../../src/listing/reconciler.js";
import { createLogger } from "../../src/logger.js";
import type { ChainReader } from "../../src/payments/chain-reader.js";
import { FacilitatorUnavailableError } from "../../src/payments/facilitator-client.js";
import { createInProcessFacilitator } from "../../src/payments/facilitator.js";
import type { Payments } from "../../src/payments/setup.js";
import { paymentKeyOf, sdkPaymentHeader, selfSettledPayments } from "../support/payments.js";
import { challenge, challengeAnswer, requirement, startSeller, type Seller } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";

const SELLER = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const logger = createLogger("silent");

let chain: LocalChain;
let payments: Payments;
let server: TestServer;
let seller: Seller;
let feeChallenge: PaymentRequired;
/** How the facilitator's settle misbehaves. */
let settleFault: "none" | "lost-answer" | "timeout" | "front-run" = "none";

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 2 });
  const inProcess = createInProcessFacilitator({
    rpcUrl: chain.rpcUrl,
    settlerPrivateKey: chain.settler.privateKey,
    chain: chain.chain,
    pollingIntervalMs: 50,
  });
  const facilitator: FacilitatorClient = {
    getSupported: () => inProcess.client.getSupported(),
    verify: (payload, requirements) => inProcess.client.verify(payload, requirements),
    settle: async (payload, requirements) => {
      if (settleFault === "timeout") throw new FacilitatorUnavailableError("settle", "timeout", "no answer (test)");
      // Someone else broadcast the authorization first: ours is then refused as already used.
      if (settleFault === "front-run") await inProcess.client.settle(payload, requirements);
      const result = await inProcess.client.settle(payload, requirements);
      if (settleFault === "lost-answer")
        throw new Error("socket hang up (test: the settlement went through, its answer was lost)");
      return result;
    },
  };
  payments = await selfSettledPayments(chain, facilitator, inProcess.settlerAddress);
  server = await startTestServer({ ALLOW_LOOPBACK_SELLERS: "true", RECONCILE_INTERVAL_SECONDS: "0" }, { payments });
  seller = await startSeller(() =>
    challengeAnswer(challenge([requirement({ payTo: SELLER, amount: "10000", asset: chain.asset })])),
  );
  feeChallenge = (await (await server.fetch("/listings/challenge")).json()) as PaymentRequired;
});

afterAll(async () => {
  await server?.close();
  await seller?.close();
  await chain?.stop();
});

const post = (path: string, header: string) =>
  server.fetch("/listings", {
    method: "POST",
    headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
    body: JSON.stringify({
      resource: `${seller.url}${path}`,
      priceUsdc: "0.01",
      description: "A resource for the reconciler test.",
      sellerPayTo: SELLER,
    }),
  });

const minutesFromNow = (minutes: number) => () => new Date(Date.now() + minutes * 60_000);
const reconcile = (now: () => Date) =>
  reconcilePending({ store: server.contexts.listings.store, chain: payments.chain!, logger, now });
const visible = async () => (await server.contexts.listings.store.counts(new Date())).foreign;

describe("the reconciler", () => {
  it("activates a listing whose fee settled while its answer was lost, with the transaction from the chain", async () => {
    const header = await sdkPaymentHeader(chain, chain.buyers[0]!.privateKey, feeChallenge);
    const before = await chain.balanceOf(chain.marketplacePayTo);
    settleFault = "lost-answer";
    const response = await post("/lost-answer", header).finally(() => (settleFault = "none"));
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: "facilitator_unreachable" });
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before + 100_000n);
    expect(await visible()).toBe(0);
    expect((await server.contexts.listings.store.findPayment(paymentKeyOf(header)))?.payment.state).toBe("pending");

    // The same request again, before the reconciler ran: still in progress, never settled twice.
    expect((await post("/lost-answer", header)).status).toBe(409);
    // A pass within the authorization's lifetime leaves it alone.
    expect(await reconcile(() => new Date())).toEqual({ activated: 0, failed: 0, waiting: 0 });

    expect(await reconcile(minutesFromNow(7))).toEqual({ activated: 1, failed: 0, waiting: 0 });
    expect(await visible()).toBe(1);
    const { payment } = (await server.contexts.listings.store.findPayment(paymentKeyOf(header)))!;
    expect(payment.state).toBe("settled");
    const logs = await chain.publicClient.getContractEvents({
      address: chain.asset,
      abi: [
        {
          type: "event",
          name: "AuthorizationUsed",
          inputs: [
            { name: "authorizer", type: "address", indexed: true },
            { name: "nonce", type: "bytes32", indexed: true },
          ],
        },
      ],
      fromBlock: 0n,
    });
    expect(logs.map((log) => log.transactionHash)).toContain(payment.txHash);

    const again = await post("/lost-answer", header);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ transaction: payment.txHash, renewed: false });
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before + 100_000n);
  });

  it("lists at once when settlement is refused because someone else broadcast the authorization (the fee did arrive)", async () => {
    const header = await sdkPaymentHeader(chain, chain.buyers[0]!.privateKey, feeChallenge);
    const before = await chain.balanceOf(chain.marketplacePayTo);
    settleFault = "front-run";
    const response = await post("/front-run", header).finally(() => (settleFault = "none"));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { transaction: string };
    expect(body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before + 100_000n);
    expect((await server.contexts.listings.store.findPayment(paymentKeyOf(header)))?.payment).toMatchObject({
      state: "settled",
      txHash: body.transaction,
    });
  });

  it("runs on a timer, one pass at a time, until stopped", async () => {
    const reader: ChainReader = { feeEvidence: vi.fn() };
    const store = server.contexts.listings.store;
    const pendingPayments = vi.spyOn(store, "paymentsToReconcile");
    const calls = pendingPayments.mock.calls.length;
    const reconciler = createJobRegistry(
      [reconcilerJob({ store, chain: reader, logger, now: () => new Date(), intervalMs: 20 })],
      { logger },
    );
    await reconciler.start();
    await vi.waitFor(() => expect(pendingPayments.mock.calls.length - calls).toBeGreaterThanOrEqual(2), {
      timeout: 30_000,
      interval: 20,
    });
    await reconciler.stop();
    const afterStop = pendingPayments.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(pendingPayments.mock.calls.length).toBe(afterStop);
    pendingPayments.mockRestore();
  });

  it("fails a listing whose authorization expired unused, once the chain is past its expiry", async () => {
    const header = await sdkPaymentHeader(chain, chain.buyers[1]!.privateKey, feeChallenge);
    const before = await chain.balanceOf(chain.marketplacePayTo);
    settleFault = "timeout";
    const response = await post("/timed-out", header).finally(() => (settleFault = "none"));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: "facilitator_timeout" });

    // Our clock says the authorization is long expired, but the chain's latest block is not there yet.
    expect(await reconcile(minutesFromNow(7))).toEqual({ activated: 0, failed: 0, waiting: 1 });
    const testClient = createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) });
    await testClient.increaseTime({ seconds: 7 * 60 });
    await testClient.mine({ blocks: 1 });
    expect(await reconcile(minutesFromNow(7))).toEqual({ activated: 0, failed: 1, waiting: 0 });

    const found = (await server.contexts.listings.store.findPayment(paymentKeyOf(header)))!;
    expect(found.payment).toMatchObject({ state: "failed", failureReason: "not_settled_before_expiry" });
    expect(found.listing?.state).toBe("failed");
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before);
    expect((await post("/timed-out", header)).status).toBe(409);
  });
});
