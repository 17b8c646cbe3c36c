import type { Config } from "../config.js";
import type { CatalogReadContext } from "../documents/context.js";
import type { Logger } from "../logger.js";
import type { SellerProbe } from "../probe/seller-probe.js";

/** What the MCP server and its tools use: the catalog, the seller probe, the Host/Origin rules, the log. */
export interface McpServices extends CatalogReadContext {
  config: Config;
  logger: Logger;
  probe: SellerProbe;
}
