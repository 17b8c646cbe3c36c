/**
 * The marketplace's fixed facts: the one network, token and fee every part of the service uses.
 * Configuration chooses only the wallet, the origin and (for development) another token address.
 */
import { CONTRACT_VERSION } from "../generated/operations.js";

/** The x402 protocol version spoken everywhere. */
export const X402_VERSION = 2;

/** Base mainnet, CAIP-2: the only network of fees and listings. */
export const NETWORK = "eip155:8453";
export type Network = typeof NETWORK;
/** Its EVM chain id (the local development chain uses the same). */
export const CHAIN_ID = 8453;

/** Base mainnet USDC, the asset `price: "$0.10"` resolves to on eip155:8453. */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
/** USDC's EIP-712 domain, sent as `extra` in payment requirements. */
export const USDC_DOMAIN = { name: "USD Coin", version: "2" } as const;

/** The listing fee, in USDC and in the token's smallest units (6 decimals). */
export const LISTING_FEE_USDC = "0.10";
export const LISTING_FEE_ATOMIC = "100000";
/** A paid listing is active this long; paying again renews it. */
export const LISTING_TTL_DAYS = 30;
/** The marketplace takes nothing from sales (basis points). */
export const SALE_TAKE_BPS = 0;

/** Seconds a signed payment stays valid (`maxTimeoutSeconds` of every requirement). */
export const PAYMENT_TIMEOUT_SECONDS = 300;
/** How long the facilitator remembers a signature it recovered as valid (verify, then settle, of one payment). */
export const SIGNATURE_MEMORY_MS = 10 * 60_000;
/** Signatures remembered at most (about 200 bytes each). */
export const SIGNATURE_MEMORY_LIMIT = 10_000;
/** A settlement like one sent this recently (same function and payer) is estimated again in its turn; at most this many remembered. */
export const RECENT_SEND_MS = 30_000;
export const RECENT_SEND_LIMIT = 10_000;
/** How long the facilitator remembers an account's code (verify, then settle, of one payment read it once); at most this many remembered. */
export const CODE_MEMORY_MS = 30_000;
export const CODE_MEMORY_LIMIT = 10_000;

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
export const LISTING_TTL_MS = LISTING_TTL_DAYS * DAY_MS;
/**
 * How far a re-probe round lets the catalog's `lastCheckedAt` (a listing's published health
 * summary) fall behind its last probe when nothing else shown moved: such a probe is recorded in
 * the listing's health row (its lastProbes) without a catalog write or version bump until then.
 */
export const HEALTH_CHECKED_AT_REFRESH_MS = HOUR_MS;

/** The interface version: the compiled contract's `info.version` (spec/main.tsp). */
export { CONTRACT_VERSION };

/**
 * SQLite's page cache per connection (two connections: writes, catalog reads), in MiB. better-sqlite3
 * builds SQLite with 16 MiB, which a 100k-listing catalog fills: 33 MiB of the process. The file's
 * pages stay in the operating system's cache, so a page SQLite no longer holds costs a read from
 * memory, not from disk.
 */
export const DEFAULT_SQLITE_CACHE_MB = 4;
