// A real x402 payment without any HTTP: the SDK's buyer signs, the in-process facilitator verifies
// and settles against the local chain.
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import type { ExactEIP3009Payload } from "@x402/evm";
import { parseEventLogs, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testUsdcAbi } from "../../src/chain/contracts.js";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { createBuyerClient } from "../../src/payments/buyer.js";
import { createInProcessFacilitator, type InProcessFacilitator } from "../../src/payments/facilitator.js";
import { serviceFeeChallenge } from "./service-fee.js";

let chain: LocalChain;
let facilitator: InProcessFacilitator["facilitator"];
/** The fee as the service presents it (its PaymentGate over its market facts). */
let feeChallenge: PaymentRequired;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 4 });
  ({ facilitator } = createInProcessFacilitator({ rpcUrl: chain.rpcUrl, settlerPrivateKey: chain.settler.privateKey }));
  feeChallenge = await serviceFeeChallenge(chain);
});

afterAll(async () => {
  await chain?.stop();
});

const authorizationOf = (payload: PaymentPayload) => (payload.payload as unknown as ExactEIP3009Payload).authorization;

describe("x402 exact payment on the local chain", () => {
  it("pays the listing fee: verify, settle, exactly 0.10 USDC moves", async () => {
    const buyer = chain.buyers[0]!;
    const requirements = feeChallenge.accepts[0]!;
    expect(feeChallenge.accepts).toHaveLength(1);
    expect(requirements).toEqual({
      scheme: "exact",
      network: "eip155:8453",
      amount: "100000",
      asset: chain.asset,
      payTo: chain.marketplacePayTo,
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "2" },
    });

    const client = createBuyerClient(buyer.privateKey, { allowAssets: [{ asset: chain.asset }] });
    const payload = await client.createPaymentPayload(feeChallenge);
    expect(payload.x402Version).toBe(2);
    expect(payload.accepted).toEqual(requirements);
    const authorization = authorizationOf(payload);
    expect(authorization).toMatchObject({
      from: buyer.address,
      to: chain.marketplacePayTo,
      value: "100000",
      validAfter: "0",
    });

    const buyerBefore = await chain.balanceOf(buyer.address);
    const payToBefore = await chain.balanceOf(chain.marketplacePayTo);
    const gasBefore = await chain.publicClient.getBalance({ address: chain.settler.address });

    const verified = await facilitator.verify(payload, requirements);
    expect(verified).toEqual({ isValid: true, invalidReason: undefined, payer: buyer.address });
    expect(await chain.balanceOf(buyer.address)).toBe(buyerBefore);

    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toEqual({
      success: true,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network: "eip155:8453",
      payer: buyer.address,
    });

    expect(await chain.balanceOf(buyer.address)).toBe(buyerBefore - 100_000n);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(payToBefore + 100_000n);
    expect(await chain.publicClient.getBalance({ address: chain.settler.address })).toBeLessThan(gasBefore);
    expect(
      await chain.publicClient.readContract({
        address: chain.asset,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [buyer.address, authorization.nonce as Hex],
      }),
    ).toBe(true);

    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.from.toLowerCase()).toBe(chain.settler.address.toLowerCase());
    const events = parseEventLogs({ abi: testUsdcAbi, logs: receipt.logs });
    expect(events.map((e) => e.eventName)).toEqual(["AuthorizationUsed", "Transfer"]);
  });

  it("settles concurrent payments from one settler without nonce collisions", async () => {
    const requirements = feeChallenge.accepts[0]!;
    const buyers = chain.buyers.slice(1);
    const payloads = await Promise.all(
      buyers.map((buyer) =>
        createBuyerClient(buyer.privateKey, { allowAssets: [{ asset: chain.asset }] }).createPaymentPayload(
          feeChallenge,
        ),
      ),
    );
    const payToBefore = await chain.balanceOf(chain.marketplacePayTo);
    const results = await Promise.all(payloads.map((payload) => facilitator.settle(payload, requirements)));
    expect(results.map((r) => [r.success, r.errorReason])).toEqual(buyers.map(() => [true, undefined]));
    expect(new Set(results.map((r) => r.transaction)).size).toBe(buyers.length);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(payToBefore + 100_000n * BigInt(buyers.length));
  });

  it("will not pay an unknown token unless the buyer allow-lists it", async () => {
    const client = createBuyerClient(chain.buyers[0]!.privateKey);
    await expect(client.createPaymentPayload(feeChallenge)).rejects.toThrow(/rejected by spendControls/);
  });
});
