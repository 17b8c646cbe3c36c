// The `exact` EVM scheme of the in-process facilitator, verifying a plain EIP-3009 authorization
// with one signature recovery per payment instead of two. The SDK's verify recovers the payer's
// signature in JavaScript (about a quarter of a paid listing's CPU) and then simulates the transfer
// on the chain; its settle recovers it again before broadcasting. The simulation alone proves the
// signature: the token contract checks it exactly as the real transfer will (ecrecover, or ERC-1271
// for a contract wallet), together with the nonce, the time window and the payer's balance. So an
// authorization of 65-byte signature whose signed terms match the requirements is verified by that
// simulation alone. Anything else, and every simulation that does not succeed, goes to the SDK's
// own verify, which names the reason: a bad payment is refused as before, by the same words.
import type { PaymentPayload, PaymentRequirements, VerifyResponse } from "@x402/core/types";
import { eip3009ABI, isEIP3009Payload, startAssetContractCheck, type ExactEIP3009Payload, type FacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { getAddress, parseSignature, type Hex } from "viem";

/** The SDK refuses an authorization expiring sooner than this (its settle needs the time to land). */
const MIN_VALIDITY_LEFT_SECONDS = 6;

type PlainAuthorization = ExactEIP3009Payload & { signature: Hex };

/**
 * The payload's EIP-3009 authorization when it is one the simulation can judge alone: a 65-byte
 * signature (no ERC-6492 wrapper to deploy a wallet first) whose signed recipient, value and
 * validity window are those the requirements ask for now. Null sends the payment to the SDK.
 */
function plainAuthorizationOf(payload: PaymentPayload, requirements: PaymentRequirements, nowSeconds: number): PlainAuthorization | null {
  const inner = payload.payload as unknown as ExactEIP3009Payload;
  if (requirements.scheme !== "exact" || payload.accepted.scheme !== "exact" || payload.accepted.network !== requirements.network) return null;
  if (!requirements.extra?.name || !requirements.extra?.version || !isEIP3009Payload(inner)) return null;
  const { signature, authorization } = inner;
  if (!signature || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  try {
    if (getAddress(authorization.to) !== getAddress(requirements.payTo)) return null;
    if (BigInt(authorization.value) !== BigInt(requirements.amount)) return null;
    if (BigInt(authorization.validBefore) < BigInt(nowSeconds + MIN_VALIDITY_LEFT_SECONDS)) return null;
    if (BigInt(authorization.validAfter) > BigInt(nowSeconds)) return null;
  } catch {
    return null;
  }
  return inner as PlainAuthorization;
}

export class ChainCheckedExactScheme extends ExactEvmScheme {
  constructor(private readonly chainSigner: FacilitatorEvmSigner) {
    super(chainSigner);
  }

  override async verify(...args: Parameters<ExactEvmScheme["verify"]>): Promise<VerifyResponse> {
    const [payload, requirements] = args;
    const plain = plainAuthorizationOf(payload, requirements, Math.floor(Date.now() / 1000));
    if (plain && (await this.transferWouldSucceed(plain, requirements))) {
      return { isValid: true, invalidReason: undefined, payer: plain.authorization.from };
    }
    return super.verify(...args);
  }

  /** The token's own transferWithAuthorization, run by the node without a transaction (as the SDK's verify runs it). */
  private async transferWouldSucceed({ authorization, signature }: PlainAuthorization, requirements: PaymentRequirements): Promise<boolean> {
    const asset = getAddress(requirements.asset);
    try {
      const { r, s, v, yParity } = parseSignature(signature);
      // A call to an address without code "succeeds" too: the asset must be a contract.
      if (await startAssetContractCheck(this.chainSigner, requirements.network, asset).await()) return false;
      await this.chainSigner.readContract({
        address: asset,
        abi: eip3009ABI,
        functionName: "transferWithAuthorization",
        args: [
          getAddress(authorization.from),
          getAddress(authorization.to),
          BigInt(authorization.value),
          BigInt(authorization.validAfter),
          BigInt(authorization.validBefore),
          authorization.nonce,
          v ?? yParity,
          r,
          s,
        ],
      });
      return true;
    } catch {
      return false;
    }
  }
}
