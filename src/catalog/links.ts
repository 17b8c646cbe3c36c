import { linkTo, type ServicePath } from "../documents/service-links.js";
import type { MarketFacts } from "./market.js";

/** The links of catalog documents, by the names the spec gives them; paths are the contract's. */
const CATALOG_LINKS = {
  market: ["/bazaar.json"],
  list: ["/listings"],
  resources: ["/discovery/resources"],
  search: ["/discovery/search"],
  playbook: ["/playbook.json"],
  challenge: ["/listings/challenge"],
  mcp: ["/mcp"],
  llms: ["/llms.txt"],
  foreign: ["/foreign.json"],
  sellers: ["/sellers.json"],
  searchAlias: ["/search"],
  resourcesAlias: ["/resources"],
  includeSeed: ["/discovery/resources", { includeSeed: "true" }],
  feed: ["/feed.json"],
  status: ["/status.json"],
  openapi: ["/openapi.json"],
} as const satisfies Record<string, readonly [ServicePath, Record<string, string>?]>;

export type LinkName = keyof typeof CATALOG_LINKS;

/** Absolute URLs of the named routes. */
export function linksTo(market: Pick<MarketFacts, "baseUrl">, names: readonly LinkName[]): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => {
      const [path, query] = CATALOG_LINKS[name] as readonly [ServicePath, Record<string, string>?];
      return [name, linkTo(market, path, query)];
    }),
  );
}

export const DISCOVERY_LINKS: readonly LinkName[] = [
  "market", "list", "resources", "search", "playbook", "challenge", "mcp", "llms",
  "foreign", "sellers", "searchAlias", "resourcesAlias", "includeSeed",
];
