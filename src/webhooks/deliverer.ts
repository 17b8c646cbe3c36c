// The webhook deliverer, one pass of a leased job: verify new endpoints (the handshake), fan the
// change log out to the subscriptions that want each event (deliveries and the cursor's move in one
// transaction), then send what is due: the oldest undelivered event of each subscriber, several
// subscribers at once, retried with backoff for about 27 hours before the subscription is disabled.
// A subscriber whose last attempt failed is retried in its own lane, never in the healthy ones' slots,
// and a request slower than the slot budget waits outside the slots (src/webhooks/attempts.ts).
import { safeReason } from "../jobs/registry.js";
import type { Logger } from "../logger.js";
import { eventRecord } from "../queries/listing-events.js";
import type { ListingEventStore } from "../queries/listing-event-store.js";
import {
  REFUSED_HELD_MS,
  type NewDelivery,
  type WebhookDelivery,
  type WebhookStore,
  type WebhookSubscription,
} from "./webhook-store.js";
import { AttemptsInFlight } from "./attempts.js";
import { SubscriptionIndex } from "./matching.js";
import { eventPayload, signedHeaders } from "./signing.js";
import { post, type TransportOptions } from "./transport.js";
import { Verifier } from "./verifier.js";

/** Waits after the 1st, 2nd, ... failed attempt (the Standard Webhooks schedule); after the last, it is given up. */
export const RETRY_SCHEDULE_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
const CURSOR = "webhooks";
const EVENT_PAGE = 500;
const DELIVERY_PAGE = 500;
const PASSES_PER_RUN = 20;
const KEPT_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Requests waiting for a slow endpoint's answer outside the slots, at most (a socket each, no work). */
const MAX_WAITING = 256;
/** While requests wait outside the slots, the pass looks for new work this often. */
const WAITING_POLL_MS = 250;
const WAITING_RENEW_MS = 5_000;

export interface DelivererDeps {
  store: WebhookStore;
  events: ListingEventStore;
  transport: TransportOptions;
  concurrency: number;
  /** How long one request may hold a slot before it waits for its answer outside the slots. */
  slotMs: number;
  logger: Logger;
  now(): Date;
}

export interface PassReport {
  verified: number;
  fannedOut: number;
  delivered: number;
  failed: number;
}

export class WebhookDeliverer {
  private prunedAt: number | null = null;
  private readonly inFlight: AttemptsInFlight;
  private readonly verifier: Verifier;
  /** Deliveries that succeeded and are not recorded yet. */
  private readonly succeeded: Array<{ id: string; subscriptionId: string; statusCode: number }> = [];

  constructor(private readonly deps: DelivererDeps) {
    this.inFlight = new AttemptsInFlight({
      slotMs: deps.slotMs,
      maxWaiting: MAX_WAITING,
      onError: (error) =>
        deps.logger.warn({ error: safeReason(error) }, "webhook attempt: its outcome could not be recorded"),
    });
    this.verifier = new Verifier({ ...deps, inFlight: this.inFlight });
  }

  /**
   * Verifies, fans out and delivers until nothing is left to do. The lanes work through their queues
   * while this loop re-reads what is due (when a queue empties, or every WAITING_POLL_MS), so a new
   * event for a healthy subscriber goes ahead of requests still queued for slow ones; it returns once
   * every request started has ended (each within the transport's deadline) and been recorded.
   */
  async run(signal: AbortSignal, renewLease: () => Promise<boolean> = async () => true): Promise<PassReport> {
    const idle = this.inFlight.size === 0 && (await this.deps.store.nothingToDo(CURSOR, this.deps.now()));
    if (idle) {
      await this.pruneWhenDue();
      return { verified: 0, fannedOut: 0, delivered: 0, failed: 0 };
    }
    const report: PassReport = { verified: 0, fannedOut: 0, delivered: 0, failed: 0 };
    try {
      await this.verifier.offerDue(report);
      let renewedAt = performance.now();
      for (let pass = 0; pass < PASSES_PER_RUN && !signal.aborted;) {
        await this.recordSucceeded();
        const fannedOut = await this.fanOut();
        const offered = await this.offerDue(signal, report);
        report.fannedOut += fannedOut;
        const worked = fannedOut > 0 || offered > 0;
        if (worked) pass++;
        else if (this.inFlight.size === 0) break;
        await this.inFlight.change(WAITING_POLL_MS);
        // Waiting is not work: the lease is renewed after work, or every few seconds of waiting.
        if (worked || performance.now() - renewedAt > WAITING_RENEW_MS) {
          if (!(await renewLease())) break;
          renewedAt = performance.now();
        }
      }
    } finally {
      // Nothing is started outside a run (and its lease); what was started records its outcome.
      this.inFlight.dropQueued();
      await this.recordSucceeded();
    }
    await this.pruneWhenDue();
    return report;
  }

  /** Forgets old deliveries, at most once per PRUNE_EVERY_MS: a delete every poll would cost more than the poll. */
  private async pruneWhenDue(): Promise<void> {
    const now = this.deps.now().getTime();
    if (this.prunedAt !== null && now - this.prunedAt < PRUNE_EVERY_MS) return;
    await this.deps.store.prune(new Date(now - KEPT_MS));
    await this.deps.store.forgetDeleted(new Date(now - REFUSED_HELD_MS));
    this.prunedAt = now;
  }

  /** One page of the change log after the cursor, fanned out; returns the deliveries it made. */
  private async fanOut(): Promise<number> {
    const { store, events } = this.deps;
    const cursor = await store.cursor(CURSOR);
    const from = cursor ?? (await this.firstSeq());
    const page = await events.after(from, EVENT_PAGE);
    if (page.length === 0) {
      if (cursor === null) await store.fanOut(CURSOR, null, from, [], this.deps.now());
      return 0;
    }
    // Read after the page, never before: a subscription created meanwhile took a fromSeq at or past every
    // event of the page (they had committed), so it is owed none of them; one created earlier is listed.
    const index = new SubscriptionIndex(await store.following());
    const listings = new Map(
      (await events.subjects([...new Set(page.filter((e) => index.wantsListing(e)).map((e) => e.listingId))])).map(
        (l) => [l.id, l],
      ),
    );
    const deliveries: NewDelivery[] = [];
    for (const event of page) {
      const recipients = index.recipients(event, listings.get(event.listingId) ?? null);
      if (recipients.length === 0) continue;
      const payload = eventPayload(event.type, event.at, eventRecord(event));
      for (const subscription of recipients) {
        deliveries.push({
          subscriptionId: subscription.id,
          eventId: event.id,
          eventSeq: event.seq,
          listingId: event.listingId,
          payload,
        });
      }
    }
    const moved = await store.fanOut(CURSOR, cursor, page[page.length - 1]!.seq, deliveries, this.deps.now());
    return moved ? deliveries.length : 0;
  }

  /** Where a deliverer with no cursor yet starts: the oldest subscription's start, or now when there is none. */
  private async firstSeq(): Promise<number> {
    const subscriptions = await this.deps.store.following();
    return subscriptions.length > 0 ? Math.min(...subscriptions.map((s) => s.fromSeq)) : this.deps.events.lastSeq();
  }

  /**
   * Queues the due deliveries of subscriptions without a request in flight; returns how many are new.
   * Healthy subscribers (head never failed) share the slots; failing ones (the circuit open: their
   * head failed and waits out its backoff) are retried in a lane of their own, so a subscriber that
   * hangs costs the healthy ones one slot budget once, not a timeout on every retry.
   */
  private async offerDue(signal: AbortSignal, report: PassReport): Promise<number> {
    const { store, now, concurrency } = this.deps;
    const due = await this.inFlight.notInFlight(
      () => store.due(now(), DELIVERY_PAGE),
      (delivery) => delivery.subscriptionId,
    );
    const subscriptions = new Map(
      due.length === 0
        ? []
        : (await store.subscriptions([...new Set(due.map((d) => d.subscriptionId))])).map((s) => [s.id, s]),
    );
    const send = async (delivery: WebhookDelivery): Promise<boolean> => {
      const subscription = subscriptions.get(delivery.subscriptionId);
      if (!subscription || signal.aborted) return false;
      const statusCode = await this.attempt(subscription, delivery);
      if (statusCode === null) {
        report.failed++;
        return false;
      }
      report.delivered++;
      this.succeeded.push({ id: delivery.id, subscriptionId: delivery.subscriptionId, statusCode });
      return true; // busy until recorded with the others
    };
    const bySubscription = (delivery: WebhookDelivery) => delivery.subscriptionId;
    const healthy = due.filter((delivery) => delivery.attempts === 0);
    const failing = due.filter((delivery) => delivery.attempts > 0);
    return (
      this.inFlight.offer("healthy", healthy, bySubscription, concurrency, send) +
      this.inFlight.offer("failing", failing, bySubscription, Math.max(1, Math.floor(concurrency / 2)), send)
    );
  }

  /** Records the deliveries that succeeded since the last call together: a burst takes few turns of the database that catalog reads wait behind. */
  private async recordSucceeded(): Promise<void> {
    const done = this.succeeded.splice(0);
    if (done.length === 0) return;
    try {
      await this.deps.store.delivered(done, this.deps.now());
    } finally {
      for (const { subscriptionId } of done) this.inFlight.release(subscriptionId);
    }
  }

  /** One attempt: its status code when delivered (the caller records it with the others), null when it failed (recorded here). */
  private async attempt(subscription: WebhookSubscription, delivery: WebhookDelivery): Promise<number | null> {
    const { store, now, logger } = this.deps;
    // The signature's timestamp is the wall clock's: receivers check it against theirs (replay window).
    const headers = signedHeaders(subscription.secret, delivery.eventId, delivery.payload, new Date());
    const answer = await post(subscription.url, delivery.payload, headers, this.deps.transport);
    if (answer.ok) return answer.statusCode;
    const wait = RETRY_SCHEDULE_MS[delivery.attempts];
    const retryAt = wait === undefined ? null : new Date(now().getTime() + wait);
    await store.attemptFailed(delivery.id, { statusCode: answer.statusCode, error: answer.error, retryAt }, now());
    if (!retryAt) {
      await store.disable(subscription.id, "deliveries_failing");
      logger.warn(
        { subscription: subscription.id, error: answer.error },
        "webhook subscription disabled: an event could not be delivered for 27 hours",
      );
    }
    return null;
  }
}
