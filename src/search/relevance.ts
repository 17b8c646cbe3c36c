// How the engine turns its two sides into one answer (engine.ts):
//
//   relevance = max(meaning, t x text) + BOTH x min(meaning, t x text), at most 1      (absolute: 0-1)
//     meaning = the cosine of the question's and the listing's vectors, mapped from [MEANING_LOW, MEANING_HIGH] to [0, 1]
//     text    = coverage x (0.8 + 0.2 x BM25 normalized)   (coverage: the share of the question's weight held)
//     t       = textTrust by the question's shape (a keyword or a brand is read by its words, a question by its meaning)
//   Either side alone can carry a listing (a paraphrase shares no word; a brand or a code means little
//   to the model); agreeing sides add up.
//   shown     = nothing unless the best listing reaches ANSWER_FLOOR (the question has an answer here);
//               then each listing from FLOOR up (below it: a near miss, offered apart); `strong` from STRONG up
//   score     = relevance x trust x stuffing x look-alike
//     trust   = 1 + TRUST_BAND x (0.5 healthy - 1 unhealthy + 0.3 verified owner + 0.2 usage - 0.5 indexed), clamped to +-TRUST_BAND:
//               a tie-breaker among listings of similar relevance, never above a clearly better match
//
// The constants were tuned on the development questions of `npm run bench:search:quality` and are
// reported on its held-out test questions (the README's search section). The two floors trade
// answered paraphrases for empty answers to questions nothing here serves: with USE-lite the right
// listing of a hard paraphrase and the nearest listing of an off-catalog question sit at the same
// similarities (0.40-0.65), so no floor keeps all of one and none of the other.
import type { MatchStrength } from "./types.js";

/** Cosine similarities mapped to 0 and 1 (the model's unrelated texts sit near 0.1-0.3, paraphrases 0.5-0.8). */
export const MEANING_LOW = 0.2;
export const MEANING_HIGH = 0.7;
/** What agreeing sides add: this share of the weaker. */
export const BOTH = 0.4;
/** A question whose best listing stays below this has no answer here: nothing is shown, its closest are near misses. */
export const ANSWER_FLOOR = 0.55;
/** In an answered question, a listing below this relevance is no answer: a near miss at most. */
export const FLOOR = 0.3;
/** From this relevance up a listing is a strong match. */
export const STRONG = 0.6;
/** How far trust may move a score, either way. */
export const TRUST_BAND = 0.06;
/** A keyword-stuffed description's text side counts this much. */
export const STUFFING = 0.6;
/** A look-alike's score is multiplied by this (and it is placed below the brand it copies). */
export const LOOKALIKE = 0.5;
/** Listings of one seller in the first FIRST_PAGE results, at most, unless the question names the seller. */
export const PER_SELLER = 3;
export const FIRST_PAGE = 10;
export const NEAR_MISSES = 3;

/** The question's shape: how many words it asks, how many the catalog knows, and whether it names a brand. */
export interface QueryShape {
  asked: number;
  known: number;
  namesBrand: boolean;
}

/** How much the text side's score counts for a question of this shape. */
export function textTrust(shape: QueryShape): number {
  // A brand, or one or two words all of them the catalog's: a keyword search.
  if (shape.namesBrand || (shape.asked <= 2 && shape.known === shape.asked)) return 1;
  return 0.85;
}

/** The relevance of a listing whose sides scored `meaning` and `text` (each 0-1); `mode` keeps one side only. */
export function relevanceOf(
  meaning: number,
  text: number,
  trustInText: number,
  mode: "lexical" | "semantic" | "hybrid",
): number {
  if (mode === "lexical") return text;
  if (mode === "semantic") return meaning;
  const words = trustInText * text;
  return Math.min(1, Math.max(meaning, words) + BOTH * Math.min(meaning, words));
}

/**
 * The mean cosine of unrelated and of matching (question, listing) pairs, by where each vector came
 * from (the sentence model's, or the query encoder's stand-in), measured on the search bench's
 * development catalog: the stand-in's similarities run higher and closer together, so each pairing is
 * mapped onto the model's scale before the floor reads it.
 */
const PAIRINGS = {
  modelModel: { unrelated: 0.205, matching: 0.41 },
  modelQuestionStandInListing: { unrelated: 0.361, matching: 0.474 },
  standInQuestionModelListing: { unrelated: 0.311, matching: 0.468 },
  standInStandIn: { unrelated: 0.581, matching: 0.706 },
} as const;

/** A similarity on the model's scale, whichever vectors gave it. */
export function calibrated(similarity: number, questionFromModel: boolean, listingFromModel: boolean): number {
  const pairing = questionFromModel
    ? listingFromModel
      ? PAIRINGS.modelModel
      : PAIRINGS.modelQuestionStandInListing
    : listingFromModel
      ? PAIRINGS.standInQuestionModelListing
      : PAIRINGS.standInStandIn;
  const { unrelated, matching } = PAIRINGS.modelModel;
  return (
    unrelated + ((similarity - pairing.unrelated) * (matching - unrelated)) / (pairing.matching - pairing.unrelated)
  );
}

export function meaningScore(similarity: number | null): number {
  if (similarity === null) return 0;
  return Math.min(1, Math.max(0, (similarity - MEANING_LOW) / (MEANING_HIGH - MEANING_LOW)));
}

export function textScore(coverage: number, normalized: number, isStuffed: boolean): number {
  return coverage * (0.8 + 0.2 * normalized) * (isStuffed ? STUFFING : 1);
}

export const strength = (relevance: number): MatchStrength => (relevance >= STRONG ? "strong" : "weak");

export interface TrustInputs {
  health: string;
  verified: boolean;
  calls30d: number;
  indexed: boolean;
}

export function trustFactor(facts: TrustInputs): number {
  const signal =
    (facts.health === "healthy" ? 0.5 : facts.health === "unhealthy" ? -1 : 0) +
    (facts.verified ? 0.3 : 0) +
    0.2 * Math.min(1, Math.log10(1 + facts.calls30d) / 4) -
    (facts.indexed ? 0.5 : 0);
  return 1 + TRUST_BAND * Math.max(-1, Math.min(1, signal));
}

/**
 * At most PER_SELLER listings of one seller in the first FIRST_PAGE places, unless `named(hit)` (the
 * question names the seller): a seller's further listings move down to just after the first page
 * (marked `capped`), and are left out when fewer than FIRST_PAGE other listings match, where they
 * would land on the first page again (`payTo=` shows every listing of a seller).
 */
export function capSellers<T extends { payTo: string; capped?: boolean }>(hits: T[], named: (hit: T) => boolean): T[] {
  const seen = new Map<string, number>();
  const kept: T[] = [];
  const moved: T[] = [];
  for (const hit of hits) {
    const count = seen.get(hit.payTo) ?? 0;
    if (count >= PER_SELLER && !named(hit) && kept.length < FIRST_PAGE) {
      hit.capped = true;
      moved.push(hit);
      continue;
    }
    seen.set(hit.payTo, count + 1);
    kept.push(hit);
  }
  if (moved.length === 0) return hits;
  if (kept.length < FIRST_PAGE) return kept;
  return [...kept.slice(0, FIRST_PAGE), ...moved, ...kept.slice(FIRST_PAGE)];
}
