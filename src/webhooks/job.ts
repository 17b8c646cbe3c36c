import type { JobDefinition } from "../jobs/job.js";
import type { PassReport, WebhookDeliverer } from "./deliverer.js";

/** Webhook delivery on one instance at a time (a lease): it takes over within a lease time when that instance dies. */
export function webhookDeliveryJob(deliverer: WebhookDeliverer, intervalMs: number): JobDefinition<PassReport> {
  return {
    name: "webhook-delivery",
    intervalMs,
    lease: { name: "webhook-delivery", ttlMs: Math.max(30_000, intervalMs * 5) },
    run: (signal, context) => deliverer.run(signal, () => context.renewLease()),
  };
}
