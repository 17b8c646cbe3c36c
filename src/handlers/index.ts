import type { HandlerMap } from "../services.js";
import { getCatalog, listResources } from "./catalog.js";
import { createListing } from "./create-listing.js";
import { getDemoResource, postDemoResource } from "./demo-resources.js";
import { getCrawl, getDiscoveryIndex, getLinkset } from "./directory.js";
import { getAtomFeed, getFeed, getRssFeed } from "./feeds.js";
import { getFacilitator, getFeeCard, getListingChallenge } from "./fee-documents.js";
import { getForeignCatalog } from "./foreign-catalog.js";
import { getListingExample, getListingSchema } from "./listing-schema.js";
import { getListings } from "./listings.js";
import { getMcpDiscovery, getMcpServerCard, getMcpServers, getMcpTools, postMcp } from "./mcp.js";
import { searchCatalog, searchResources } from "./search.js";
import { getStatus } from "./status.js";
import { getAgentCard } from "./agent-card.js";
import { getAgents, getAgentsText } from "./agents-directory.js";
import { getBuyPlaybook } from "./buy-playbook.js";
import { getBuyScript } from "./buy-script.js";
import { getExamples } from "./examples.js";
import { getHowTo } from "./how-to.js";
import { getIntegrationCard } from "./integration-card.js";
import { getInvite } from "./invite.js";
import { getJoinCard } from "./join-card.js";
import { getListScript } from "./list-script.js";
import { getLlmsFullText } from "./llms-full-text.js";
import { getLlmsText } from "./llms-text.js";
import { getPlaybook } from "./machine-playbook.js";
import { getMarketplaceCard } from "./marketplace-card.js";
import { getPluginManifest } from "./plugin-manifest.js";
import { getQuickstart } from "./quickstart.js";
import { getSellPlaybook } from "./sell-playbook.js";
import { getOpenApi, redirectOpenApiYaml } from "./openapi.js";
import { getValidationGuide, validateListing } from "./validate-listing.js";


/** Every canonical operation of the contract and the handler that answers it and its aliases. */
export const handlers: HandlerMap = {
  createListing,
  getListings,
  validateListing,
  getValidationGuide,
  getListingSchema,
  getListingExample,
  getListingChallenge,
  getFeeCard,
  getFacilitator,
  getDemoResource,
  postDemoResource,

  getCatalog,
  listResources,
  searchResources,
  searchCatalog,
  getForeignCatalog,
  getFeed,
  getAtomFeed,
  getRssFeed,
  getDiscoveryIndex,
  getLinkset,
  getStatus,
  getCrawl,

  getMcpDiscovery,
  postMcp,
  getMcpServers,
  getMcpTools,
  getMcpServerCard,

  getSellPlaybook,
  getBuyPlaybook,
  getPlaybook,
  getQuickstart,
  getInvite,
  getJoinCard,
  getHowTo,
  getExamples,
  getListScript,
  getBuyScript,
  getMarketplaceCard,
  getIntegrationCard,
  getAgents,
  getAgentsText,
  getAgentCard,
  getPluginManifest,
  getLlmsText,
  getLlmsFullText,
  getOpenApi,
  redirectOpenApiYaml,
};
