// The EIP-712 typed data of owner operations (claim, update, delist): one definition, which
// GET /listings/{id}/sign hands out and the owner routes verify against. The domain has no
// verifying contract (nothing on chain checks these signatures): { name: the marketplace's name,
// version "1", chainId 8453 }, always Base, whatever chain the service settles on.
import { randomBytes } from "node:crypto";
import { keccak256, stringToHex, toHex, zeroHash, type Hex } from "viem";
import { CHAIN_ID } from "../constants.js";

export type OwnerAction = "claim" | "update" | "delist";

/** Bumped when a type below changes, so an old signature can never be read as a new message. */
export const OWNER_DOMAIN_VERSION = "1";
/** A signature's deadline may be at most this far ahead. */
export const OWNER_DEADLINE_MAX_SECONDS = 600;

const AUTHORIZATION = [
  { name: "nonce", type: "bytes32" },
  { name: "deadline", type: "uint256" },
] as const;

export const OWNER_TYPES = {
  EIP712Domain: [
    { name: "name", type: "string" },
    { name: "version", type: "string" },
    { name: "chainId", type: "uint256" },
  ],
  ClaimListing: [{ name: "listingId", type: "string" }, ...AUTHORIZATION],
  DelistListing: [{ name: "listingId", type: "string" }, ...AUTHORIZATION],
  /** An empty string (or the zero hash for the schema) leaves that field unchanged. */
  UpdateListing: [
    { name: "listingId", type: "string" },
    { name: "description", type: "string" },
    { name: "method", type: "string" },
    { name: "inputSchemaHash", type: "bytes32" },
    { name: "priceUsdc", type: "string" },
    ...AUTHORIZATION,
  ],
  /** A seller's webhook subscription: every listing of `payTo`, delivered to `url`. */
  SubscribeWebhooks: [{ name: "payTo", type: "address" }, { name: "url", type: "string" }, ...AUTHORIZATION],
} as const;

export const PRIMARY_TYPE = {
  claim: "ClaimListing",
  update: "UpdateListing",
  delist: "DelistListing",
} as const satisfies Record<OwnerAction, keyof typeof OWNER_TYPES>;

/** The fields an update may change; absent ones stay as they are. `inputSchema: null` removes the schema. */
export interface ListingChanges {
  description?: string | undefined;
  method?: "GET" | "POST" | undefined;
  inputSchema?: Record<string, unknown> | null | undefined;
  priceUsdc?: string | undefined;
}

export interface OwnerAuthorizationFields {
  nonce: Hex;
  /** Unix seconds. */
  deadline: number;
}

/** What a signing document hands out: a fresh 32-byte nonce and the furthest deadline accepted (10 minutes ahead). */
export function freshAuthorization(now: Date): OwnerAuthorizationFields {
  return { nonce: toHex(randomBytes(32)), deadline: Math.floor(now.getTime() / 1000) + OWNER_DEADLINE_MAX_SECONDS };
}

/** JSON with object keys sorted at every level: the same schema always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((entry) => canonicalJson(entry)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** keccak-256 of the new schema's canonical JSON (`null` to remove it); the zero hash when unchanged. */
export function inputSchemaHash(inputSchema: ListingChanges["inputSchema"]): Hex {
  return inputSchema === undefined ? zeroHash : keccak256(stringToHex(canonicalJson(inputSchema)));
}

export function ownerDomain(marketName: string) {
  return { name: marketName, version: OWNER_DOMAIN_VERSION, chainId: CHAIN_ID } as const;
}

/** The message of `action` on `listingId`; `deadline` stays a number so the document is plain JSON. */
export function ownerMessage(
  action: OwnerAction,
  listingId: string,
  authorization: OwnerAuthorizationFields,
  changes: ListingChanges = {},
): Record<string, string | number> {
  const signed = { nonce: authorization.nonce, deadline: authorization.deadline };
  if (action !== "update") return { listingId, ...signed };
  return {
    listingId,
    description: changes.description ?? "",
    method: changes.method ?? "",
    inputSchemaHash: inputSchemaHash(changes.inputSchema),
    priceUsdc: changes.priceUsdc ?? "",
    ...signed,
  };
}

/** The complete typed data, as `eth_signTypedData_v4` and viem's signTypedData take it. */
export function ownerTypedData(
  marketName: string,
  action: OwnerAction,
  listingId: string,
  authorization: OwnerAuthorizationFields,
  changes: ListingChanges = {},
) {
  const primaryType = PRIMARY_TYPE[action];
  return {
    domain: ownerDomain(marketName),
    types: { EIP712Domain: OWNER_TYPES.EIP712Domain, [primaryType]: OWNER_TYPES[primaryType] },
    primaryType,
    message: ownerMessage(action, listingId, authorization, changes),
  };
}

/** The typed data a seller signs to have its listings' events sent to `url` (same domain and nonces as owner operations). */
export function webhookSubscriptionTypedData(
  marketName: string,
  payTo: string,
  url: string,
  authorization: OwnerAuthorizationFields,
) {
  return {
    domain: ownerDomain(marketName),
    types: { EIP712Domain: OWNER_TYPES.EIP712Domain, SubscribeWebhooks: OWNER_TYPES.SubscribeWebhooks },
    primaryType: "SubscribeWebhooks" as const,
    message: { payTo, url, nonce: authorization.nonce, deadline: authorization.deadline },
  };
}
