// Constraints a buyer writes into the question itself ("under a cent", "cheapest", "free"), read
// only where unambiguous: each becomes a filter or an order when no explicit parameter set it, is
// taken out of the text searched, and is echoed back as `interpretedFilters` so the buyer sees what
// was understood. Anything else stays words to search.

export interface QuestionConstraints {
  /** The question without the constraint phrases (the text searched). */
  text: string;
  maxPrice?: string | undefined;
  sort?: "price" | undefined;
}

const WORD_NUMBERS: Record<string, number> = { a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, ten: 10 };

/** "under a cent", "less than 5 cents", "below $0.02", "max 0.01 usdc", "for at most 2 cents". */
const PRICE_CAP =
  /\b(?:under|below|less than|cheaper than|at most|max(?:imum)?|no more than|up to)\s+(?:(a|one|two|three|four|five|ten|\d+(?:\.\d+)?)\s*(?:cents?|¢)|\$\s?(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*(?:usdc?|dollars?|\$))(?:\s+(?:a|per)\s+(?:call|request|query))?/i;
const CHEAPEST = /\b(?:the\s+)?(?:cheapest|lowest[- ]priced|least expensive)\b/i;

const usdc = (value: number) => value.toFixed(6).replace(/\.?0+$/, "") || "0";

export function readConstraints(question: string): QuestionConstraints {
  let text = question;
  let maxPrice: string | undefined;
  let sort: "price" | undefined;
  const cap = PRICE_CAP.exec(text);
  if (cap) {
    const [, cents, dollars, plain] = cap;
    const value =
      cents !== undefined ? (WORD_NUMBERS[cents.toLowerCase()] ?? Number(cents)) / 100 : Number(dollars ?? plain);
    if (Number.isFinite(value) && value > 0 && value < 1_000_000) {
      maxPrice = usdc(value);
      text = text.replace(cap[0], " ");
    }
  }
  const cheapest = CHEAPEST.exec(text);
  if (cheapest) {
    sort = "price";
    text = text.replace(cheapest[0], " ");
  }
  text = text.replace(/\s+/g, " ").trim();
  // A question that was nothing but a constraint keeps its words: there is nothing else to search.
  if (!/[\p{L}\p{N}]/u.test(text)) return { text: question };
  return { text, maxPrice, sort };
}
