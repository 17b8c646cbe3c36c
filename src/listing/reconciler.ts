// Resolves listing fees left pending (a crash or an outage between settlement and activation) from
// the chain: a used authorization means the fee arrived, so the listing goes active; an expired,
// unused or canceled one can never pay, so the listing fails.
import { getAddress, type Hex } from "viem";
import type { Logger } from "../logger.js";
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

type Resolution = "activated" | "failed" | "waiting";

async function resolve(payment: Payment, deps: ReconcilerDeps, graceMs: number): Promise<Resolution> {
  const { store, chain, logger } = deps;
  const listingId = payment.listingId;
  if (!listingId) return "waiting";
  const now = deps.now();
  const onChain = await chain.authorization(getAddress(payment.asset), getAddress(payment.payer), payment.nonce as Hex);
  if (onChain.state === "used") {
    const { listing, renewed } = await store.activateListing(listingId, { txHash: onChain.txHash ?? "", now });
    logger.info({ listingId: listing.id, renewed, txHash: onChain.txHash, payer: payment.payer }, "reconciler: fee was settled on chain; listing activated");
    return "activated";
  }
  if (onChain.state === "canceled") {
    await store.failListing(listingId, { reason: "authorization_canceled", now });
    logger.info({ listingId, payer: payment.payer }, "reconciler: the payer canceled the authorization; listing failed");
    return "failed";
  }
  if (onChain.chainTime.getTime() < payment.createdAt.getTime() + graceMs) return "waiting";
  await store.failListing(listingId, { reason: "not_settled_before_expiry", now });
  logger.info({ listingId, payer: payment.payer }, "reconciler: the authorization expired unused; listing failed");
  return "failed";
}

/** One pass over the pending payments older than the grace period. */
export async function reconcilePending(deps: ReconcilerDeps): Promise<ReconcileSummary> {
  const graceMs = deps.graceMs ?? AUTHORIZATION_LIFETIME_LIMIT_MS;
  const summary: ReconcileSummary = { activated: 0, failed: 0, waiting: 0 };
  const pending = await deps.store.pendingPayments(new Date(deps.now().getTime() - graceMs));
  for (const payment of pending) {
    try {
      summary[await resolve(payment, deps, graceMs)]++;
    } catch (error) {
      deps.logger.warn({ err: error, paymentId: payment.id }, "reconciler: could not resolve a pending payment; will retry");
      summary.waiting++;
    }
  }
  return summary;
}

export interface Reconciler {
  /** Runs one pass now (after the one in progress, if any). */
  runOnce(): Promise<ReconcileSummary>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

/** Runs {@link reconcilePending} every `intervalMs` on an unref'd timer, one pass at a time. */
export function startReconciler(deps: ReconcilerDeps & { intervalMs: number }): Reconciler {
  let queue: Promise<unknown> = Promise.resolve();
  let timerPassRunning = false;
  const runOnce = (): Promise<ReconcileSummary> => {
    const pass = queue.then(() => reconcilePending(deps));
    queue = pass.catch(() => undefined);
    return pass;
  };
  const timer = setInterval(() => {
    if (timerPassRunning) return;
    timerPassRunning = true;
    runOnce()
      .catch((error: unknown) => deps.logger.warn({ err: error }, "reconciler pass failed"))
      .finally(() => (timerPassRunning = false));
  }, deps.intervalMs);
  timer.unref();
  return {
    runOnce,
    stop: async () => {
      clearInterval(timer);
      await queue;
    },
  };
}
