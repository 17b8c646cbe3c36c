// The in-process facilitator's verify (src/payments/chain-checked-scheme.ts): a plain EIP-3009
// authorization is judged by the token's simulated transfer, the check the chain itself makes, with
// no signature recovery of our own; everything else gets the SDK's verify and its named reason.
// A scripted chain shows which of the two answered (test/chain/x402-failures.test.ts runs every
// refusal against a real token). The settle of a payment this verify accepted sends the transfer
// without the SDK's second signature check, and is a success only on a receipt showing the fee paid.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { ExactEIP3009Payload, FacilitatorEvmSigner } from "@x402/evm";
import { encodeAbiParameters, keccak256, pad, toEventSelector, type Hex, type Log } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { ChainCheckedExactScheme } from "../../src/payments/chain-checked-scheme.js";
import { handSignedPayload } from "../support/payments.js";

const ASSET = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const requirements: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:8453",
  asset: ASSET,
  amount: "100000",
  payTo: privateKeyToAccount(generatePrivateKey()).address,
  maxTimeoutSeconds: 300,
  extra: { name: "USD Coin", version: "2" },
};

const AUTHORIZATION_USED = toEventSelector("AuthorizationUsed(address,bytes32)");
const TRANSFER = toEventSelector("Transfer(address,address,uint256)");

/** The token's logs of a transfer with authorization that paid `value` from the payload's payer to the wallet. */
function transferLogs(payload: PaymentPayload, value = BigInt(requirements.amount)): Log[] {
  const { from, nonce } = (payload.payload as unknown as ExactEIP3009Payload).authorization;
  return [
    { address: ASSET, topics: [AUTHORIZATION_USED, pad(from as Hex), nonce as Hex], data: "0x" },
    {
      address: ASSET,
      topics: [TRANSFER, pad(from as Hex), pad(requirements.payTo as Hex)],
      data: encodeAbiParameters([{ type: "uint256" }], [value]),
    },
  ] as unknown as Log[];
}

/**
 * A chain whose token accepts (or reverts) every simulated transfer; it records the contract calls
 * and the transactions sent, mined with `receiptLogs` (or failing to send: `sendFails`; found only
 * after `waitsTimingOut` receipt waits).
 */
function scriptedChain(
  transferSucceeds: boolean,
  mined: { receiptLogs?: Log[]; sendFails?: boolean; waitsTimingOut?: number } = {},
) {
  const calls: string[] = [];
  const sent: string[] = [];
  let waitsTimingOut = mined.waitsTimingOut ?? 0;
  const signer = {
    getAddresses: () => [privateKeyToAccount(generatePrivateKey()).address],
    getCode: async ({ address }: { address: string }) =>
      address.toLowerCase() === ASSET.toLowerCase() ? "0x6080" : "0x",
    readContract: async ({ functionName }: { functionName: string }) => {
      calls.push(functionName);
      if (functionName === "transferWithAuthorization" && !transferSucceeds)
        throw new Error("FiatTokenV2: invalid signature");
      return undefined;
    },
    writeContract: async ({ functionName }: { functionName: string }) => {
      sent.push(functionName);
      if (mined.sendFails) throw new Error("the node's answer to the broadcast was lost");
      return keccak256(`0x${sent.length.toString(16).padStart(2, "0")}`);
    },
    waitForTransactionReceipt: async ({ hash }: { hash: Hex }) => {
      if (waitsTimingOut-- > 0)
        throw new Error(`Timed out while waiting for transaction with hash "${hash}" to be confirmed.`);
      return { status: "success", transactionHash: hash, logs: mined.receiptLogs ?? [] };
    },
  } as unknown as FacilitatorEvmSigner;
  return { scheme: new ChainCheckedExactScheme(signer), calls, sent };
}

describe("in-process verify of an exact EIP-3009 payment", () => {
  it("takes the token's simulated transfer as the signature check: no local recovery disagrees with the chain", async () => {
    const { scheme, calls } = scriptedChain(true);
    // Signed by one key but claiming another payer: only the chain's check is asked, and here it agrees.
    const signed = await handSignedPayload(generatePrivateKey(), requirements, {
      from: privateKeyToAccount(generatePrivateKey()).address,
    });
    await expect(scheme.verify(signed, requirements)).resolves.toMatchObject({ isValid: true });
    expect(calls).toEqual(["transferWithAuthorization"]);
  });

  it("gives a payment the simulated transfer refuses to the SDK's verify, which names the reason", async () => {
    const { scheme } = scriptedChain(false);
    const forged = await handSignedPayload(generatePrivateKey(), requirements, {
      from: privateKeyToAccount(generatePrivateKey()).address,
    });
    await expect(scheme.verify(forged, requirements)).resolves.toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_signature",
    });
  });

  it("leaves terms the simulation would not compare to the SDK's verify, without simulating", async () => {
    const { scheme, calls } = scriptedChain(true);
    const key = generatePrivateKey();
    const elsewhere = await handSignedPayload(key, requirements, {
      to: privateKeyToAccount(generatePrivateKey()).address,
    });
    await expect(scheme.verify(elsewhere, requirements)).resolves.toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_recipient_mismatch",
    });
    const cheaper = await handSignedPayload(key, requirements, { value: "1" });
    await expect(scheme.verify(cheaper, requirements)).resolves.toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_payload_authorization_value_mismatch",
    });
    const expiring = await handSignedPayload(key, requirements, {
      validBefore: String(Math.floor(Date.now() / 1000) + 2),
    });
    await expect(scheme.verify(expiring, requirements)).resolves.toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_payload_authorization_valid_before",
    });
    expect(calls).not.toContain("transferWithAuthorization");
  });
});

describe("in-process settle of an exact EIP-3009 payment", () => {
  // Signed by one key but claiming another payer: only the chain can tell, and here it agrees.
  const claimingAnotherPayer = () =>
    handSignedPayload(generatePrivateKey(), requirements, { from: privateKeyToAccount(generatePrivateKey()).address });

  it("sends the transfer its verify accepted without checking the signature again, and succeeds on the receipt's proof", async () => {
    const payload = await claimingAnotherPayer();
    const { scheme, sent } = scriptedChain(true, { receiptLogs: transferLogs(payload) });
    await expect(scheme.verify(payload, requirements)).resolves.toMatchObject({ isValid: true });
    const settled = await scheme.settle(payload, requirements);
    expect(settled).toMatchObject({
      success: true,
      payer: (payload.payload as unknown as ExactEIP3009Payload).authorization.from,
    });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sent).toEqual(["transferWithAuthorization"]);
  });

  it("is no success when the receipt does not show the authorization paying the fee", async () => {
    const payload = await claimingAnotherPayer();
    const { scheme } = scriptedChain(true, { receiptLogs: transferLogs(payload, 1n) });
    await scheme.verify(payload, requirements);
    await expect(scheme.settle(payload, requirements)).resolves.toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_transfer_event_mismatch",
    });
  });

  it("gives a payment its verify did not accept, or accepted under other terms, to the SDK's settle", async () => {
    const unverified = await claimingAnotherPayer();
    const { scheme, sent } = scriptedChain(true, { receiptLogs: transferLogs(unverified) });
    await expect(scheme.settle(unverified, requirements)).resolves.toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_signature",
    });

    const verified = await claimingAnotherPayer();
    await scheme.verify(verified, requirements);
    const otherToken = { ...requirements, extra: { name: "USD Coin", version: "3" } };
    await expect(scheme.settle(verified, otherToken)).resolves.toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_signature",
    });
    expect(sent).toEqual([]);
  });

  it("vouches once: a second settle of the same payment gets the SDK's checks", async () => {
    const payload = await claimingAnotherPayer();
    const { scheme, sent } = scriptedChain(true, { receiptLogs: transferLogs(payload) });
    await scheme.verify(payload, requirements);
    await expect(scheme.settle(payload, requirements)).resolves.toMatchObject({ success: true });
    await expect(scheme.settle(payload, requirements)).resolves.toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_signature",
    });
    expect(sent).toHaveLength(1);
  });

  it("does not send again when the send fails (its broadcast may have happened), and names the reason by the SDK's verify", async () => {
    const { scheme, sent } = scriptedChain(true, { sendFails: true });
    const payload = await handSignedPayload(generatePrivateKey(), requirements);
    await scheme.verify(payload, requirements);
    await expect(scheme.settle(payload, requirements)).resolves.toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_transaction_failed",
      transaction: "",
    });
    const forged = await claimingAnotherPayer();
    await scheme.verify(forged, requirements);
    await expect(scheme.settle(forged, requirements)).resolves.toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_signature",
      transaction: "",
    });
    expect(sent).toEqual(["transferWithAuthorization", "transferWithAuthorization"]);
  });

  it("answers settlement_pending when no receipt came in time, and waits for the same transaction when settled again", async () => {
    const payload = await claimingAnotherPayer();
    const { scheme, sent } = scriptedChain(true, { receiptLogs: transferLogs(payload), waitsTimingOut: 1 });
    await scheme.verify(payload, requirements);
    const pending = await scheme.settle(payload, requirements);
    expect(pending).toMatchObject({ success: false, errorReason: "settlement_pending" });
    await expect(scheme.settle(payload, requirements)).resolves.toMatchObject({
      success: true,
      transaction: pending.transaction,
    });
    expect(sent).toHaveLength(1);
  });
});
