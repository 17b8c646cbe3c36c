// The webhook deliverer, one pass of a leased job: verify new endpoints (the handshake), fan the
// change log out to the subscriptions that want each event (deliveries and the cursor's move in one
// transaction), then send what is due: the oldest undelivered event of each subscriber, several
// subscribers at once, retried with backoff for about 27 hours before the subscription is disabled.
import type { Logger } from "../logger.js";
import { eventRecord } from "../queries/listing-events.js";
import type { ListingEventStore } from "../storage/listing-event-store.js";
import type { NewDelivery, WebhookDelivery, WebhookStore, WebhookSubscription } from "../storage/webhook-store.js";
import { SubscriptionIndex } from "./matching.js";
import { signedHeaders } from "./signing.js";
import { post, type TransportOptions } from "./transport.js";

/** Waits after the 1st, 2nd, ... failed attempt (the Standard Webhooks schedule); after the last, it is given up. */
export const RETRY_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];
/** A pending endpoint that never answered its challenge is disabled after this. */
export const VERIFICATION_WINDOW_MS = 24 * 3_600_000;
const CURSOR = "webhooks";
const EVENT_PAGE = 500;
const DELIVERY_PAGE = 500;
const PASSES_PER_RUN = 20;
const KEPT_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface DelivererDeps {
  store: WebhookStore;
  events: ListingEventStore;
  transport: TransportOptions;
  concurrency: number;
  logger: Logger;
  now(): Date;
}

export interface PassReport {
  verified: number;
  fannedOut: number;
  delivered: number;
  failed: number;
}

/** The body a subscriber receives: the Standard Webhooks envelope around one change-log event. */
export function eventPayload(type: string, at: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

export class WebhookDeliverer {
  private prunedAt: number | null = null;

  constructor(private readonly deps: DelivererDeps) {}

  async run(signal: AbortSignal, renewLease: () => Promise<boolean> = async () => true): Promise<PassReport> {
    const idle = await this.deps.store.nothingToDo(CURSOR, this.deps.now());
    if (idle) {
      await this.pruneWhenDue();
      return { verified: 0, fannedOut: 0, delivered: 0, failed: 0 };
    }
    const report: PassReport = { verified: await this.verifyPending(), fannedOut: 0, delivered: 0, failed: 0 };
    for (let pass = 0; pass < PASSES_PER_RUN && !signal.aborted; pass++) {
      const fannedOut = await this.fanOut();
      const sent = await this.deliverDue(signal);
      report.fannedOut += fannedOut;
      report.delivered += sent.delivered;
      report.failed += sent.failed;
      if (fannedOut === 0 && sent.delivered + sent.failed === 0) break;
      if (!(await renewLease())) break;
    }
    await this.pruneWhenDue();
    return report;
  }

  /** Forgets old deliveries, at most once per PRUNE_EVERY_MS: a delete every poll would cost more than the poll. */
  private async pruneWhenDue(): Promise<void> {
    const now = this.deps.now().getTime();
    if (this.prunedAt !== null && now - this.prunedAt < PRUNE_EVERY_MS) return;
    await this.deps.store.prune(new Date(now - KEPT_MS));
    this.prunedAt = now;
  }

  /** Sends each pending endpoint its challenge; the endpoint is verified when it echoes it back. */
  private async verifyPending(): Promise<number> {
    const { store, now } = this.deps;
    let verified = 0;
    await eachConcurrently(await store.pendingVerification(50), this.deps.concurrency, async (subscription) => {
      const at = now();
      if (at.getTime() - subscription.createdAt.getTime() > VERIFICATION_WINDOW_MS) return store.disable(subscription.id, "verification_failed");
      const payload = eventPayload("webhook.verification", at, { subscriptionId: subscription.id, challenge: subscription.challenge });
      const answer = await post(
        subscription.url,
        payload,
        signedHeaders(subscription.secret, `verify_${subscription.id}`, payload, new Date()),
        this.deps.transport,
      );
      if (answer.ok && echoed(answer.body ?? "", subscription.challenge ?? "")) {
        await store.verified(subscription.id, now());
        verified++;
      }
    });
    return verified;
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
    const listings = new Map((await events.subjects([...new Set(page.filter((e) => index.wantsListing(e)).map((e) => e.listingId))])).map((l) => [l.id, l]));
    const deliveries: NewDelivery[] = [];
    for (const event of page) {
      const recipients = index.recipients(event, listings.get(event.listingId) ?? null);
      if (recipients.length === 0) continue;
      const payload = eventPayload(event.type, event.at, eventRecord(event));
      for (const subscription of recipients) {
        deliveries.push({ subscriptionId: subscription.id, eventId: event.id, eventSeq: event.seq, listingId: event.listingId, payload });
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

  private async deliverDue(signal: AbortSignal): Promise<{ delivered: number; failed: number }> {
    const { store, now } = this.deps;
    const due = await store.due(now(), DELIVERY_PAGE);
    if (due.length === 0) return { delivered: 0, failed: 0 };
    const subscriptions = new Map((await store.subscriptions([...new Set(due.map((d) => d.subscriptionId))])).map((s) => [s.id, s]));
    const delivered: Array<{ id: string; statusCode: number }> = [];
    let failed = 0;
    await eachConcurrently(due, this.deps.concurrency, async (delivery) => {
      const subscription = subscriptions.get(delivery.subscriptionId);
      if (!subscription || signal.aborted) return;
      const statusCode = await this.attempt(subscription, delivery);
      if (statusCode === null) failed++;
      else delivered.push({ id: delivery.id, statusCode });
    });
    // Recorded together: a burst takes few turns of the database that catalog reads wait behind.
    if (delivered.length > 0) await store.delivered(delivered, now());
    return { delivered: delivered.length, failed };
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
      logger.warn({ subscription: subscription.id, error: answer.error }, "webhook subscription disabled: an event could not be delivered for 27 hours");
    }
    return null;
  }
}

/** The endpoint echoed the challenge: as `{"challenge": "..."}` or as the whole body. */
function echoed(body: string, challenge: string): boolean {
  if (!challenge) return false;
  if (body.trim() === challenge) return true;
  try {
    return (JSON.parse(body) as { challenge?: unknown }).challenge === challenge;
  } catch {
    return false;
  }
}

async function eachConcurrently<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
