// What the search engine knows of a listing: the text it matches and the facts it ranks and filters
// by. The catalog's own rows (src/storage/) are turned into these by the caller.

/** The sentence model's vector length (sentence-model.ts); here so the request thread need not load the model's package to know it. */
export const DIMENSIONS = 512;

export type HealthStatus = "healthy" | "unhealthy" | "drifted" | "unknown";

export interface SearchDocument {
  id: string;
  serviceName: string | null;
  description: string;
  resource: string;
  tags: string[];
  /** The seller's receiving address (compared case-insensitively). */
  payTo: string;
  /** The price in the token's smallest unit (6 decimals). */
  priceMicros: number;
  verified: boolean;
  health: HealthStatus;
  /** Wash-filtered paid calls in the last 30 days. */
  calls30d: number;
  /** Epoch milliseconds. */
  listedAt: number;
}

export type SearchMode = "lexical" | "semantic" | "hybrid";

/** Why a result ranks where it does, for the seller to see. */
export interface RankReasons {
  /** The query words (or their near spellings) found in the listing's text, with BM25 score. */
  textMatch?: { terms: string[]; score: number; rank: number } | undefined;
  /** Cosine similarity of meaning between query and listing, and the rank it gave. */
  meaningMatch?: { similarity: number; rank: number } | undefined;
  /** Trust signals and the multiplier they applied. */
  trust: { healthy: boolean; verifiedOwner: boolean; calls30d: number; factor: number };
  /** Set when the listing copies a verified seller's brand from another payTo. */
  lookalikeOf?: { brand: string; payTo: string } | undefined;
}

export interface SearchHit {
  id: string;
  score: number;
  reasons: RankReasons;
}

export interface SearchFilters {
  minPriceMicros?: number | undefined;
  maxPriceMicros?: number | undefined;
  /** Every tag must be present (case-insensitive). */
  tags?: string[] | undefined;
  /** The trust facts a view filters on (the catalog's other filters are applied by the caller on the rows). */
  trust?: TrustFilter | undefined;
}

/** A view's filters on facts the engine keeps per listing: each one given must hold. */
export interface TrustFilter {
  /** The seller's receiving address (compared case-insensitively). */
  payTo?: string | undefined;
  /** A health status (HealthStatus); another value matches nothing. */
  health?: string | undefined;
  verified?: boolean | undefined;
  minCalls?: number | undefined;
}

export interface SearchOutcome {
  hits: SearchHit[];
  /** The mode that answered (lexical when the semantic side was not ready or saturated). */
  mode: SearchMode;
  /** Why the asked mode was not the one that answered. */
  degraded?: "semantic-not-ready" | "semantic-saturated" | undefined;
}
