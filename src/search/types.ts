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
  /** `listed` (absent): a paid listing; `indexed`: a row read from another catalog or domain. */
  source?: "listed" | "indexed" | undefined;
  /** A same-origin demo row (leftover seed inventory). */
  seed?: boolean | undefined;
  /** The x402 extensions the listing declares, comma-separated keys ("bazaar"); absent or "" for none. */
  extensions?: string | undefined;
  /** Epoch milliseconds after which the listing is not shown (absent: never). */
  expiresAt?: number | undefined;
  /** What the seller declares beside the description: schema field names and descriptions, example keys (searched below the description). */
  declared?: string | undefined;
}

export type SearchMode = "lexical" | "semantic" | "hybrid";

/** How well a result answers the question: `strong` above the strong line, `weak` between it and the floor. */
export type MatchStrength = "strong" | "weak";

/** Why a result ranks where it does, for the seller to see. */
export interface RankReasons {
  /** How well the listing answers the question (0-1), from the text and meaning parts below: what the floor and `match` read. */
  relevance: number;
  match: MatchStrength;
  /** The query words (or their near spellings) found in the listing's text: BM25 score, the share of the question's weight they carry, and the rank the text side gave. */
  textMatch?: { terms: string[]; score: number; coverage: number; rank: number } | undefined;
  /** Cosine similarity of meaning between query and listing, and the rank it gave. */
  meaningMatch?: { similarity: number; rank: number } | undefined;
  /** Trust signals and the factor they applied: a tie-breaker within a band of similar relevance (0.94-1.06). */
  trust: { healthy: boolean; verifiedOwner: boolean; calls30d: number; indexed: boolean; factor: number };
  /** Set when the listing reuses another seller's established brand (scored down, placed below it). */
  lookalikeOf?: { brand: string; payTo: string } | undefined;
  /** The description repeats its words like keyword stuffing: its text match counts for less. */
  stuffing?: true | undefined;
  /** Moved below the first ten: three listings of the same seller rank above it there (the question does not name the seller). */
  sellerCapped?: true | undefined;
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
  /** The trust facts a view filters on. */
  trust?: TrustFilter | undefined;
  /** Only paid listings (`listed`) or only indexed rows (`indexed`); absent: both. */
  source?: "listed" | "indexed" | undefined;
  /** False: leave out leftover seed (demo) rows. */
  includeSeed?: boolean | undefined;
  /** An x402 extension key every listing shown declares. */
  extension?: string | undefined;
  /** Epoch ms: listings expired by then are left out. */
  at?: number | undefined;
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

/** Why an answer is not what the mode asked would give at best: the semantic side not ready or out of CPU, or the question's vector not the model's. */
export type SearchDegraded = "semantic-not-ready" | "semantic-saturated" | "model-busy" | "model-not-loaded";

export interface SearchOutcome {
  /** The listings above the relevance floor, best first. */
  hits: SearchHit[];
  /** The closest listings below the floor (at most NEAR_MISSES), offered apart so that no script takes them for answers. */
  nearMisses: SearchHit[];
  /** The mode that answered (lexical when the semantic side was not ready or saturated). */
  mode: SearchMode;
  /** Why the answer is not the asked mode's best. */
  degraded?: SearchDegraded | undefined;
}
