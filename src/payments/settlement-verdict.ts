// What the chain says of a listing fee, as a verdict: the one reading of FeeEvidence, shared by the
// paid flow (src/listing/paid-listing.ts, right after settling) and the reconciler
// (src/listing/reconciler.ts, later). Only the chain decides: paid when the receipt of the
// transaction that used the authorization moved exactly the fee to the marketplace wallet; refused
// when the authorization was canceled, burned by another transfer, or expired unused.
import type { Hex } from "viem";
import type { ChainReader, FeeAuthorization } from "./chain-reader.js";

export type SettlementRefusal = "authorization_used_elsewhere" | "authorization_canceled" | "not_settled_before_expiry";

export type SettlementVerdict =
  | { kind: "paid"; txHash: Hex }
  /** The fee can no longer be paid by this authorization; `txHash`: the transfer that burned its nonce, if any. */
  | { kind: "refused"; reason: SettlementRefusal; txHash: Hex | null }
  /** Nothing proven yet: unused and not expired, or used beyond the lookback window (`untraceable`). */
  | { kind: "undecided"; untraceable: boolean };

/**
 * Reads the fee's evidence (`hint`: a transaction said to have settled it, checked, not trusted) and
 * judges it. `expiredBy`: from this chain time on, an unused authorization can no longer be used
 * (omitted: it may still be, as right after settling).
 */
export async function settlementVerdict(
  chain: ChainReader,
  fee: FeeAuthorization,
  options: { hint?: string | undefined; expiredBy?: Date } = {},
): Promise<SettlementVerdict> {
  const evidence = await chain.feeEvidence(fee, options.hint);
  switch (evidence.state) {
    case "paid":
      return { kind: "paid", txHash: evidence.txHash };
    case "spent_elsewhere":
      return { kind: "refused", reason: "authorization_used_elsewhere", txHash: evidence.txHash };
    case "canceled":
      return { kind: "refused", reason: "authorization_canceled", txHash: null };
    case "unused":
      if (options.expiredBy && evidence.chainTime.getTime() >= options.expiredBy.getTime())
        return { kind: "refused", reason: "not_settled_before_expiry", txHash: null };
      return { kind: "undecided", untraceable: false };
    case "untraceable":
      return { kind: "undecided", untraceable: true };
  }
}
