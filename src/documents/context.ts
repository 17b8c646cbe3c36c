import type { MarketFacts } from "../market/facts.js";

/** What document builders read: the market's facts, and the compiled contract for schemas and routes. */
export interface DocumentContext {
  market: MarketFacts;
  contract: { document: Record<string, unknown> };
}
