import type { HandlerMap } from "../services.js";
import { a2aHandlers } from "./a2a.js";
import { assetsHandlers } from "./assets.js";
import { forArea } from "./area-handlers.js";
import { catalogHandlers } from "./catalog.js";
import { demoHandlers } from "./demo.js";
import { documentsHandlers } from "./documents.js";
import { feedsHandlers } from "./feeds.js";
import { listingsHandlers } from "./listings.js";
import { mcpHandlers } from "./mcp.js";
import { opsHandlers } from "./ops.js";
import { webHandlers } from "./web.js";
import { webhooksHandlers } from "./webhooks.js";
import { syncHandlers } from "./sync.js";

/**
 * Every canonical operation of the contract and the handler that answers it and its aliases, one
 * module per area of `areas` (generated/operations.ts), each handed its area's context.
 */
export const handlers: HandlerMap = {
  ...forArea("listings", listingsHandlers),
  ...forArea("catalog", catalogHandlers),
  ...forArea("feeds", feedsHandlers),
  ...forArea("mcp", mcpHandlers),
  ...forArea("a2a", a2aHandlers),
  ...forArea("documents", documentsHandlers),
  ...forArea("demo", demoHandlers),
  ...forArea("ops", opsHandlers),
  ...forArea("web", webHandlers),
  ...forArea("assets", assetsHandlers),
  ...forArea("webhooks", webhooksHandlers),
  ...forArea("sync", syncHandlers),
};
