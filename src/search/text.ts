// Words of a listing or a query for the lexical side: lower case, English contractions and
// possessives taken off ("who's" is "who", not "who" and "s"), split on anything that is not a
// letter or digit (so "print-ready" is "print" and "ready"), common words dropped, and each word
// stemmed with Porter2 (Snowball English: "recordings" meets "recording", and "news" stays "news").
import porter2 from "wink-porter2-stemmer";

const STOP_WORDS = new Set(
  (
    "a an and any are as at be by can do does for from get give i if in into is it its me my of on or our so that the their them " +
    "this to we what when where which who will with you your how just need want some there than then too very our us was were has have had " +
    "out about up all one each per via not no api endpoint http https www com example service please would could should i'm let lets " +
    "tell find show like also these those here been being am"
  ).split(" "),
);

/** Contractions and possessives: "who's", "don't", "seller's", "we'll" keep only their first word. */
const CONTRACTION = /(\p{L})['\u2019](s|re|ve|ll|d|m|t)\b/gu;
const NOT = /n['\u2019]t\b/gu;

const stemCache = new Map<string, string>();
/** Porter2's stem, remembered (the catalog and questions repeat words; the cache stays below 50k words). */
export function stem(word: string): string {
  let out = stemCache.get(word);
  if (out === undefined) {
    // Numbers and codes ("v2", "3d", "404") stay as written.
    out = /\d/.test(word) || word.length < 3 ? word : porter2(word);
    if (stemCache.size < 50_000) stemCache.set(word, out);
  }
  return out;
}

/** A question as the caches key it: NFKC, lower case, single spaces, at most 300 characters. */
export const normalizeQuery = (query: string) =>
  query.normalize("NFKC").toLowerCase().trim().replace(/\s+/g, " ").slice(0, 300);

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .normalize("NFKC")
    .replace(NOT, "")
    .replace(CONTRACTION, "$1")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w));
}

export const terms = (text: string): string[] => words(text).map(stem);

/** A description this short says too little for the model alone: the seller's declared fields join it. */
const SHORT_DESCRIPTION = 12;

/** Whether a description (its words) is too short for the model alone (listingText). */
export const isTerse = (descriptionWords: readonly string[]) => descriptionWords.length < SHORT_DESCRIPTION;

/**
 * The text the sentence model reads for a listing: its name and description, and for a terse
 * description (fewer than SHORT_DESCRIPTION words) the fields it declares (its schema's property
 * names and descriptions), so a listing described by its schema is found by what its fields mean.
 */
export function listingText(doc: {
  serviceName: string | null;
  description: string;
  declared?: string | undefined;
}): string {
  const base = `${doc.serviceName ?? ""}. ${doc.description}`;
  return doc.declared && isTerse(words(doc.description)) ? `${base} ${doc.declared.slice(0, 300)}` : base;
}

/** The padded trigrams of a term ("^ab", "abc", ..., "yz$"), for near-spelling lookups. */
export function trigramsOf(term: string): string[] {
  const padded = `^${term}$`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3));
  return out;
}

/** A brand key: lower case letters and digits only, confusable characters folded ("ScribeFIow" -> "scribeflow"). */
export function brandKey(name: string): string {
  // Most words are plain lower-case ASCII already: nothing to fold.
  if (/^[a-z2-9]*$/.test(name)) return name;
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[0]/g, "o")
    .replace(/[1|]/g, "l")
    .replace(/[^a-z0-9]/g, "");
}
