import type { paths } from "../../generated/openapi.js";
import type { MarketFacts } from "./facts.js";

/** A path of the contract: linking to a route that does not exist does not compile. */
export type ServicePath = keyof paths;

type Target = ServicePath | readonly [ServicePath, Readonly<Record<string, string>>];

/**
 * Every link the service emits by name, to a path of the contract (and a query where the link
 * asks for one). Documents name the links they carry; the names are the keys of their `links`.
 */
const LINKS = {
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
  a2a: "/a2a",
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
  market: "/bazaar.json",
  resources: "/discovery/resources",
  resourcesAlias: "/resources",
  includeSeed: ["/discovery/resources", { includeSeed: "true" }],
  search: "/discovery/search",
  searchAlias: "/search",
  foreign: "/foreign.json",
  sellers: "/sellers.json",
  feed: "/feed.json",
  atom: "/feed.atom",
  rss: "/feed.rss",
  discovery: "/discovery",
  linkset: "/linkset.json",
  crawl: "/crawl.json",
  status: "/status.json",
  openapi: "/openapi.json",
  mcp: "/mcp",
  mcpServers: "/.well-known/mcp.json",
  mcpTools: "/mcp/tools.json",
  mcpServerCard: "/mcp-server.json",
} as const satisfies Record<string, Target>;

export type LinkName = keyof typeof LINKS;

type Base = Pick<MarketFacts, "baseUrl">;

/** The service's root URL (`<base>/`), the anchor of its linkset. */
export function rootUrl(market: Base): string {
  return `${market.baseUrl}/`;
}

/**
 * Absolute URL of a route of this service: a named link of the table, or a path of the contract,
 * with an optional query (merged over the named link's own).
 */
export function linkTo(market: Base, target: LinkName | ServicePath, query?: Record<string, string>): string {
  const entry: Target = target.startsWith("/") ? (target as ServicePath) : LINKS[target as LinkName];
  const [path, own] = typeof entry === "string" ? [entry, undefined] : entry;
  const merged = { ...own, ...query };
  const search = Object.keys(merged).length > 0 ? `?${new URLSearchParams(merged).toString()}` : "";
  return market.baseUrl + path + search;
}

/** Absolute URL of a contract path with parameters: `("/listings/{id}", { id })`. */
export function linkWithParams(market: Base, path: ServicePath, params: Readonly<Record<string, string>>): string {
  return (
    market.baseUrl + path.replace(/\{([A-Za-z0-9]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""))
  );
}

/** A contract path with parameters as an absolute URI template (RFC 6570): `<base>/listings/{id}`, for documents that teach it. */
export function linkTemplate(market: Base, path: ServicePath): string {
  return market.baseUrl + path;
}

/** The links of the discovery documents (catalog, resources, search), in the spec's order. */
export const DISCOVERY_LINKS = [
  "market",
  "list",
  "resources",
  "search",
  "playbook",
  "challenge",
  "mcp",
  "llms",
  "foreign",
  "sellers",
  "searchAlias",
  "resourcesAlias",
  "includeSeed",
] as const satisfies readonly LinkName[];

/** A `links` object: the named links as absolute URLs. */
export function linksTo<N extends LinkName>(market: Base, names: readonly N[]): Record<N, string> {
  return Object.fromEntries(names.map((name) => [name, linkTo(market, name)])) as Record<N, string>;
}
