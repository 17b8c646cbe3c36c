import type { paths } from "../../generated/openapi.js";
import { urlOf, type MarketFacts } from "../catalog/market.js";

/** A path of the contract: linking to a route that does not exist does not compile. */
export type ServicePath = keyof paths;

/** Absolute URL of a route of this service, with an optional query. */
export function linkTo(market: Pick<MarketFacts, "baseUrl">, path: ServicePath, query?: Record<string, string>): string {
  const search = query ? `?${new URLSearchParams(query).toString()}` : "";
  return urlOf(market, `${path}${search}`);
}

/** The routes agent documents point at, by the name they carry in `links` objects. */
export const DOCUMENT_PATHS = {
  start: "/start.json",
  sell: "/sell.json",
  buy: "/buy.json",
  playbook: "/playbook.json",
  join: "/join.json",
  how: "/how.json",
  invite: "/invite.json",
  examples: "/examples.json",
  integration: "/integration.json",
  marketplaceCard: "/marketplace-card.json",
  agents: "/agents.json",
  agentsText: "/agents.txt",
  agentCard: "/.well-known/agent-card.json",
  plugin: "/ai-plugin.json",
  llms: "/llms.txt",
  llmsFull: "/llms-full.txt",
  listScript: "/examples/list.sh",
  curlList: "/curl-list.sh",
  buyScript: "/examples/buy.sh",
  list: "/listings",
  validate: "/listings/validate",
  schema: "/listings/schema",
  example: "/listings/example",
  challenge: "/listings/challenge",
  fee: "/fee.json",
  facilitator: "/facilitator.json",
  catalog: "/bazaar.json",
  resources: "/discovery/resources",
  search: "/discovery/search",
  foreign: "/foreign.json",
  feed: "/feed.json",
  discovery: "/discovery",
  linkset: "/linkset.json",
  crawl: "/crawl.json",
  status: "/status.json",
  openapi: "/openapi.json",
  mcp: "/mcp",
  mcpServers: "/.well-known/mcp.json",
  mcpTools: "/mcp/tools.json",
  mcpServerCard: "/mcp-server.json",
} as const satisfies Record<string, ServicePath>;

export type DocumentLink = keyof typeof DOCUMENT_PATHS;

/** Absolute URL of a named route. */
export function urlFor(market: Pick<MarketFacts, "baseUrl">, name: DocumentLink): string {
  return linkTo(market, DOCUMENT_PATHS[name]);
}

/** A `links` object: the named routes as absolute URLs. */
export function documentLinks(market: Pick<MarketFacts, "baseUrl">, names: readonly DocumentLink[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, urlFor(market, name)]));
}
