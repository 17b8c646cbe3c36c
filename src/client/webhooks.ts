// Following listings: their status and events (GET /listings/{id}/status, the seller feeds) and
// signed webhooks (POST /webhooks). A seller's subscription is signed with its payTo's key as EIP-712
// typed data from GET /webhooks/sign, checked before it is signed.
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ToolkitError } from "./errors.js";
import { createMarketplaceClient, type MarketplaceClient, type Schemas } from "./marketplace-client.js";

export type WebhookCreateRequest = Schemas["WebhookCreateRequest"];
export type WebhookCreated = Schemas["WebhookCreated"];
export type WebhookSubscription = Schemas["WebhookSubscriptionDocument"];
export type ListingStatusDocument = Schemas["ListingStatusDocument"];
export type ListingEventRecord = Schemas["ListingEventRecord"];

function failure(what: string, status: number, error: unknown): ToolkitError {
  const body = error as { error?: string; message?: string } | undefined;
  const reason = body?.error ? `${body.error}: ${body.message ?? ""}` : "no body";
  const kind = status === 401 || status === 403 || status === 409 ? "refused" : "request";
  return new ToolkitError(kind, `${what} answered ${status} (${reason})`, undefined, error);
}

/** Any stored listing's status, reasons and recent transitions (newest first). */
export async function listingStatus(client: MarketplaceClient, listingId: string): Promise<ListingStatusDocument> {
  const { data, error, response } = await client.GET("/listings/{id}/status", { params: { path: { id: listingId } } });
  if (!data) throw failure(`GET /listings/{id}/status of ${listingId}`, response.status, error);
  return data;
}

/** One seller's newest events (newest first). */
export async function sellerEvents(client: MarketplaceClient, payTo: string): Promise<ListingEventRecord[]> {
  const { data, error, response } = await client.GET("/sellers/{payTo}/feed.json", { params: { path: { payTo } } });
  if (!data) throw failure(`GET /sellers/{payTo}/feed.json of ${payTo}`, response.status, error);
  return data.items.map((item) => item.event);
}

/** POST /webhooks for chosen listings or a saved search; the answer carries the secret, once. */
export async function subscribeWebhook(
  client: MarketplaceClient,
  request: WebhookCreateRequest,
): Promise<WebhookCreated> {
  const { data, error, response } = await client.POST("/webhooks", { body: request });
  if (!data) throw failure("POST /webhooks", response.status, error);
  return data;
}

/** A seller's subscription to every listing of its payTo: the typed data is fetched, checked, signed with the key and sent. */
export async function subscribeSeller(options: {
  baseUrl?: string;
  privateKey: Hex;
  url: string;
  events?: WebhookCreateRequest["events"];
}): Promise<WebhookCreated> {
  const client = createMarketplaceClient(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl });
  const account = privateKeyToAccount(options.privateKey);
  const { data, error, response } = await client.GET("/webhooks/sign", {
    params: { query: { payTo: account.address, url: options.url } },
  });
  if (!data) throw failure("GET /webhooks/sign", response.status, error);
  const message = data.typedData.message as Record<string, unknown>;
  if (
    data.typedData.primaryType !== "SubscribeWebhooks" ||
    message.payTo !== account.address ||
    message.url !== options.url
  ) {
    throw new ToolkitError(
      "refused",
      "the typed data to sign is not this subscription (payTo or url differ); nothing was signed",
    );
  }
  const signature = await account.signTypedData(data.typedData as never);
  const seller = {
    payTo: account.address,
    nonce: message.nonce as string,
    deadline: Number(message.deadline),
    signature,
  };
  return subscribeWebhook(client, { url: options.url, seller, ...(options.events && { events: options.events }) });
}

const bearer = (secret: string) => ({ header: { authorization: `Bearer ${secret}` } });

/** A subscription and its delivery log, read with its secret. */
export async function getWebhook(client: MarketplaceClient, id: string, secret: string): Promise<WebhookSubscription> {
  const { data, error, response } = await client.GET("/webhooks/{id}", { params: { path: { id }, ...bearer(secret) } });
  if (!data) throw failure(`GET /webhooks/${id}`, response.status, error);
  return data;
}

export async function deleteWebhook(client: MarketplaceClient, id: string, secret: string): Promise<void> {
  const { data, error, response } = await client.DELETE("/webhooks/{id}", {
    params: { path: { id }, ...bearer(secret) },
  });
  if (!data) throw failure(`DELETE /webhooks/${id}`, response.status, error);
}
