// The documents area (spec/documents.tsp): the free documents agents read to sell and buy
// (playbooks, cards, manifests, the agents directory, scripts, llms texts) and the contract itself.
import { agentCard, pluginManifest } from "../documents/agent-manifests.js";
import { agentsDirectory, agentsText } from "../documents/agents-directory.js";
import { integrationCard, marketplaceCard } from "../documents/cards.js";
import { buyScript, listScript } from "../documents/example-scripts.js";
import { examplesIndex } from "../documents/examples-index.js";
import { llmsFullText, llmsText } from "../documents/llms-text.js";
import { howTo, inviteCard, joinCard, machinePlaybook, quickstart } from "../documents/onboarding.js";
import { buyPlaybook, sellPlaybook } from "../documents/playbooks.js";
import { weakEtag } from "../contract/etag.js";
import { linkTo } from "../market/links.js";
import type { Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

/** `/sell.json` and its aliases: the listing recipe. */
const getSellPlaybook: Handler<"getSellPlaybook"> = (_input, { market }) => ({
  status: 200,
  body: sellPlaybook(market),
});

/** `/buy.json` and its aliases. */
const getBuyPlaybook: Handler<"getBuyPlaybook"> = (_input, { market }) => ({ status: 200, body: buyPlaybook(market) });

/** `/playbook.json`, `/docs`, `/docs.json`: selling and buying in one document. */
const getPlaybook: Handler<"getPlaybook"> = (_input, { market }) => ({ status: 200, body: machinePlaybook(market) });

/** `/start.json` and its aliases: validate, pay POST /listings, buy. */
const getQuickstart: Handler<"getQuickstart"> = (_input, { market }) => ({ status: 200, body: quickstart(market) });

/** `/invite.json` and its aliases. */
const getInvite: Handler<"getInvite"> = (_input, { market }) => ({ status: 200, body: inviteCard(market) });

/** `/join.json`, `/join`. */
const getJoinCard: Handler<"getJoinCard"> = (_input, { market }) => ({ status: 200, body: joinCard(market) });

/** `/how.json`, `/how`. */
const getHowTo: Handler<"getHowTo"> = (_input, { market }) => ({ status: 200, body: howTo(market) });

/** `/examples.json`, `/examples`. */
const getExamples: Handler<"getExamples"> = (_input, { market }) => ({ status: 200, body: examplesIndex(market) });

/** `/examples/list.sh`, `/curl-list.sh`. */
const getListScript: Handler<"getListScript"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/x-shellscript",
  body: listScript(market),
});

/** `/examples/buy.sh`. */
const getBuyScript: Handler<"getBuyScript"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/x-shellscript",
  body: buyScript(market),
});

/** `/marketplace-card.json`, `/manifest.json`. */
const getMarketplaceCard: Handler<"getMarketplaceCard"> = (_input, { market }) => ({
  status: 200,
  body: marketplaceCard(market),
});

/** `/integration.json`, `/integration`. */
const getIntegrationCard: Handler<"getIntegrationCard"> = (_input, { market }) => ({
  status: 200,
  body: integrationCard(market),
});

/** `/agents.json` and its aliases. */
const getAgents: Handler<"getAgents"> = (_input, { market }) => ({ status: 200, body: agentsDirectory(market) });

/** `/agents.txt`: the same directory as plain text. */
const getAgentsText: Handler<"getAgentsText"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/plain",
  body: agentsText(market),
});

/** The A2A agent card: `/.well-known/agent-card.json`, `/a2a.json` and their aliases. */
const getAgentCard: Handler<"getAgentCard"> = (_input, { market }) => ({ status: 200, body: agentCard(market) });

/** `/ai-plugin.json` and its aliases. */
const getPluginManifest: Handler<"getPluginManifest"> = (_input, { market }) => ({
  status: 200,
  body: pluginManifest(market),
});

/** `/llms.txt`, `/.well-known/llms.txt`. */
const getLlmsText: Handler<"getLlmsText"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/plain",
  body: llmsText(market),
});

/** `/llms-full.txt`: the full how-to. */
const getLlmsFullText: Handler<"getLlmsFullText"> = (_input, { market }) => ({
  status: 200,
  contentType: "text/plain",
  body: llmsFullText(market),
});

let openApiCache: { bytes: Buffer; etag: string } | undefined;

/** The compiled contract, byte for byte, at /openapi.json and /swagger.json. */
const getOpenApi: Handler<"getOpenApi"> = (_input, { contract }) => {
  if (openApiCache?.bytes !== contract.bytes) openApiCache = { bytes: contract.bytes, etag: weakEtag(contract.bytes) };
  return { status: 200, headers: { ETag: openApiCache.etag }, body: { preRendered: openApiCache.bytes } };
};

/** `/openapi.yaml`: 307 to `/openapi.json`. */
const redirectOpenApiYaml: Handler<"redirectOpenApiYaml"> = (_input, { market }) => ({
  status: 307,
  headers: { Location: linkTo(market, "openapi") },
});

export const documentsHandlers: AreaHandlers<"documents"> = {
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
