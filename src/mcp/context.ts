import type { Config } from "../config.js";
import type { MarketToolServices } from "../market-tools/context.js";
import type { Limit } from "../probe/rate-limiter.js";

/** What the MCP server uses: the market tools' services, the Host/Origin rules (config) and the query budget. */
export interface McpServices extends MarketToolServices {
  config: Config;
  /** The per-client query budget (QUERY_RATE_PER_CLIENT): every request of a POST /mcp batch takes one unit. */
  queryLimit: Limit;
}
