// From a question's candidates to its answer (engine.ts finds the candidates): each candidate's score
// and the reasons given for it (relevance, text and meaning match, trust, look-alike, stuffing), then
// the order shown: the answer floor, the near misses apart, at most three of one seller in the first
// ten, and every look-alike after the listings that are not. relevance.ts says how the score is made.
import type { BrandClaim } from "./brands.js";
import type { TextFeatures } from "./lexical-index.js";
import type { TrustFacts } from "./listing-table.js";
import { ANSWER_FLOOR, capSellers, FLOOR, LOOKALIKE, NEAR_MISSES, strength, trustFactor } from "./relevance.js";
import { brandKey } from "./text.js";
import type { RankReasons, SearchHit, SearchMode } from "./types.js";

/** A candidate scored, with what the order needs: its relevance, the brand it copies, its seller and name. */
export interface ScoredHit extends SearchHit {
  relevance: number;
  claim?: BrandClaim | undefined;
  payTo: string;
  capped?: boolean;
  name: string | null;
}

/** What the engine read of one candidate. */
export interface Candidate {
  id: string;
  relevance: number;
  text: TextFeatures;
  /** Calibrated similarity of the question's and the listing's vectors (null: no vector compared). */
  similarity: number | null;
  textRank: number | undefined;
  meaningRank: number | undefined;
  facts: TrustFacts;
  claim: BrandClaim | undefined;
  stuffed: boolean;
  payTo: string;
  name: string | null;
}

/** A candidate's score (relevance × trust, halved for a look-alike) and its reasons. */
export function scoredHit(candidate: Candidate, sides: SearchMode): ScoredHit {
  const { relevance, text, similarity, facts, claim } = candidate;
  const factor = trustFactor(facts);
  const reasons: RankReasons = {
    relevance: round(relevance),
    match: strength(relevance),
    ...(text.terms.length
      ? {
          textMatch: {
            terms: [...new Set(text.terms)],
            score: round(text.score),
            coverage: round(text.coverage),
            rank: candidate.textRank ?? 0,
          },
        }
      : {}),
    ...(similarity !== null && sides !== "lexical"
      ? { meaningMatch: { similarity: round(similarity), rank: candidate.meaningRank ?? 0 } }
      : {}),
    trust: {
      healthy: facts.health === "healthy",
      verifiedOwner: facts.verified,
      calls30d: facts.calls30d,
      indexed: facts.indexed,
      factor: round(factor),
    },
    ...(claim ? { lookalikeOf: claim } : {}),
    ...(candidate.stuffed ? { stuffing: true as const } : {}),
  };
  const score = relevance * factor * (claim ? LOOKALIKE : 1);
  return {
    id: candidate.id,
    score: round(score * 1000, 4),
    reasons,
    relevance,
    claim,
    payTo: candidate.payTo,
    name: candidate.name,
  };
}

/**
 * The answer to `query` from its scored candidates: best first, the first `limit` of those above
 * the floor (none when no candidate reaches the answer floor), and the closest others apart.
 */
export function rankedAnswer(
  scored: ScoredHit[],
  query: string,
  limit: number,
): { hits: SearchHit[]; nearMisses: SearchHit[] } {
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  const answered = scored.some((hit) => hit.relevance >= ANSWER_FLOOR);
  const shown = answered ? scored.filter((hit) => hit.relevance >= FLOOR) : [];
  const nearMisses = (answered ? scored.filter((hit) => hit.relevance < FLOOR) : scored)
    .filter((hit) => !hit.claim)
    .slice(0, NEAR_MISSES);
  const queryKey = brandKey(query);
  const named = (hit: { name: string | null }) => {
    const key = brandKey(hit.name ?? "");
    return key.length >= 4 && queryKey.includes(key);
  };
  const ranked = capSellers(placeLookalikesBelowOriginals(shown), named);
  const out = ({ id, score, reasons, capped }: ScoredHit): SearchHit => ({
    id,
    score,
    reasons: capped ? { ...reasons, sellerCapped: true } : reasons,
  });
  return { hits: ranked.slice(0, limit).map(out), nearMisses: nearMisses.map(out) };
}

/** Rounded for the answer (arithmetic, not toFixed: a string per number, hundreds per query). */
const round = (value: number, digits = 3) => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/**
 * Moves each look-alike below every listing that is not one (so below the brand it copies whenever
 * that is in the answer): a copy is never offered before an original. Most answers hold no
 * look-alike: those are returned as they are.
 */
function placeLookalikesBelowOriginals<T extends { claim?: BrandClaim | undefined }>(hits: T[]): T[] {
  if (!hits.some((hit) => hit.claim)) return hits;
  return [...hits.filter((hit) => !hit.claim), ...hits.filter((hit) => hit.claim)];
}
