import type { HandlerMap } from "../http/handler-types.js";
import { getListingExample, getListingSchema } from "./listing-schema.js";
import { notImplemented } from "./not-implemented.js";
import { getOpenApi, redirectOpenApiYaml } from "./openapi.js";

const CATALOG = "the catalog (issue #3)";
const PAID_LISTING = "the paid listing (issue #4)";
const DOCUMENTS = "the agent-facing documents (issue #5)";
const MCP = "the MCP server (issue #6)";

/** Every canonical operation of the contract and the handler that answers it and its aliases. */
export const handlers: HandlerMap = {
  createListing: notImplemented("createListing", PAID_LISTING),
  getListings: notImplemented("getListings", CATALOG),
  validateListing: notImplemented("validateListing", PAID_LISTING),
  getValidationGuide: notImplemented("getValidationGuide", PAID_LISTING),
  getListingSchema,
  getListingExample,
  getListingChallenge: notImplemented("getListingChallenge", PAID_LISTING),
  getFeeCard: notImplemented("getFeeCard", PAID_LISTING),
  getFacilitator: notImplemented("getFacilitator", PAID_LISTING),

  getCatalog: notImplemented("getCatalog", CATALOG),
  listResources: notImplemented("listResources", CATALOG),
  searchResources: notImplemented("searchResources", CATALOG),
  searchCatalog: notImplemented("searchCatalog", CATALOG),
  getForeignCatalog: notImplemented("getForeignCatalog", CATALOG),
  getFeed: notImplemented("getFeed", CATALOG),
  getAtomFeed: notImplemented("getAtomFeed", CATALOG),
  getRssFeed: notImplemented("getRssFeed", CATALOG),
  getDiscoveryIndex: notImplemented("getDiscoveryIndex", CATALOG),
  getLinkset: notImplemented("getLinkset", CATALOG),
  getStatus: notImplemented("getStatus", CATALOG),
  getCrawl: notImplemented("getCrawl", CATALOG),

  getMcpDiscovery: notImplemented("getMcpDiscovery", MCP),
  postMcp: notImplemented("postMcp", MCP),
  getMcpServers: notImplemented("getMcpServers", MCP),
  getMcpTools: notImplemented("getMcpTools", MCP),
  getMcpServerCard: notImplemented("getMcpServerCard", MCP),

  getSellPlaybook: notImplemented("getSellPlaybook", DOCUMENTS),
  getBuyPlaybook: notImplemented("getBuyPlaybook", DOCUMENTS),
  getPlaybook: notImplemented("getPlaybook", DOCUMENTS),
  getQuickstart: notImplemented("getQuickstart", DOCUMENTS),
  getInvite: notImplemented("getInvite", DOCUMENTS),
  getJoinCard: notImplemented("getJoinCard", DOCUMENTS),
  getHowTo: notImplemented("getHowTo", DOCUMENTS),
  getExamples: notImplemented("getExamples", DOCUMENTS),
  getListScript: notImplemented("getListScript", DOCUMENTS),
  getBuyScript: notImplemented("getBuyScript", DOCUMENTS),
  getMarketplaceCard: notImplemented("getMarketplaceCard", DOCUMENTS),
  getIntegrationCard: notImplemented("getIntegrationCard", DOCUMENTS),
  getAgents: notImplemented("getAgents", DOCUMENTS),
  getAgentsText: notImplemented("getAgentsText", DOCUMENTS),
  getAgentCard: notImplemented("getAgentCard", DOCUMENTS),
  getPluginManifest: notImplemented("getPluginManifest", DOCUMENTS),
  getLlmsText: notImplemented("getLlmsText", DOCUMENTS),
  getLlmsFullText: notImplemented("getLlmsFullText", DOCUMENTS),
  getOpenApi,
  redirectOpenApiYaml,
};
