// The messages between the request thread (engine-thread.ts) and the search engine's thread
// (engine-worker.ts): plain data only, every request answered by one reply with the same id.
import type { SearchDocument, SearchFilters, SearchMode, SearchOutcome } from "./types.js";

/** A listing to index (with its stored vector, packed as ListingEmbedding.vector, when that is current), or one to drop. */
export type Change = { id: string; doc: SearchDocument; vector?: Uint8Array | undefined } | { id: string; doc: null };

export interface EngineStats {
  size: number;
  /** Listings still on the query encoder's stand-in vector (the backfill's work left). */
  pending: number;
  memory: { vectorBytes: number; slots: number; deadSlots: number };
  semanticReady: boolean;
}

/** A listing waiting for the model's vector, with the text to embed. */
export interface PendingText {
  id: string;
  serviceName: string | null;
  description: string;
  declared?: string | undefined;
}

export type EngineRequest = { id: number } & (
  | { op: "apply"; changes: Change[]; follow: boolean }
  | { op: "reserve"; listings: number }
  | { op: "markReady" }
  | { op: "checkLookalikes"; budgetMs: number }
  | {
      op: "search";
      query: string;
      options: {
        mode?: SearchMode | undefined;
        limit?: number | undefined;
        filters?: SearchFilters | undefined;
        vector?: Float32Array | undefined;
      };
    }
  | { op: "pending"; limit: number }
  | { op: "setModelVectors"; ids: string[]; vectors: Float32Array }
  | { op: "rememberQueryVector"; query: string; vector: Float32Array }
  | { op: "stats" }
);

/** What each request answers. */
export interface EngineResults {
  apply: void;
  reserve: void;
  markReady: void;
  checkLookalikes: boolean;
  search: SearchOutcome;
  pending: PendingText[];
  setModelVectors: void;
  rememberQueryVector: void;
  stats: EngineStats;
}

/** A reply; id 0 is the thread's first message, once the query encoder has loaded (or failed to). */
export type EngineReply =
  { id: number; result: unknown; error?: undefined } | { id: number; error: string; result?: undefined };
