// Listing health as the service holds it: the store (reads, the listing-time sample) and the
// re-prober, built once in src/server.ts.
import type { HealthConfig } from "../config.js";
import type { Logger } from "../logger.js";
import type { SellerProbe } from "../probe/seller-probe.js";
import { HealthStore } from "./health-store.js";
import type { ProbeOutcome } from "./health-rules.js";
import type { ListingStore } from "../storage/listing/listing-store.js";
import { HealthProber } from "./prober.js";

export interface Health {
  store: HealthStore;
  prober: HealthProber;
  /** The probe that passed when a listing was paid for (or renewed): its first health sample. */
  recordListingProbe(listingId: string, latencyMs: number, now: Date): Promise<void>;
  /** A probe outside the rounds by the listing's owner (an update's), passing or failing, counted like a round's. */
  recordProbe(listingId: string, outcome: ProbeOutcome, now: Date): Promise<void>;
  /**
   * A free refresh's probe (anyone may ask): always shown as a sample, counted like a round's only
   * when the listing is due, so strangers cannot move its health faster than the rounds do.
   */
  recordRefresh(listingId: string, outcome: ProbeOutcome, now: Date): Promise<void>;
}

export function createHealth(deps: {
  store: ListingStore;
  probe: SellerProbe;
  config: HealthConfig;
  logger: Logger;
  now(): Date;
}): Health {
  const store = new HealthStore(deps.store.transactions);
  const prober = new HealthProber({
    store,
    probe: deps.probe,
    config: deps.config,
    logger: deps.logger,
    now: deps.now,
  });
  return {
    store,
    prober,
    recordListingProbe: (listingId, latencyMs, now) =>
      store.recordProbe(listingId, { ok: true, latencyMs }, now, { ...prober.schedule, fresh: true }),
    recordProbe: (listingId, outcome, now) =>
      store.recordProbe(listingId, outcome, now, { ...prober.schedule, fresh: false }),
    recordRefresh: (listingId, outcome, now) =>
      store.recordProbe(listingId, outcome, now, { ...prober.schedule, fresh: false, counts: "when_due" }),
  };
}
