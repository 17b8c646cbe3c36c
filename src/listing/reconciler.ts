// Resolves listing fees the request could not settle definitely (a crash, a lost answer, a node
// outage between broadcast and activation), and re-checks failures the chain never confirmed. Only
// the chain decides (src/payments/settlement-verdict.ts, the paid flow's verdict too): a listing goes
// active when the fee was paid, fails when the authorization can no longer pay it.
import { getAddress, type Hex } from "viem";
import type { JobDefinition } from "../jobs/job.js";
import type { Logger } from "../logger.js";
import { metrics } from "../metrics.js";
import type { ChainReader } from "../payments/chain-reader.js";
import { settlementVerdict } from "../payments/settlement-verdict.js";
import { AUTHORIZATION_LIFETIME_LIMIT_MS } from "../payments/payment-gate.js";
import type { ListingStore, Payment } from "../storage/listing/listing-store.js";

export interface ReconcilerDeps {
  store: ListingStore;
  chain: ChainReader;
  logger: Logger;
  now(): Date;
  /**
   * Only payments older than this are looked at. Every accepted authorization expires within it
   * (payment-gate.ts bounds validBefore), so an unused one is then unusable for good.
   */
  graceMs?: number;
}

export interface ReconcileSummary {
  activated: number;
  failed: number;
  /** Left for a later run: the chain could not be read, or its latest block is not past the expiry yet. */
  waiting: number;
}

type Resolution = keyof ReconcileSummary;

async function resolve(payment: Payment, deps: ReconcilerDeps, graceMs: number): Promise<Resolution> {
  const { store, chain, logger } = deps;
  const listingId = payment.listingId;
  const now = deps.now();
  if (!listingId) {
    // Its listing was deleted long after expiry: nothing left to activate.
    if (payment.state === "failed") await store.confirmFailure(payment.id, now);
    return payment.state === "failed" ? "failed" : "waiting";
  }
  const verdict = await settlementVerdict(
    chain,
    {
      asset: getAddress(payment.asset),
      payer: getAddress(payment.payer),
      nonce: payment.nonce as Hex,
      payTo: getAddress(payment.payTo),
      amount: BigInt(payment.amount),
    },
    { hint: payment.txHash ?? undefined, expiredBy: new Date(payment.createdAt.getTime() + graceMs) },
  );
  const context = { listingId, paymentId: payment.id, payer: payment.payer, was: payment.state };
  switch (verdict.kind) {
    case "paid": {
      const { listing, renewed } = await store.activateListing(listingId, { txHash: verdict.txHash, now });
      logger.info(
        { ...context, listingId: listing.id, renewed, txHash: verdict.txHash },
        "reconciler: the fee was paid on chain; listing activated",
      );
      return "activated";
    }
    case "refused": {
      const { reason, txHash } = verdict;
      if (reason === "authorization_used_elsewhere")
        logger.warn(
          { ...context, txHash },
          "reconciler: the authorization's nonce was used by a transfer that did not pay the fee",
        );
      if (payment.state === "failed") {
        await store.confirmFailure(payment.id, now);
      } else {
        await store.failListing(listingId, { reason, txHash, chainChecked: true, now });
        logger.info({ ...context, reason, txHash }, "reconciler: the fee can no longer be paid; listing failed");
      }
      return "failed";
    }
    case "undecided":
      if (verdict.untraceable) {
        logger.error(
          context,
          "reconciler: the authorization was used, but its transaction lies beyond RECONCILE_LOOKBACK_BLOCKS; raise it to resolve this payment",
        );
      }
      return "waiting";
  }
}

/** One pass over the payments to reconcile that are older than the grace period. */
export async function reconcilePending(deps: ReconcilerDeps): Promise<ReconcileSummary> {
  const graceMs = deps.graceMs ?? AUTHORIZATION_LIFETIME_LIMIT_MS;
  const summary: ReconcileSummary = { activated: 0, failed: 0, waiting: 0 };
  const payments = await deps.store.paymentsToReconcile(new Date(deps.now().getTime() - graceMs));
  let oldestWaiting: Date | null = null;
  for (const payment of payments) {
    let resolution: Resolution = "waiting";
    try {
      resolution = await resolve(payment, deps, graceMs);
    } catch (error) {
      deps.logger.warn({ err: error, paymentId: payment.id }, "reconciler: could not resolve a payment; will retry");
    }
    summary[resolution]++;
    if (resolution === "waiting") {
      if (!oldestWaiting || payment.createdAt < oldestWaiting) oldestWaiting = payment.createdAt;
    } else {
      metrics.reconcilerResolved.inc({ result: resolution });
    }
  }
  metrics.reconcilerBacklog.set(summary.waiting);
  metrics.reconcilerOldestAge.set(
    oldestWaiting ? Math.max(0, (deps.now().getTime() - oldestWaiting.getTime()) / 1000) : 0,
  );
  metrics.reconcilerLastPass.set(Date.now() / 1000);
  return summary;
}

/** {@link reconcilePending} every `intervalMs` (0: off), the first pass one interval after start. */
export function reconcilerJob(deps: ReconcilerDeps & { intervalMs: number }): JobDefinition<ReconcileSummary> {
  return {
    name: "reconciler",
    intervalMs: deps.intervalMs,
    firstDelayMs: deps.intervalMs,
    jitter: 0,
    run: () => reconcilePending(deps),
  };
}
