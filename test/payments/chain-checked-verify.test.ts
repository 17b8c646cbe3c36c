// The in-process facilitator's verify (src/payments/chain-checked-scheme.ts): a plain EIP-3009
// authorization is judged by the token's simulated transfer, the check the chain itself makes, with
// no signature recovery of our own; everything else gets the SDK's verify and its named reason.
// A scripted chain shows which of the two answered (test/chain/x402-failures.test.ts runs every
// refusal against a real token).
import type { PaymentRequirements } from "@x402/core/types";
import type { FacilitatorEvmSigner } from "@x402/evm";
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

/** A chain whose token accepts (or reverts) every simulated transfer; it records the contract calls. */
function scriptedChain(transferSucceeds: boolean) {
  const calls: string[] = [];
  const signer = {
    getAddresses: () => [privateKeyToAccount(generatePrivateKey()).address],
    getCode: async ({ address }: { address: string }) => (address.toLowerCase() === ASSET.toLowerCase() ? "0x6080" : "0x"),
    readContract: async ({ functionName }: { functionName: string }) => {
      calls.push(functionName);
      if (functionName === "transferWithAuthorization" && !transferSucceeds) throw new Error("FiatTokenV2: invalid signature");
      return undefined;
    },
  } as unknown as FacilitatorEvmSigner;
  return { scheme: new ChainCheckedExactScheme(signer), calls };
}

describe("in-process verify of an exact EIP-3009 payment", () => {
  it("takes the token's simulated transfer as the signature check: no local recovery disagrees with the chain", async () => {
    const { scheme, calls } = scriptedChain(true);
    // Signed by one key but claiming another payer: only the chain's check is asked, and here it agrees.
    const signed = await handSignedPayload(generatePrivateKey(), requirements, { from: privateKeyToAccount(generatePrivateKey()).address });
    await expect(scheme.verify(signed, requirements)).resolves.toMatchObject({ isValid: true });
    expect(calls).toEqual(["transferWithAuthorization"]);
  });

  it("gives a payment the simulated transfer refuses to the SDK's verify, which names the reason", async () => {
    const { scheme } = scriptedChain(false);
    const forged = await handSignedPayload(generatePrivateKey(), requirements, { from: privateKeyToAccount(generatePrivateKey()).address });
    await expect(scheme.verify(forged, requirements)).resolves.toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_signature" });
  });

  it("leaves terms the simulation would not compare to the SDK's verify, without simulating", async () => {
    const { scheme, calls } = scriptedChain(true);
    const key = generatePrivateKey();
    const elsewhere = await handSignedPayload(key, requirements, { to: privateKeyToAccount(generatePrivateKey()).address });
    await expect(scheme.verify(elsewhere, requirements)).resolves.toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_recipient_mismatch" });
    const cheaper = await handSignedPayload(key, requirements, { value: "1" });
    await expect(scheme.verify(cheaper, requirements)).resolves.toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_payload_authorization_value_mismatch",
    });
    const expiring = await handSignedPayload(key, requirements, { validBefore: String(Math.floor(Date.now() / 1000) + 2) });
    await expect(scheme.verify(expiring, requirements)).resolves.toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_payload_authorization_valid_before",
    });
    expect(calls).not.toContain("transferWithAuthorization");
  });
});
