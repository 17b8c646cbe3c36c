// Words of a listing or a query for the lexical side: lower case, split on anything that is not a
// letter or digit, common English words dropped, a light plural/verb-ending stem.

const STOP_WORDS = new Set(
  (
    "a an and any are as at be by can do does for from get give i if in into is it its me my of on or our so that the their them " +
    "this to we what when where which who will with you your how just need want some there than then too very our us was were has have had " +
    "out about up all one each per via not no api endpoint http https www com example service"
  ).split(" "),
);

/** A cheap stem: enough that "recordings" meets "recording", "translated" meets "translate". */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith("es") && !word.endsWith("ses")) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .normalize("NFKC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w));
}

export const terms = (text: string): string[] => words(text).map(stem);

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
