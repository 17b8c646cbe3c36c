import type { components } from "../../generated/openapi.js";
import { canonicalOf, routeTable } from "../../generated/operations.js";
import type { DocumentContext } from "./context.js";
import { rootUrl, linkTo, linksTo, type ServicePath } from "../market/links.js";
import { type MarketFacts } from "../market/facts.js";
import { listingFeeSummary } from "./listing-fee.js";

type Schemas = components["schemas"];

export function discoveryIndex(services: DocumentContext): Schemas["DiscoveryIndex"] {
  const { market } = services;
  return {
    x402Version: 2,
    role: "marketplace",
    name: market.name,
    note: "Discovery index of a free catalog of x402-paid endpoints: list with resources, find with search, then pay the seller directly.",
    resources: linkTo(market, "/discovery/resources"),
    search: linkTo(market, "/discovery/search"),
    catalog: linkTo(market, "/bazaar.json"),
    foreign: linkTo(market, "/foreign.json"),
    feed: linkTo(market, "/feed.json"),
    status: linkTo(market, "/status.json"),
    listingFee: listingFeeSummary(market),
    links: linksTo(market, [
      "market",
      "list",
      "resources",
      "search",
      "playbook",
      "challenge",
      "mcp",
      "llms",
      "feed",
      "status",
      "openapi",
    ]),
  };
}

/** RFC 9264 linkset; registered relation types where one fits, `urn:x402:marketplace:*` otherwise. */
export function linkset(market: MarketFacts): Schemas["Linkset"] {
  const to = (path: ServicePath, type: string, title: string) => [{ href: linkTo(market, path), type, title }];
  const json = "application/json";
  return {
    linkset: [
      // RFC 9727: the API catalog's own context names the APIs it lists (here, this one).
      {
        anchor: linkTo(market, "/.well-known/api-catalog"),
        item: [{ href: rootUrl(market), type: "application/json", title: market.name }],
      },
      {
        anchor: rootUrl(market),
        "service-desc": to("/openapi.json", json, "OpenAPI description of every route"),
        "service-doc": to("/llms.txt", "text/plain", "How to sell and buy, for language models"),
        status: to("/status.json", json, "Status and counts"),
        alternate: [
          { href: linkTo(market, "/feed.atom"), type: "application/atom+xml", title: "New listings (Atom)" },
          { href: linkTo(market, "/feed.rss"), type: "application/rss+xml", title: "New listings (RSS)" },
          { href: linkTo(market, "/feed.json"), type: json, title: "New listings (JSON)" },
        ],
        "urn:x402:marketplace:sell": to("/sell.json", json, "Sell: list your x402 endpoint"),
        "urn:x402:marketplace:list": to("/listings", json, "POST a listing here, paying the fee with x402"),
        "urn:x402:marketplace:validate": to("/listings/validate", json, "Dry-run a listing for free"),
        "urn:x402:marketplace:buy": to("/buy.json", json, "Buy: pay sellers directly"),
        "urn:x402:marketplace:discovery": to("/discovery/resources", json, "The catalog, facilitator-shaped"),
        "urn:x402:marketplace:search": to("/discovery/search", json, "Search the catalog"),
        "urn:x402:marketplace:mcp": to("/mcp", json, "MCP server (Streamable HTTP)"),
        "urn:x402:marketplace:sync": to(
          "/sync/listings",
          json,
          "Mirror this catalog: changes since an instant, with removals",
        ),
        "urn:x402:marketplace:snapshot": to("/sync/snapshot", json, "Every live listing, hashed and signed"),
        "urn:x402:discovery": to("/.well-known/x402", json, "x402 discovery manifest"),
      },
    ],
  };
}

/** Routes worth fetching first, in order; every other free GET route follows in contract order. */
const FIRST = [
  "/discovery",
  "/discovery/resources",
  "/discovery/search",
  "/bazaar.json",
  "/foreign.json",
  "/feed.json",
  "/listings",
  "/sell.json",
  "/buy.json",
  "/playbook.json",
  "/start.json",
  "/status.json",
  "/llms.txt",
  "/openapi.json",
  "/mcp",
];

interface ContractOperation {
  operationId: string;
  description?: string;
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

/** The operators' routes (spec/ops.tsp: /metrics, /livez, /readyz) are no catalog document. */
const OPERATOR_PATHS = new Set<string>(routeTable.filter((route) => route.area === "ops").map((route) => route.path));

let memo: { key: string; value: Schemas["CrawlDocument"] } | undefined;

/** Every free GET document once (its first path), with its aliases, most useful first. */
export function crawlDocument(services: DocumentContext): Schemas["CrawlDocument"] {
  const { market, contract } = services;
  if (memo?.key === market.baseUrl) return memo.value;
  const paths = (contract.document as { paths: Record<string, Record<string, ContractOperation>> }).paths;
  const byCanonical = new Map<string, { path: string; operation: ContractOperation; aliases: string[] }>();
  for (const [path, item] of Object.entries(paths)) {
    const operation = item.get;
    // A path with parameters (/listings/{id}) is no document to crawl: the catalog links each one.
    if (
      !operation ||
      path.includes("{") ||
      path.startsWith("/kr-") ||
      path === "/openapi.yaml" ||
      OPERATOR_PATHS.has(path)
    )
      continue;
    const canonical = canonicalOf[operation.operationId as keyof typeof canonicalOf] ?? operation.operationId;
    const entry = byCanonical.get(canonical) ?? { path, operation, aliases: [] };
    byCanonical.set(canonical, entry);
    // The route whose operationId is the canonical one is the document's own path; others are aliases.
    if (operation.operationId === canonical) {
      if (entry.path !== path) entry.aliases.push(entry.path);
      entry.path = path;
      entry.operation = operation;
    } else if (entry.path !== path) {
      entry.aliases.push(path);
    }
  }
  const rank = (path: string) => (FIRST.includes(path) ? FIRST.indexOf(path) : FIRST.length);
  const routes = [...byCanonical.values()]
    .sort((a, b) => rank(a.path) - rank(b.path))
    .map(({ path, operation, aliases }, index) => ({
      priority: index + 1,
      url: linkTo(market, path as ServicePath),
      method: "GET" as const,
      mediaType: Object.keys(operation.responses?.["200"]?.content ?? {})[0] ?? "application/json",
      description: operation.description ?? "",
      aliases,
    }));
  const value = {
    name: market.name,
    x402Version: 2 as const,
    note: "Every route here is free (no payment, no credential). Fetch in priority order; aliases return the same document.",
    routes,
  };
  memo = { key: market.baseUrl, value };
  return value;
}
