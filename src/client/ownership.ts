// A listing's owner (its sellerPayTo) at work: claim, update and delist, each signed with the owner's
// key as EIP-712 typed data, and the free refresh. The typed data comes from GET /listings/{id}/sign
// and is checked against what was asked before it is signed: Base's chain id, the operation, the
// listing and every changed field, and that the key is the listing's owner.
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ToolkitError } from "./errors.js";
import { createMarketplaceClient, type MarketplaceClient, type Schemas } from "./marketplace-client.js";

export type OwnerAction = Schemas["OwnerAction"];
export type SigningDocument = Schemas["SigningDocument"];
export type OwnerActionResult = Schemas["OwnerActionResult"];
export type RefreshResult = Schemas["RefreshResult"];

/** The fields an update changes; the others stay. `inputSchema: null` removes the schema. */
export interface ListingChanges {
  description?: string;
  method?: "GET" | "POST";
  inputSchema?: Record<string, unknown> | null;
  priceUsdc?: string;
}

export interface OwnerOptions {
  /** The service's origin. */
  baseUrl?: string;
  /** The owner's key (sellerPayTo's). */
  privateKey: Hex;
  listingId: string;
}

const BASE_CHAIN_ID = 8453;
const PRIMARY_TYPES: Record<OwnerAction, string> = {
  claim: "ClaimListing",
  update: "UpdateListing",
  delist: "DelistListing",
};

function failure(what: string, status: number, error: unknown): ToolkitError {
  const body = error as { error?: string; message?: string } | undefined;
  const reason = body?.error ? `${body.error}: ${body.message ?? ""}` : "no body";
  const kind = status === 401 || status === 403 || status === 409 ? "refused" : "request";
  return new ToolkitError(
    kind,
    `${what} answered ${status} (${reason})`,
    status === 409 ? "sign again (a fresh nonce)" : undefined,
    error,
  );
}

/** GET /listings/{id}/sign: the typed data of `action`, as the service states it. */
export async function signingDocumentFor(
  client: MarketplaceClient,
  listingId: string,
  action: OwnerAction,
  changes: ListingChanges = {},
): Promise<SigningDocument> {
  const { inputSchema, ...plain } = changes;
  const query = { action, ...plain, ...(inputSchema !== undefined && { inputSchema: JSON.stringify(inputSchema) }) };
  const { data, error, response } = await client.GET("/listings/{id}/sign", {
    params: { path: { id: listingId }, query },
  });
  if (!data) throw failure(`GET /listings/${listingId}/sign`, response.status, error);
  return data;
}

/** Refuses typed data that is not what the owner asked to sign. */
function checkDocument(
  document: SigningDocument,
  listingId: string,
  action: OwnerAction,
  changes: ListingChanges,
): void {
  const { typedData } = document;
  const message = typedData.message as Record<string, unknown>;
  const problems: string[] = [];
  if (typedData.domain.chainId !== BASE_CHAIN_ID) problems.push(`chainId ${typedData.domain.chainId}`);
  if (typedData.primaryType !== PRIMARY_TYPES[action]) problems.push(`primaryType ${typedData.primaryType}`);
  if (message.listingId !== listingId) problems.push(`listingId ${String(message.listingId)}`);
  if (action === "update") {
    for (const field of ["description", "method", "priceUsdc"] as const) {
      if (message[field] !== (changes[field] ?? "")) problems.push(`${field} ${JSON.stringify(message[field])}`);
    }
  }
  if (problems.length > 0)
    throw new ToolkitError(
      "refused",
      `the service asked to sign something else than requested (${problems.join(", ")}); nothing was signed`,
    );
}

/** Signs typed data of the sign document with `privateKey` (an externally owned account). */
export function signOwnerTypedData(document: SigningDocument, privateKey: Hex): Promise<Hex> {
  const { EIP712Domain: _, ...types } = document.typedData.types;
  const message = document.typedData.message as Record<string, unknown>;
  return privateKeyToAccount(privateKey).signTypedData({
    domain: document.typedData.domain,
    types,
    primaryType: document.typedData.primaryType,
    message: { ...message, deadline: BigInt(message.deadline as number) },
  });
}

/** The request body of a signed operation: the sign document's body with the signature. */
async function signedBody(
  client: MarketplaceClient,
  options: OwnerOptions,
  action: OwnerAction,
  changes: ListingChanges,
) {
  const document = await signingDocumentFor(client, options.listingId, action, changes);
  checkDocument(document, options.listingId, action, changes);
  const owner = privateKeyToAccount(options.privateKey).address;
  if (document.signer.toLowerCase() !== owner.toLowerCase()) {
    throw new ToolkitError(
      "refused",
      `listing ${options.listingId} belongs to ${document.signer} (its sellerPayTo), not to this key's ${owner}`,
      "sign with the key of the address that receives the listing's sales",
    );
  }
  const message = document.typedData.message as { nonce: Hex; deadline: number };
  return {
    ...changes,
    nonce: message.nonce,
    deadline: message.deadline,
    chainId: BASE_CHAIN_ID,
    signature: await signOwnerTypedData(document, options.privateKey),
  };
}

export async function claimListing(options: OwnerOptions): Promise<OwnerActionResult> {
  const client = createMarketplaceClient({ baseUrl: options.baseUrl });
  const body = await signedBody(client, options, "claim", {});
  const { data, error, response } = await client.POST("/listings/{id}/claim", {
    params: { path: { id: options.listingId } },
    body,
  });
  if (!data) throw failure(`POST /listings/${options.listingId}/claim`, response.status, error);
  return data;
}

/** A price or method change is accepted only once the seller's own 402 shows it. */
export async function updateListing(options: OwnerOptions, changes: ListingChanges): Promise<OwnerActionResult> {
  const client = createMarketplaceClient({ baseUrl: options.baseUrl });
  const body = await signedBody(client, options, "update", changes);
  const { data, error, response } = await client.PATCH("/listings/{id}", {
    params: { path: { id: options.listingId } },
    body,
  });
  if (!data) throw failure(`PATCH /listings/${options.listingId}`, response.status, error);
  return data;
}

/** Hides the listing everywhere at once. The listing fee is not refunded. */
export async function delistListing(options: OwnerOptions): Promise<OwnerActionResult> {
  const client = createMarketplaceClient({ baseUrl: options.baseUrl });
  const body = await signedBody(client, options, "delist", {});
  const { data, error, response } = await client.DELETE("/listings/{id}", {
    params: { path: { id: options.listingId } },
    body,
  });
  if (!data) throw failure(`DELETE /listings/${options.listingId}`, response.status, error);
  return data;
}

/** Re-probes the listing's seller now (free, for anyone; rate-limited per client). */
export async function refreshListing(options: { baseUrl?: string; listingId: string }): Promise<RefreshResult> {
  const client = createMarketplaceClient({ baseUrl: options.baseUrl });
  const { data, error, response } = await client.POST("/listings/{id}/refresh", {
    params: { path: { id: options.listingId } },
  });
  if (!data) throw failure(`POST /listings/${options.listingId}/refresh`, response.status, error);
  return data;
}
