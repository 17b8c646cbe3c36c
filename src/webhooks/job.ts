import type { BackgroundJob, JobBasics } from "../jobs/job.js";
import type { ListingEventStore } from "../queries/listing-event-store.js";
import type { WebhookStore } from "./webhook-store.js";
import { WebhookDeliverer } from "./deliverer.js";

/** Webhook delivery on one instance at a time (a lease): it takes over within a lease time when that instance dies. */
/** Its stores out of `repositories` (src/repositories.ts): the subscriptions and the change log. */
type DeliveryServices = JobBasics & { repositories: { webhooks: WebhookStore; events: ListingEventStore } };

export const webhookDeliveryJob: BackgroundJob<DeliveryServices> = {
  name: "webhook-delivery",
  create: ({ config, repositories, logger, now }) => {
    const { events } = config;
    const deliverer = new WebhookDeliverer({
      store: repositories.webhooks,
      events: repositories.events,
      transport: { timeoutMs: events.deliveryTimeoutMs, allowLoopback: events.allowLoopbackReceivers },
      concurrency: events.deliveryConcurrency,
      slotMs: events.deliverySlotMs,
      logger,
      now,
    });
    const intervalMs = events.deliveryIntervalMs;
    return {
      intervalMs,
      lease: { name: "webhook-delivery", ttlMs: Math.max(30_000, intervalMs * 5) },
      run: (signal, context) => deliverer.run(signal, () => context.renewLease()),
    };
  },
};
