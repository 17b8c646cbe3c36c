// The webhooks area's rules: who may subscribe to what, and how a subscriber reads or removes its
// subscription. A seller subscribes to every listing of its payTo with an EIP-712 signature (the
// owner operations' domain and nonce store); anyone may follow chosen listings or a saved search.
// The secret is shown once; its hash is the bearer credential for the subscription afterwards.
import { timingSafeEqual } from "node:crypto";
import { getAddress, isAddress, type Hex, type TypedDataDefinition } from "viem";
import type { components } from "../../generated/openapi.js";
import { HttpError } from "../contract/errors.js";
import { nonceUsed, recovered, refuseBadDeadline, type OwnershipDeps } from "../listing/ownership.js";
import { freshAuthorization, webhookSubscriptionTypedData } from "../listing/owner-typed-data.js";
import type { MarketFacts } from "../market/facts.js";
import { linkTo, linkWithParams } from "../market/links.js";
import type { ListingEventStore } from "../queries/listing-event-store.js";
import {
  EndpointFullError,
  NonceSpentError,
  PendingCapError,
  type WebhookDelivery,
  type WebhookStore,
  type WebhookSubscription,
} from "./webhook-store.js";
import { newChallenge, newSecret, secretHash } from "./signing.js";
import { endpointProblem } from "./transport.js";

type Schemas = components["schemas"];
type CreateRequest = Schemas["WebhookCreateRequest"];
export type WebhookSubscriptionDocument = Schemas["WebhookSubscriptionDocument"];
export type WebhookCreated = Schemas["WebhookCreated"];

/** Subscriptions to one endpoint URL, at most: the same receiver cannot be made to collect thousands. */
export const MAX_PER_ENDPOINT = 100;
const DELIVERY_LOG = 50;

export const VERIFICATION_NOTE =
  "Before any event, the endpoint receives a signed POST of type webhook.verification whose data carries a challenge; " +
  'it must answer 2xx with the challenge (as {"challenge": "..."} or as the whole body) within 24 hours. Every delivery carries ' +
  "webhook-id (the event id), webhook-timestamp and webhook-signature (Standard Webhooks, HMAC-SHA256 with the secret).";

export interface WebhookSubscriptionsDeps {
  store: WebhookStore;
  events: ListingEventStore;
  market: MarketFacts;
  signatures: OwnershipDeps["signatures"];
  allowLoopbackReceivers: boolean;
  /** Pending subscriptions (and endpoints refused in the last day) at most per client address, per target host, in all. */
  pendingCaps: { perClient: number; perHost: number; total: number };
  now(): Date;
}

const CAPS = {
  client: { where: "from this client address", setting: "WEBHOOK_PENDING_PER_CLIENT" },
  host: { where: "for this endpoint's host", setting: "WEBHOOK_PENDING_PER_HOST" },
  total: { where: "in this marketplace", setting: "WEBHOOK_PENDING_TOTAL" },
} as const;

function invalid(field: string, message: string): HttpError {
  return new HttpError(400, "invalid_request", `Invalid request: body ${field} ${message}. Nothing was saved.`, [
    { in: "body", field, message },
  ]);
}

export class WebhookSubscriptions {
  constructor(private readonly deps: WebhookSubscriptionsDeps) {}

  async create(body: CreateRequest, clientIp: string): Promise<WebhookCreated> {
    const { store, now } = this.deps;
    const chosen = [body.seller, body.listingIds, body.search].filter((value) => value !== undefined).length;
    if (chosen !== 1) throw invalid("/", "must name exactly one of seller, listingIds or search");
    const problem = endpointProblem(body.url, this.deps.allowLoopbackReceivers);
    if (problem) throw invalid("/url", problem);
    if (body.listingIds) {
      const ids = [...new Set(body.listingIds)];
      const stored = new Set(
        (await this.deps.events.subjects(ids)).filter((listing) => !listing.leftoverSeed).map((listing) => listing.id),
      );
      const unknown = ids.filter((id) => !stored.has(id));
      if (unknown.length > 0)
        throw invalid("/listingIds", `names listings that are not stored: ${unknown.slice(0, 3).join(", ")}`);
    }
    const seller = body.seller ? await this.provenSeller(body.seller, body.url) : null;
    const secret = newSecret();
    let created: WebhookSubscription;
    try {
      created = await store.create(
        {
          url: body.url,
          kind: seller ? "seller" : body.listingIds ? "listings" : "search",
          ...(seller && { sellerPayTo: seller.payTo, nonce: { nonce: seller.nonce, signer: seller.payTo } }),
          ...(body.listingIds && { listingIds: [...new Set(body.listingIds)] }),
          ...(body.search && { search: { ...body.search } }),
          ...(body.events && { eventTypes: [...new Set(body.events)] }),
          secret,
          secretHash: secretHash(secret),
          challenge: newChallenge(),
          clientIp,
          host: new URL(body.url).hostname.toLowerCase(),
        },
        {
          perUrl: MAX_PER_ENDPOINT,
          pendingPerClient: this.deps.pendingCaps.perClient,
          pendingPerHost: this.deps.pendingCaps.perHost,
          pendingTotal: this.deps.pendingCaps.total,
        },
        now(),
      );
    } catch (error) {
      if (error instanceof EndpointFullError) {
        throw new HttpError(
          409,
          "too_many_subscriptions",
          `This endpoint has ${MAX_PER_ENDPOINT} subscriptions already; delete some first. Nothing was saved.`,
        );
      }
      if (error instanceof PendingCapError) {
        throw new HttpError(
          429,
          "too_many_pending_subscriptions",
          `${error.limit} subscriptions are waiting for their endpoint's verification ${CAPS[error.cap].where} already ` +
            `(the cap ${CAPS[error.cap].setting}; an endpoint that answered without the challenge counts for 24 hours). ` +
            "Answer the verification requests first. Nothing was saved.",
          undefined,
          { "Retry-After": "60" },
        );
      }
      if (error instanceof NonceSpentError) throw nonceUsed(body.seller!.nonce);
      throw error;
    }
    return { ...this.document(created, []), secret, verification: VERIFICATION_NOTE };
  }

  /** GET /webhooks/sign: what a seller signs, with a fresh nonce and a deadline 10 minutes ahead. */
  signingDocument(payTo: string, url: string): Schemas["WebhookSigningDocument"] {
    const problem = endpointProblem(url, this.deps.allowLoopbackReceivers);
    if (problem)
      throw new HttpError(400, "invalid_request", `Invalid request: query url ${problem}.`, [
        { in: "query", field: "url", message: problem },
      ]);
    const { nonce, deadline } = freshAuthorization(this.deps.now());
    const signer = getAddress(payTo);
    return {
      signer,
      typedData: webhookSubscriptionTypedData(this.deps.market.name, signer, url, {
        nonce,
        deadline,
      }) as unknown as Schemas["TypedData"],
      submit: {
        method: "POST",
        url: linkTo(this.deps.market, "/webhooks"),
        body: { url, seller: { payTo: signer, nonce, deadline, signature: "<the EIP-712 signature>" } },
      },
      expiresAt: new Date(deadline * 1000).toISOString(),
      note: `Sign typedData with the payTo's key (eth_signTypedData_v4), put the signature in submit.body.seller.signature and POST it before the deadline; the nonce is accepted once. ${VERIFICATION_NOTE}`,
    };
  }

  async show(id: string, authorization: string | undefined): Promise<WebhookSubscriptionDocument> {
    const subscription = await this.authorized(id, authorization);
    return this.document(subscription, await this.deps.store.deliveries(id, DELIVERY_LOG));
  }

  async remove(id: string, authorization: string | undefined): Promise<{ id: string; deleted: true }> {
    await this.authorized(id, authorization);
    await this.deps.store.delete(id, this.deps.now());
    return { id, deleted: true };
  }

  /** The seller's signature over this subscription, checked like an owner operation's; its payTo and nonce. */
  private async provenSeller(
    proof: NonNullable<CreateRequest["seller"]>,
    url: string,
  ): Promise<{ payTo: string; nonce: string }> {
    if (!isAddress(proof.payTo, { strict: false })) throw invalid("/seller/payTo", "is not an address");
    refuseBadDeadline(proof.deadline, this.deps.now(), "GET /webhooks/sign");
    const typedData = webhookSubscriptionTypedData(this.deps.market.name, getAddress(proof.payTo), url, {
      nonce: proof.nonce as Hex,
      deadline: proof.deadline,
    });
    const signer = await recovered(
      this.deps.signatures,
      {
        ...typedData,
        message: { ...typedData.message, deadline: BigInt(proof.deadline) },
      } as unknown as TypedDataDefinition,
      proof.signature as Hex,
    );
    if (signer === null || getAddress(signer) !== getAddress(proof.payTo)) {
      throw new HttpError(
        403,
        "not_owner",
        "The signature does not recover seller.payTo over this subscription's typed data (GET /webhooks/sign). Nothing was saved.",
      );
    }
    return { payTo: proof.payTo.toLowerCase(), nonce: proof.nonce };
  }

  /** The subscription, when `Authorization: Bearer <its secret>` is sent; the same 401 for an unknown id and a wrong secret. */
  private async authorized(id: string, authorization: string | undefined): Promise<WebhookSubscription> {
    const refused = new HttpError(
      401,
      "unauthorized",
      "Send the subscription's secret as Authorization: Bearer <secret> (it was shown once, at creation).",
    );
    const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (!presented) throw refused;
    const subscription = await this.deps.store.find(id);
    if (!subscription) throw refused;
    const [a, b] = [Buffer.from(secretHash(presented), "hex"), Buffer.from(subscription.secretHash, "hex")];
    if (a.length !== b.length || !timingSafeEqual(a, b)) throw refused;
    return subscription;
  }

  private document(subscription: WebhookSubscription, deliveries: WebhookDelivery[]): WebhookSubscriptionDocument {
    const { market } = this.deps;
    return {
      id: subscription.id,
      url: subscription.url,
      kind: subscription.kind as WebhookSubscriptionDocument["kind"],
      status: subscription.status as WebhookSubscriptionDocument["status"],
      ...(subscription.disabledReason && { disabledReason: subscription.disabledReason }),
      ...(subscription.sellerPayTo && { sellerPayTo: subscription.sellerPayTo }),
      ...(subscription.listingIds !== null && { listingIds: subscription.listingIds as string[] }),
      ...(subscription.search !== null && { search: subscription.search as unknown as Schemas["SavedSearch"] }),
      ...(subscription.eventTypes !== null && {
        events: subscription.eventTypes as WebhookSubscriptionDocument["events"],
      }),
      createdAt: subscription.createdAt.toISOString(),
      ...(subscription.verifiedAt && { verifiedAt: subscription.verifiedAt.toISOString() }),
      deliveries: deliveries.map(deliveryRecord),
      links: { self: linkWithParams(market, "/webhooks/{id}", { id: subscription.id }) },
    };
  }
}

function deliveryRecord(delivery: WebhookDelivery): Schemas["WebhookDeliveryRecord"] {
  return {
    eventId: delivery.eventId,
    eventSeq: delivery.eventSeq,
    listingId: delivery.listingId,
    status: delivery.status as Schemas["WebhookDeliveryRecord"]["status"],
    attempts: delivery.attempts,
    ...(delivery.status === "pending" && { nextAttemptAt: delivery.nextAttemptAt.toISOString() }),
    ...(delivery.lastAttemptAt && { lastAttemptAt: delivery.lastAttemptAt.toISOString() }),
    ...(delivery.lastStatusCode !== null && { lastStatusCode: delivery.lastStatusCode }),
    ...(delivery.lastError && { lastError: delivery.lastError }),
    ...(delivery.deliveredAt && { deliveredAt: delivery.deliveredAt.toISOString() }),
  };
}
