// What the webhook store (webhook-store.ts) takes and refuses with: a new subscription and its caps,
// a new delivery, the subscription rules' constants, and the errors a create answers. Re-exported by
// webhook-store.ts, so its callers name them from there.

/** The owner nonce a seller's subscription spends: OwnerNonce rows are per listing, this one is per seller. */
export const SELLER_NONCE_LISTING = "00000000-0000-0000-0000-000000000000";

export interface NewSubscription {
  url: string;
  kind: "seller" | "listings" | "search";
  sellerPayTo?: string;
  listingIds?: string[];
  search?: Record<string, unknown>;
  eventTypes?: string[];
  secret: string;
  secretHash: string;
  challenge: string;
  /** A seller's subscription spends its signed nonce in the same transaction. */
  nonce?: { nonce: string; signer: string };
  /** The creating client's address and the endpoint's lowercase host: what the pending caps count by. */
  clientIp: string;
  host: string;
}

/** Subscriptions one endpoint URL may hold, and pending places per client, per target host and in all. */
export interface SubscriptionCaps {
  perUrl: number;
  pendingPerClient: number;
  pendingPerHost: number;
  pendingTotal: number;
}

/** Why an endpoint answered its verification request and was refused at once (it holds a pending place for a day). */
export const CHALLENGE_NOT_ECHOED = "challenge_not_echoed";
/** A pending subscription refused at once holds its pending place this long (re-subscribing cannot cycle the caps). */
export const REFUSED_HELD_MS = 24 * 3_600_000;

export interface NewDelivery {
  subscriptionId: string;
  eventId: string;
  eventSeq: number;
  listingId: string;
  payload: string;
}

/** The endpoint holds its cap of subscriptions already (counted in the creating transaction). */
export class EndpointFullError extends Error {
  constructor() {
    super("endpoint has its cap of subscriptions");
    this.name = "EndpointFullError";
  }
}

/** A pending-subscription cap is reached: per client address, per target host, or in all. */
export class PendingCapError extends Error {
  constructor(
    readonly cap: "client" | "host" | "total",
    readonly limit: number,
  ) {
    super(`pending subscriptions cap (${cap}) reached`);
    this.name = "PendingCapError";
  }
}

export class NonceSpentError extends Error {
  constructor() {
    super("nonce used already");
    this.name = "NonceSpentError";
  }
}
