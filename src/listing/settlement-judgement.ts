// What a settlement proved, for the paid flow (src/listing/paid-listing.ts, step 6): the
// facilitator's word checked against the chain.
import { getAddress } from "viem";
import type { ChainReader } from "../payments/chain-reader.js";
import type { UnavailableKind } from "../payments/facilitator-client.js";
import type { SettleOutcome, SignedPayment } from "../payments/payment-gate.js";
import { settlementVerdict, type SettlementVerdict } from "../payments/settlement-verdict.js";
import type { Logger } from "../logger.js";

export type Verdict =
  | { kind: "paid"; transaction: string }
  /** `chainChecked`: the chain confirmed the authorization can no longer pay (else the reconciler looks again). */
  | { kind: "refused"; reason: string; transaction: string; chainChecked: boolean }
  | { kind: "unconfirmed"; reason: UnavailableKind | "settlement_pending" }
  | { kind: "not_sent"; reason: UnavailableKind };

/**
 * What the settlement proved. The facilitator's word is checked against the chain: a success whose
 * transaction did not move the fee to us is refused, and a refusal whose authorization did move it
 * (someone else broadcast it first) is paid. Without a chain reader the facilitator is trusted.
 */
export async function judgeSettlement(
  settled: SettleOutcome,
  payment: SignedPayment,
  deps: { chain: ChainReader | null; logger: Logger },
): Promise<Verdict> {
  if (settled.kind === "not_sent" || settled.kind === "unconfirmed")
    return { kind: settled.kind, reason: settled.reason } as Verdict;
  const claimed: Verdict =
    settled.kind === "settled"
      ? { kind: "paid", transaction: settled.transaction }
      : { kind: "refused", reason: settled.reason, transaction: settled.transaction, chainChecked: false };
  if (!deps.chain) return claimed;
  let verdict: SettlementVerdict;
  try {
    const { requirements } = payment;
    verdict = await settlementVerdict(
      deps.chain,
      {
        asset: getAddress(requirements.asset),
        payer: payment.payer,
        nonce: payment.nonce,
        payTo: getAddress(requirements.payTo),
        amount: BigInt(requirements.amount),
      },
      { hint: settled.transaction },
    );
  } catch (error) {
    deps.logger.warn({ err: error, payer: payment.payer }, "could not read the settlement from the chain");
    return claimed.kind === "paid" ? { kind: "unconfirmed", reason: "settlement_pending" } : claimed;
  }
  switch (verdict.kind) {
    case "paid":
      return { kind: "paid", transaction: verdict.txHash };
    case "refused":
      if (verdict.reason === "authorization_used_elsewhere") {
        deps.logger.warn(
          { payer: payment.payer, nonce: payment.nonce, txHash: verdict.txHash },
          "the authorization's nonce was used by a transfer that did not pay the fee",
        );
      }
      return { kind: "refused", reason: verdict.reason, transaction: verdict.txHash ?? "", chainChecked: true };
    case "undecided":
      return claimed.kind === "paid" ? { kind: "unconfirmed", reason: "settlement_pending" } : claimed;
  }
}

/** x402_payments_total's outcome of each settlement verdict. */
export const SETTLEMENT_OUTCOME = {
  paid: "settled",
  refused: "failed",
  unconfirmed: "unconfirmed",
  not_sent: "unavailable",
} as const;
