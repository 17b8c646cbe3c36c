// Every store, one per table group, built once per database in the composition root (src/server.ts)
// and handed to the areas that use them: no handler or domain module builds a store of its own.
// A store lives with the area that owns its tables (usage/, webhooks/, indexing/, queries/ for the
// change log's reads); what several areas share stays in src/storage/. Listing health's store
// (src/health/) is built once by createHealth on these listings' transactions.
import { randomUUID } from "node:crypto";
import { INSTANCE_ID, JobLeases } from "./storage/job-leases.js";
import type { Database } from "./storage/database.js";
import { ListingEventStore } from "./queries/listing-event-store.js";
import { ListingStore } from "./storage/listing/listing-store.js";
import { OwnerStore } from "./storage/listing/owner-store.js";
import { PaymentIdempotencyStore } from "./storage/listing/payment-idempotency-store.js";
import { UsageStore } from "./usage/usage-store.js";
import { WebhookStore } from "./webhooks/webhook-store.js";
import { ServiceKeyStore } from "./storage/service-keys.js";
import { IndexStore } from "./indexing/index-store.js";

export interface Repositories {
  /** Listings, payments and the catalog reads; its `transactions` is the one write path the others share. */
  listings: ListingStore;
  /** The owner's self-service writes (claim, update, delist). */
  owners: OwnerStore;
  /** Token transfers, the indexer's checkpoint, the wash groups. */
  usage: UsageStore;
  /** Replies of paid listing requests by payment identifier. */
  idempotency: PaymentIdempotencyStore;
  /** The catalog's change log (events written with each catalog write): webhooks, history, feeds, mirrors. */
  events: ListingEventStore;
  /** Webhook subscriptions, their deliveries and the fan-out's cursor. */
  webhooks: WebhookStore;
  /** Keys every instance shares (the snapshot signing key when none is configured). */
  keys: ServiceKeyStore;
  /** Rows read from other catalogs and domains (issue 28), and where the crawler is in each source. */
  index: IndexStore;
  /** Leases of background jobs that run on one instance at a time. */
  leases: JobLeases;
}

export function createRepositories(database: Database): Repositories {
  const listings = new ListingStore(database);
  const { transactions } = listings;
  return {
    listings,
    owners: new OwnerStore(transactions),
    usage: new UsageStore(transactions),
    idempotency: new PaymentIdempotencyStore(transactions),
    events: new ListingEventStore(transactions),
    webhooks: new WebhookStore(transactions),
    keys: new ServiceKeyStore(database),
    index: new IndexStore(transactions),
    // Each set of repositories is its own lease holder, also two in one process (tests, an in-process restart).
    leases: new JobLeases(database, `${INSTANCE_ID}:${randomUUID().slice(0, 8)}`),
  };
}
