// The `exact` EVM scheme of the in-process facilitator, verifying a plain EIP-3009 authorization
// with one signature recovery per payment instead of two. The SDK's verify recovers the payer's
// signature in JavaScript (about a quarter of a paid listing's CPU) and then simulates the transfer
// on the chain; its settle recovers it again before broadcasting. The simulation alone proves the
// signature: the token contract checks it exactly as the real transfer will (ecrecover, or ERC-1271
// for a contract wallet), together with the nonce, the time window and the payer's balance. So an
// authorization of 65-byte signature whose signed terms match the requirements is verified by that
// simulation alone. Anything else, and every simulation that does not succeed, goes to the SDK's
// own verify, which names the reason: a bad payment is refused as before, by the same words.
// The settle of an authorization this verify accepted that way skips the SDK's second look at the
// signature (its recovery, the other quarter) and sends the transfer at once: the token checks the
// signature again when it runs, so a bad one reverts in the estimate, before anything is sent.
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import {
  eip3009ABI,
  isEIP3009Payload,
  resolveDataSuffix,
  startAssetContractCheck,
  type ExactEIP3009Payload,
  type FacilitatorEvmSigner,
} from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { LRUCache } from "lru-cache";
import { getAddress, parseSignature, type Hex } from "viem";
import { judgeReceipt } from "./chain-reader.js";
import { SIGNATURE_MEMORY_LIMIT, SIGNATURE_MEMORY_MS } from "../constants.js";

/** The SDK refuses an authorization expiring sooner than this (its settle needs the time to land). */
const MIN_VALIDITY_LEFT_SECONDS = 6;
/** The SDK's reasons for a mined transfer that reverted, or that did not move the fee. */
const TRANSACTION_FAILED = "invalid_exact_evm_transaction_failed";
const TRANSFER_EVENT_MISMATCH = "invalid_exact_evm_transfer_event_mismatch";

type PlainAuthorization = ExactEIP3009Payload & { signature: Hex };

/**
 * The payload's EIP-3009 authorization when it is one the simulation can judge alone: a 65-byte
 * signature (no ERC-6492 wrapper to deploy a wallet first) whose signed recipient, value and
 * validity window are those the requirements ask for now. Null sends the payment to the SDK.
 */
function plainAuthorizationOf(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  nowSeconds: number,
): PlainAuthorization | null {
  const inner = payload.payload as unknown as ExactEIP3009Payload;
  if (
    requirements.scheme !== "exact" ||
    payload.accepted.scheme !== "exact" ||
    payload.accepted.network !== requirements.network
  )
    return null;
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

/** Everything the simulated transfer judged: the same signature under other terms is not vouched for. */
const termsOf = ({ authorization }: PlainAuthorization, requirements: PaymentRequirements) =>
  JSON.stringify([
    authorization,
    requirements.network,
    getAddress(requirements.asset),
    requirements.extra?.name,
    requirements.extra?.version,
  ]);

/** The token's transferWithAuthorization arguments (v, r, s form) for a 65-byte signature. */
function transferArgs({ authorization, signature }: PlainAuthorization) {
  const { r, s, v, yParity } = parseSignature(signature);
  return [
    getAddress(authorization.from),
    getAddress(authorization.to),
    BigInt(authorization.value),
    BigInt(authorization.validAfter),
    BigInt(authorization.validBefore),
    authorization.nonce,
    v ?? yParity,
    r,
    s,
  ] as const;
}

/** What verify's simulated transfer vouched for; and once sent, the transaction still awaited. */
interface Vouched {
  terms: string;
  /** Set when the receipt wait ended without one (settlement_pending): a retry waits for it, never sends again. */
  transaction?: Hex;
}

export class ChainCheckedExactScheme extends ExactEvmScheme {
  /** By signature: authorizations whose simulated transfer succeeded in verify, on their way to settle. */
  private readonly vouched = new LRUCache<Hex, Vouched>({ max: SIGNATURE_MEMORY_LIMIT, ttl: SIGNATURE_MEMORY_MS });

  constructor(private readonly chainSigner: FacilitatorEvmSigner) {
    super(chainSigner);
  }

  override async verify(...args: Parameters<ExactEvmScheme["verify"]>): Promise<VerifyResponse> {
    const [payload, requirements] = args;
    const plain = plainAuthorizationOf(payload, requirements, Math.floor(Date.now() / 1000));
    if (plain && (await this.transferWouldSucceed(plain, requirements))) {
      this.vouched.set(plain.signature, { terms: termsOf(plain, requirements) });
      return { isValid: true, invalidReason: undefined, payer: plain.authorization.from };
    }
    return super.verify(...args);
  }

  /**
   * A plain authorization this verify accepted is sent without the SDK's re-verification; its
   * receipt must show this authorization paying the fee. Anything else gets the SDK's settle. A
   * send that fails is not sent again (its broadcast may have happened): the SDK's verify names why
   * the transfer cannot run, as the SDK's settle would have; when it still could, the send failed.
   * A wait that ends without a receipt answers settlement_pending, and the SDK's resource server
   * settles once more: that settle waits for the same transaction again, as the SDK's own does.
   */
  override async settle(...args: Parameters<ExactEvmScheme["settle"]>): Promise<SettleResponse> {
    const [payload, requirements, context] = args;
    const plain = plainAuthorizationOf(payload, requirements, Math.floor(Date.now() / 1000));
    const vouched = plain && this.vouched.get(plain.signature);
    if (!plain || !vouched) return super.settle(...args);
    const timeLeft = this.vouched.getRemainingTTL(plain.signature);
    this.vouched.delete(plain.signature);
    if (vouched.terms !== termsOf(plain, requirements)) return super.settle(...args);
    const asset = getAddress(requirements.asset);
    const payer = getAddress(plain.authorization.from);
    const network = payload.accepted.network;
    let transaction = vouched.transaction;
    if (!transaction) {
      try {
        const dataSuffix = await resolveDataSuffix(context, {
          paymentPayload: payload,
          paymentRequirements: requirements,
        });
        transaction = await this.chainSigner.writeContract({
          address: asset,
          abi: eip3009ABI,
          functionName: "transferWithAuthorization",
          args: [...transferArgs(plain)],
          dataSuffix,
        });
      } catch (error) {
        const named = await super.verify(payload, requirements).catch(() => null);
        const errorReason = (named && !named.isValid && named.invalidReason) || TRANSACTION_FAILED;
        return { success: false, errorReason, errorMessage: (error as Error).message, transaction: "", network, payer };
      }
    }
    let receipt;
    try {
      receipt = await this.chainSigner.waitForTransactionReceipt({ hash: transaction });
    } catch (error) {
      this.vouched.set(plain.signature, { ...vouched, transaction }, { ttl: timeLeft });
      return {
        success: false,
        errorReason: "settlement_pending",
        errorMessage: (error as Error).message,
        transaction,
        network,
        payer,
      };
    }
    const fee = {
      asset,
      payer,
      nonce: plain.authorization.nonce,
      payTo: getAddress(requirements.payTo),
      amount: BigInt(requirements.amount),
    };
    if (receipt.status !== "success")
      return { success: false, errorReason: TRANSACTION_FAILED, transaction, network, payer };
    if (
      judgeReceipt({ status: receipt.status, logs: receipt.logs ?? [], transactionHash: transaction }, fee)?.state !==
      "paid"
    )
      return { success: false, errorReason: TRANSFER_EVENT_MISMATCH, transaction, network, payer };
    return { success: true, transaction, network, payer };
  }

  /** The token's own transferWithAuthorization, run by the node without a transaction (as the SDK's verify runs it). */
  private async transferWouldSucceed(plain: PlainAuthorization, requirements: PaymentRequirements): Promise<boolean> {
    const asset = getAddress(requirements.asset);
    try {
      // A call to an address without code "succeeds" too: the asset must be a contract.
      if (await startAssetContractCheck(this.chainSigner, requirements.network, asset).await()) return false;
      await this.chainSigner.readContract({
        address: asset,
        abi: eip3009ABI,
        functionName: "transferWithAuthorization",
        args: [...transferArgs(plain)],
      });
      return true;
    } catch {
      return false;
    }
  }
}
