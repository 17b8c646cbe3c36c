// Every way a listing-fee payment can be wrong must come back from the facilitator as a precise
// reason, with no token movement (the replay moves exactly one fee).
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { ExactEIP3009Payload } from "@x402/evm";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { createBuyerClient } from "../../src/payments/buyer.js";
import { createInProcessFacilitator, type InProcessFacilitator } from "../../src/payments/facilitator.js";
import { handSignedPayload } from "../support/payments.js";
import { serviceFeeChallenge } from "./service-fee.js";

let chain: LocalChain;
let facilitator: InProcessFacilitator["facilitator"];
let requirements: PaymentRequirements;
let buyerKey: Hex;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 1 });
  ({ facilitator } = createInProcessFacilitator({ rpcUrl: chain.rpcUrl, settlerPrivateKey: chain.settler.privateKey }));
  requirements = (await serviceFeeChallenge(chain)).accepts[0]!;
  buyerKey = chain.buyers[0]!.privateKey;
});

afterAll(async () => {
  await chain?.stop();
});

const sdkPayload = (key: Hex, accepted: PaymentRequirements = requirements): Promise<PaymentPayload> => {
  const paymentRequired: PaymentRequired = {
    x402Version: 2,
    resource: { url: "http://marketplace.test/listings" },
    accepts: [accepted],
  };
  return createBuyerClient(key, {
    allowAssets: [{ asset: chain.asset, network: accepted.network }],
  }).createPaymentPayload(paymentRequired);
};

const handSigned = (key: Hex, overrides: Partial<ExactEIP3009Payload["authorization"]>) =>
  handSignedPayload(key, requirements, overrides);

const authorizationOf = (payload: PaymentPayload) => (payload.payload as unknown as ExactEIP3009Payload).authorization;

const withPayload = (
  payload: PaymentPayload,
  change: (p: ExactEIP3009Payload) => ExactEIP3009Payload,
): PaymentPayload => ({
  ...payload,
  payload: change(structuredClone(payload.payload as unknown as ExactEIP3009Payload)) as unknown as Record<
    string,
    unknown
  >,
});

async function balances(addresses: Address[]): Promise<bigint[]> {
  return Promise.all(addresses.map((a) => chain.balanceOf(a)));
}

/** Verifies (and, where asked, settles) and checks that no token moved. */
async function rejectReasons(payload: PaymentPayload, against: PaymentRequirements, settle = false) {
  const watched = [chain.buyers[0]!.address, chain.marketplacePayTo, authorizationOf(payload).from as Address];
  const before = await balances(watched);
  const verified = await facilitator.verify(payload, against);
  expect(verified.isValid).toBe(false);
  const settled = settle ? await facilitator.settle(payload, against) : undefined;
  if (settled) expect(settled).toMatchObject({ success: false, transaction: "" });
  expect(await balances(watched)).toEqual(before);
  return { verify: verified.invalidReason, settle: settled?.errorReason, message: verified.invalidMessage };
}

describe("x402 verify and settle failures on the local chain", () => {
  it("insufficient balance", async () => {
    const poor = generatePrivateKey();
    await chain.mintUsdc(privateKeyToAccount(poor).address, 99_999n);
    const reasons = await rejectReasons(await sdkPayload(poor), requirements, true);
    expect(reasons.verify).toBe("invalid_exact_evm_insufficient_balance");
    expect(reasons.message).toContain("ERC20: transfer amount exceeds balance");
    expect(reasons.settle).toBe("invalid_exact_evm_insufficient_balance");
  });

  it("wrong amount: a payment for 0.10 against a 0.20 requirement, or a tampered value", async () => {
    const payload = await sdkPayload(buyerKey);
    const dearer = { ...requirements, amount: "200000" };
    expect((await rejectReasons(payload, dearer, true)).verify).toBe(
      "invalid_exact_evm_payload_authorization_value_mismatch",
    );
    const tampered = withPayload(payload, (p) => ({ ...p, authorization: { ...p.authorization, value: "200000" } }));
    expect((await rejectReasons(tampered, dearer)).verify).toBe("invalid_exact_evm_signature");
  });

  it("wrong payTo", async () => {
    const payload = await sdkPayload(buyerKey);
    const elsewhere = { ...requirements, payTo: chain.settler.address };
    expect(await rejectReasons(payload, elsewhere, true)).toMatchObject({
      verify: "invalid_exact_evm_recipient_mismatch",
      settle: "invalid_exact_evm_recipient_mismatch",
    });
  });

  it("wrong network", async () => {
    const payload = await sdkPayload(buyerKey, { ...requirements, network: "eip155:84532" });
    expect(await rejectReasons(payload, requirements, true)).toMatchObject({
      verify: "invalid_exact_evm_network_mismatch",
      settle: "invalid_exact_evm_network_mismatch",
    });
    // A requirement on a network the facilitator does not serve is an exception, not a reason.
    await expect(facilitator.verify(payload, { ...requirements, network: "eip155:84532" })).rejects.toThrow(
      "No facilitator registered for scheme: exact and network: eip155:84532",
    );
  });

  it("expired or not yet valid authorization", async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await handSigned(buyerKey, { validBefore: String(now - 60) });
    expect(await rejectReasons(expired, requirements, true)).toMatchObject({
      verify: "invalid_exact_evm_payload_authorization_valid_before",
      settle: "invalid_exact_evm_payload_authorization_valid_before",
    });
    const early = await handSigned(buyerKey, { validAfter: String(now + 3600) });
    expect((await rejectReasons(early, requirements)).verify).toBe(
      "invalid_exact_evm_payload_authorization_valid_after",
    );
  });

  it("tampered signature", async () => {
    const payload = await sdkPayload(buyerKey);
    const flipped = withPayload(payload, (p) => ({
      ...p,
      signature: `${p.signature!.slice(0, 10)}${p.signature![10] === "0" ? "1" : "0"}${p.signature!.slice(11)}` as Hex,
    }));
    expect(await rejectReasons(flipped, requirements, true)).toMatchObject({
      verify: "invalid_exact_evm_signature",
      settle: "invalid_exact_evm_signature",
    });
  });

  it("replay: the second settlement of one payload fails and only one fee moves", async () => {
    const payload = await sdkPayload(buyerKey);
    const payToBefore = await chain.balanceOf(chain.marketplacePayTo);
    const first = await facilitator.settle(payload, requirements);
    expect(first.success).toBe(true);

    const settlerTxs = () => chain.publicClient.getTransactionCount({ address: chain.settler.address });
    const sentBefore = await settlerTxs();
    const second = await facilitator.settle(payload, requirements);
    // Gas estimation hits the revert, so the duplicate is never broadcast (no gas spent).
    expect(await settlerTxs()).toBe(sentBefore);
    expect(second).toMatchObject({
      success: false,
      transaction: "",
      errorReason: "invalid_exact_evm_nonce_already_used",
    });
    expect(second.errorMessage).toContain("FiatTokenV2: authorization is used or canceled");

    const again = await facilitator.verify(payload, requirements);
    expect(again).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(payToBefore + 100_000n);
  });

  it("concurrent duplicates: one settles, the others fail before broadcast, one fee moves", async () => {
    const payload = await sdkPayload(buyerKey);
    const payToBefore = await chain.balanceOf(chain.marketplacePayTo);
    const sentBefore = await chain.publicClient.getTransactionCount({ address: chain.settler.address });
    const results = await Promise.all([1, 2, 3].map(() => facilitator.settle(payload, requirements)));
    // Broadcasts are serialized and anvil mines each at once, so the duplicates revert in gas
    // estimation. On a chain with block times a duplicate can pass estimation while the first is
    // pending, get mined, revert and burn gas (invalid_exact_evm_transaction_failed): dedupe first.
    expect(results.map((r) => r.errorReason).sort()).toEqual([
      "invalid_exact_evm_nonce_already_used",
      "invalid_exact_evm_nonce_already_used",
      undefined,
    ]);
    expect(await chain.publicClient.getTransactionCount({ address: chain.settler.address })).toBe(sentBefore + 1);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(payToBefore + 100_000n);
  });

  it("a failed settlement between concurrent good ones leaves no nonce gap", async () => {
    // Settle re-verifies without simulating, so a payment from a since-drained balance gets as far
    // as gas estimation, after the settler's nonce was taken. Without serialized broadcasts the good
    // settlements around it would wait forever behind the nonce gap.
    const poor = generatePrivateKey();
    await chain.mintUsdc(privateKeyToAccount(poor).address, 100_000n);
    const [spent, drained] = await Promise.all([sdkPayload(poor), sdkPayload(poor)]);
    expect((await facilitator.settle(spent!, requirements)).success).toBe(true);
    const good = await Promise.all([1, 2, 3].map(() => sdkPayload(buyerKey)));
    const results = await Promise.all(
      [good[0]!, drained!, good[1]!, good[2]!].map((p) => facilitator.settle(p, requirements)),
    );
    expect(results.map((r) => r.errorReason)).toEqual([
      undefined,
      "invalid_exact_evm_insufficient_balance",
      undefined,
      undefined,
    ]);
  });
});
