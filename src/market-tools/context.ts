import type { DocumentContext } from "../documents/context.js";
import type { Logger } from "../logger.js";
import type { SellerProbe } from "../probe/seller-probe.js";
import type { CatalogQueryContext } from "../queries/catalog.js";
import type { WorkGate } from "../workers/work-gate.js";

/** What the market tools use, whichever protocol calls them: the catalog, the seller probe, the log. */
export interface MarketToolServices extends DocumentContext, CatalogQueryContext {
  logger: Logger;
  probe: SellerProbe;
  /** The instance's bound on uncached work: each catalog read of a tool or resource takes a turn. */
  uncachedWork?: WorkGate;
}

/** Runs one catalog read under the instance's bound on uncached work (src/workers/work-gate.ts). */
export type CatalogTurn = <T>(work: () => Promise<T>) => Promise<T>;

/** Runs the work at once: no bound on uncached work. */
export const UNBOUNDED: CatalogTurn = (work) => work();

/** One lane of the bound on uncached work: the catalog reads of one request take their turns one after another. */
export function laneOf(services: MarketToolServices): CatalogTurn {
  return services.uncachedWork?.lane() ?? UNBOUNDED;
}

export interface ToolContext {
  services: MarketToolServices;
  /** The caller's address: the seller probe of validate_listing is rate-limited per client. */
  clientIp: string;
  /** The lane of the request: list_market's catalog read takes its turn there. */
  turn: CatalogTurn;
}
