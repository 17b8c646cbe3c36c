// The held-out search benchmark's shapes (issue 43): listings written as sellers write them, and
// buyer questions graded per listing. Listing data: listings-*.ts; questions: questions-dev.ts
// (tune on these) and questions-test.ts (held out: report only).
import { declaredText } from "../../../../src/search/declared.js";
import type { HealthStatus, SearchDocument } from "../../../../src/search/types.js";

/** A schema's property names with what each holds. */
export type SchemaFields = Record<string, string>;

export interface HeldoutListing extends SearchDocument {
  /** The kind of service and its variety, "weather/forecast": what questions grade by. */
  topic: string;
  /** Who sells it (its payTo is derived from this). */
  seller: string;
  /** For an imitation: the id of the verified listing it copies. */
  copies?: string;
  inputSchema?: SchemaFields;
  outputSchema?: SchemaFields;
}

export interface ListingExtras {
  /** Verified owner of its payTo (default: the seller's, VERIFIED_SELLERS). */
  v?: boolean;
  in?: SchemaFields;
  out?: SchemaFields;
  copies?: string;
  path?: string;
  health?: HealthStatus;
  calls?: number;
  /** Days after the catalog's start it was listed (default: its place in the file, an hour apart). */
  day?: number;
}

/** id, variety ("" for the kind itself), seller, service name, description, tags (comma separated), price in micro-USDC, extras. */
export type ListingRow = [
  id: string,
  variety: string,
  seller: string,
  name: string,
  description: string,
  tags: string,
  priceMicros: number,
  extras?: ListingExtras,
];

export type QuestionKind =
  "paraphrase" | "keyword" | "brand" | "constraint" | "typo" | "lookalike" | "offcatalog" | "nonenglish";

export interface HeldoutQuestion {
  q: string;
  kind: QuestionKind;
  /**
   * Grades by topic: "weather" grades every weather/* listing, "weather/forecast" only those (the more
   * specific key wins). 3 exact, 2 does the job with some work, 1 related, 0 or absent not.
   */
  rel: Record<string, number>;
  /** Grades by listing id, over the topic grades. */
  ids?: Record<string, number>;
  /** Listings of a grade-3 topic that fail this keep at most grade 1 (a constraint the question states). */
  only?: (listing: HeldoutListing) => boolean;
  /** The seller(s) the question names (the three-per-seller rule does not hold for them). */
  names?: string[];
}

export const CENT = 10_000;

const hex = (text: string, length: number): string => {
  let h = 0x811c9dc5;
  let out = "";
  for (let round = 0; out.length < length; round++) {
    for (const c of `${round}:${text}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    out += h.toString(16).padStart(8, "0");
  }
  return out.slice(0, length);
};

export const payToOf = (seller: string) => `0x${hex(`heldout payto ${seller}`, 40)}`;
export const slug = (text: string) =>
  text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

const START = Date.UTC(2026, 5, 1);

/** Field names and descriptions as the JSON Schema a seller's 402 would declare them in. */
const asSchema = (fields: SchemaFields | undefined) =>
  fields && {
    type: "object",
    properties: Object.fromEntries(
      Object.entries(fields).map(([name, description]) => [name, { type: "string", description }]),
    ),
  };

/** Listings of one kind of service from their rows. */
export function kind(
  name: string,
  rows: ListingRow[],
  verifiedSellers: ReadonlySet<string>,
  offset: number,
): HeldoutListing[] {
  return rows.map(([id, variety, seller, serviceName, description, tags, priceMicros, extras = {}], i) => {
    const h = parseInt(hex(id, 8), 16);
    return {
      id,
      topic: variety ? `${name}/${variety}` : name,
      seller,
      serviceName,
      description,
      resource: extras.path?.startsWith("https://")
        ? extras.path
        : `https://api.${slug(seller)}.example/${extras.path ?? `v1/${slug(variety || name)}`}`,
      tags: tags ? tags.split(",").map((tag) => tag.trim()) : [],
      payTo: payToOf(seller),
      priceMicros,
      verified: extras.v ?? verifiedSellers.has(seller),
      health: extras.health ?? (h % 10 === 0 ? "unhealthy" : h % 10 === 1 ? "unknown" : "healthy"),
      calls30d: extras.calls ?? (h % 3 === 0 ? 0 : (h >>> 4) % 4000),
      listedAt: START + (extras.day !== undefined ? extras.day * 86_400_000 : (offset + i) * 3_600_000),
      ...(extras.copies ? { copies: extras.copies } : {}),
      ...(extras.in ? { inputSchema: extras.in } : {}),
      ...(extras.out ? { outputSchema: extras.out } : {}),
      // What the service reads from a seller's schemas (src/search/declared.ts), as its listings' rows give it.
      ...(extras.in || extras.out ? { declared: declaredText(asSchema(extras.in), asSchema(extras.out)) } : {}),
    };
  });
}

export const q = (
  kind: QuestionKind,
  text: string,
  rel: Record<string, number>,
  extra: Omit<HeldoutQuestion, "q" | "kind" | "rel"> = {},
): HeldoutQuestion => ({
  q: text,
  kind,
  rel,
  ...extra,
});

/** A constraint: costs at most this many micro-USDC a call. */
export const atMost =
  (micros: number) =>
  (listing: HeldoutListing): boolean =>
    listing.priceMicros <= micros;

/**
 * A listing's grade for a question: its topic's (the most specific key given), then the explicit ids.
 * A grade-3 listing failing the question's constraint keeps 1; an imitation of another seller's brand
 * is at most 1 (a buyer is not well served by an impersonator) unless graded by id.
 */
export function gradeOf(question: HeldoutQuestion, listing: HeldoutListing): number {
  const explicit = question.ids?.[listing.id];
  if (explicit !== undefined) return explicit;
  const parts = listing.topic.split("/");
  let grade = 0;
  for (let i = parts.length; i > 0; i--) {
    const key = parts.slice(0, i).join("/");
    if (question.rel[key] !== undefined) {
      grade = question.rel[key]!;
      break;
    }
  }
  if (grade === 3 && question.only && !question.only(listing)) grade = 1;
  if (listing.copies) grade = Math.min(grade, 1);
  return grade;
}
