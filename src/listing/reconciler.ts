// Resolves listing fees the request could not settle definitely (a crash, a lost answer, a node
// outage between broadcast and activation), and re-checks failures the chain never confirmed. Only
// the chain decides: a listing goes active when the receipt of the transaction that used the
// authorization shows exactly the fee moving to the marketplace wallet; it fails when the
// authorization was canceled, burned by another transfer, or expired unused.
import { getAddress, type Hex } from "viem";
import type { JobDefinition } from "../jobs/job.js";
import type { Logger } from "../logger.js";
import { metrics } from "../metrics.js";
import type { ChainReader } from "../payments/chain-reader.js";
import { AUTHORIZATION_LIFETIME_LIMIT_MS } from "../payments/payment-gate.js";
import type { ListingStore, Payment } from "../storage/listing-store.js";

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
  const evidence = await chain.feeEvidence(
    { asset: getAddress(payment.asset), payer: getAddress(payment.payer), nonce: payment.nonce as Hex, payTo: getAddress(payment.payTo), amount: BigInt(payment.amount) },
    payment.txHash ?? undefined,
  );
  const context = { listingId, paymentId: payment.id, payer: payment.payer, was: payment.state };
  const fail = async (reason: string, txHash: string | null = null): Promise<Resolution> => {
    if (payment.state === "failed") {
      await store.confirmFailure(payment.id, now);
    } else {
      await store.failListing(listingId, { reason, txHash, chainChecked: true, now });
      logger.info({ ...context, reason, txHash }, "reconciler: the fee can no longer be paid; listing failed");
    }
    return "failed";
  };
  switch (evidence.state) {
    case "paid": {
      const { listing, renewed } = await store.activateListing(listingId, { txHash: evidence.txHash, now });
      logger.info({ ...context, listingId: listing.id, renewed, txHash: evidence.txHash }, "reconciler: the fee was paid on chain; listing activated");
      return "activated";
    }
    case "spent_elsewhere":
      logger.warn({ ...context, txHash: evidence.txHash }, "reconciler: the authorization's nonce was used by a transfer that did not pay the fee");
      return fail("authorization_used_elsewhere", evidence.txHash);
    case "canceled":
      return fail("authorization_canceled");
    case "unused":
      if (evidence.chainTime.getTime() < payment.createdAt.getTime() + graceMs) return "waiting";
      return fail("not_settled_before_expiry");
    case "untraceable":
      logger.error(
        context,
        "reconciler: the authorization was used, but its transaction lies beyond RECONCILE_LOOKBACK_BLOCKS; raise it to resolve this payment",
      );
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
  metrics.reconcilerOldestAge.set(oldestWaiting ? Math.max(0, (deps.now().getTime() - oldestWaiting.getTime()) / 1000) : 0);
  metrics.reconcilerLastPass.set(Date.now() / 1000);
  return summary;
}

/** {@link reconcilePending} every `intervalMs` (0: off), the first pass one interval after start. */
export function reconcilerJob(deps: ReconcilerDeps & { intervalMs: number }): JobDefinition<ReconcileSummary> {
  return { name: "reconciler", intervalMs: deps.intervalMs, firstDelayMs: deps.intervalMs, jitter: 0, run: () => reconcilePending(deps) };
}
