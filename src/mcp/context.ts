import type { Config } from "../config.js";
import type { DocumentContext } from "../documents/context.js";
import type { Logger } from "../logger.js";
import type { WorkGate } from "../workers/work-gate.js";
import type { Limit } from "../probe/rate-limiter.js";
import type { SellerProbe } from "../probe/seller-probe.js";
import type { CatalogQueryContext } from "../queries/catalog.js";

/** What the MCP server and its tools use: the catalog, the seller probe, the Host/Origin rules, the log. */
export interface McpServices extends DocumentContext, CatalogQueryContext {
  config: Config;
  logger: Logger;
  probe: SellerProbe;
  /** The per-client query budget (QUERY_RATE_PER_CLIENT): every request of a POST /mcp batch takes one unit. */
  queryLimit: Limit;
  /** The instance's bound on uncached work: each catalog read of a tool or resource takes a turn. */
  uncachedWork?: WorkGate;
}
