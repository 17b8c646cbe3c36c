import { urlOf, type MarketFacts } from "./market.js";

const CATALOG_LINKS = {
  market: "/bazaar.json",
  list: "/listings",
  resources: "/discovery/resources",
  search: "/discovery/search",
  playbook: "/playbook.json",
  challenge: "/listings/challenge",
  mcp: "/mcp",
  llms: "/llms.txt",
  foreign: "/foreign.json",
  sellers: "/sellers.json",
  searchAlias: "/search",
  resourcesAlias: "/resources",
  includeSeed: "/discovery/resources?includeSeed=true",
  feed: "/feed.json",
  status: "/status.json",
  openapi: "/openapi.json",
} as const;

export type LinkName = keyof typeof CATALOG_LINKS;

/** Absolute URLs of the named routes; every name maps to a route of the contract. */
export function linksTo(market: MarketFacts, names: readonly LinkName[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, urlOf(market, CATALOG_LINKS[name])]));
}

export const DISCOVERY_LINKS: readonly LinkName[] = [
  "market", "list", "resources", "search", "playbook", "challenge", "mcp", "llms",
  "foreign", "sellers", "searchAlias", "resourcesAlias", "includeSeed",
];
