// Grades and the word check of the held-out benchmark (issue 43).
import { terms } from "../../../../src/search/text.js";
import { gradeOf, type HeldoutListing, type HeldoutQuestion } from "./model.js";

/** Every listing graded above 0 for a question. */
export function gradesOf(question: HeldoutQuestion, listings: HeldoutListing[]): Map<string, number> {
  const grades = new Map<string, number>();
  for (const listing of listings) {
    const grade = gradeOf(question, listing);
    if (grade > 0) grades.set(listing.id, grade);
  }
  return grades;
}

/** The text a listing shows a word search: its name, description and tags. */
export const listingText = (listing: HeldoutListing) =>
  `${listing.serviceName ?? ""} ${listing.description} ${listing.tags.join(" ")}`;

/** The content words (the engine's own tokenizer) a question shares with any of its grade-3 listings; undefined when it has none. */
export function sharedWords(
  question: HeldoutQuestion,
  listings: HeldoutListing[],
  grades = gradesOf(question, listings),
): string[] | undefined {
  const exact = listings.filter((listing) => grades.get(listing.id) === 3);
  if (exact.length === 0) return undefined;
  const asked = new Set(terms(question.q));
  const shared = new Set<string>();
  for (const listing of exact) for (const term of terms(listingText(listing))) if (asked.has(term)) shared.add(term);
  return [...shared];
}

/** Authoring mistakes that would make a grade silently 0: an unknown listing id or topic, an answered question without an exact answer, a question asked twice. */
export function datasetProblems(questions: HeldoutQuestion[], listings: HeldoutListing[]): string[] {
  const ids = new Set(listings.map((listing) => listing.id));
  const topics = new Set(
    listings.flatMap((listing) => listing.topic.split("/").map((_, i, parts) => parts.slice(0, i + 1).join("/"))),
  );
  const problems: string[] = [];
  const asked = new Set<string>();
  for (const question of questions) {
    const key = question.q.normalize("NFKC").toLowerCase().trim().replace(/\s+/g, " ");
    if (asked.has(key)) problems.push(`asked twice: "${question.q}"`);
    asked.add(key);
    for (const id of Object.keys(question.ids ?? {}))
      if (!ids.has(id)) problems.push(`"${question.q}" grades an unknown listing ${id}`);
    for (const topic of Object.keys(question.rel))
      if (!topics.has(topic)) problems.push(`"${question.q}" grades an unknown topic ${topic}`);
    const graded = gradesOf(question, listings);
    if (question.kind === "offcatalog" && graded.size > 0)
      problems.push(`"${question.q}" is off-catalog but grades listings`);
    if (question.kind !== "offcatalog" && ![...graded.values()].includes(3))
      problems.push(`"${question.q}" has no listing graded 3`);
  }
  return problems;
}
