// MCP resources: the catalog's first page, the sell and buy playbooks, and each live listing as
// `listing://{id}` (a resource template whose list is the catalog's first page and whose `id`
// completes from live listing ids). Content is the JSON the HTTP routes serve, so an agent that
// reads a resource and one that GETs the route see the same document.
import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { toCatalogItem } from "../catalog/catalog-item.js";
import { searchDocument } from "../documents/discovery.js";
import { buyPlaybook, sellPlaybook } from "../documents/playbooks.js";
import { linkTo, linkWithParams } from "../market/links.js";
import { catalogState, liveListing, searchPage } from "../queries/catalog.js";
import { listingStatus } from "../storage/listing/listing-status.js";
import type { McpServices } from "./context.js";
import { UNBOUNDED, type CatalogTurn } from "../market-tools/context.js";
import { guarded } from "./failures.js";

export const CATALOG_URI = "market://catalog";
export const SELL_PLAYBOOK_URI = "market://playbooks/sell";
export const BUY_PLAYBOOK_URI = "market://playbooks/buy";
export const LISTING_TEMPLATE = "listing://{id}";

/** How many listings the catalog resource, the template's list and an id completion return. */
const PAGE = 50;
const COMPLETIONS = 20;
const JSON_TYPE = "application/json";
/** The form of a listing id (the contract's `format: uuid`): anything else names no listing. */
const LISTING_ID = /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;
/** The MCP specification's "Resource not found" (server/resources#error-handling); the SDK 1.x has no name for it. */
const RESOURCE_NOT_FOUND = -32002;

function json(uri: string, document: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(document, null, 2) }] };
}

export function listingUri(id: string): string {
  return `listing://${encodeURIComponent(id)}`;
}

export function registerMarketResources(server: McpServer, services: McpServices, turn: CatalogTurn = UNBOUNDED): void {
  const { market } = services;
  const firstPage = () =>
    turn(async () =>
      searchDocument(services, await searchPage(services, await catalogState(services), { limit: PAGE }, "search")),
    );

  server.registerResource(
    "catalog",
    CATALOG_URI,
    {
      title: `${market.name} catalog`,
      description: `The first ${PAGE} live listings of the catalog (the discovery document of GET /search?limit=${PAGE}); each item's resource answers 402, pay its accepts[0]. More: the list_market tool or ${linkTo(market, "search")}.`,
      mimeType: JSON_TYPE,
    },
    (uri) => guarded(services, "reading the catalog", async () => json(uri.href, await firstPage())),
  );

  server.registerResource(
    "sell-playbook",
    SELL_PLAYBOOK_URI,
    {
      title: "How to sell: list a paid endpoint",
      description: "The sell playbook (GET /sell.json): dry-run, pay the listing fee with x402, manage the listing.",
      mimeType: JSON_TYPE,
    },
    (uri) => json(uri.href, sellPlaybook(market)),
  );

  server.registerResource(
    "buy-playbook",
    BUY_PLAYBOOK_URI,
    {
      title: "How to buy: find and pay an endpoint",
      description:
        "The buy playbook (GET /buy.json): search the catalog, then pay the seller's endpoint directly with x402.",
      mimeType: JSON_TYPE,
    },
    (uri) => json(uri.href, buyPlaybook(market)),
  );

  const template = new ResourceTemplate(LISTING_TEMPLATE, {
    list: () =>
      guarded(services, "listing the listings", async () => {
        const page = await firstPage();
        return {
          resources: page.items.map((item) => ({
            uri: listingUri(item.metadata.listingId),
            name: item.metadata.listingId,
            title: item.serviceName ?? item.description.slice(0, 80),
            description: item.description,
            mimeType: JSON_TYPE,
          })),
        };
      }),
    complete: {
      id: (value) =>
        guarded(services, "completing a listing id", async () => {
          const page = await firstPage();
          const prefix = value.trim();
          return page.items
            .map((item) => item.metadata.listingId)
            .filter((id) => id.startsWith(prefix))
            .slice(0, COMPLETIONS);
        }),
    },
  });

  server.registerResource(
    "listing",
    template,
    {
      title: "A live listing",
      description:
        "One live listing by id: its catalog item and its status with reason codes (GET /listings/{id} has its health and usage history and its transitions too), with the links of its page and API.",
      mimeType: JSON_TYPE,
    },
    (uri, variables) =>
      guarded(services, "reading a listing", async () => {
        const id = decodeURIComponent(String(variables.id ?? ""));
        const listing = LISTING_ID.test(id) ? await turn(() => liveListing(services, id)) : null;
        if (!listing)
          throw new McpError(
            RESOURCE_NOT_FOUND,
            `No live listing ${id.slice(0, 100)}: it never existed, expired, failed or was delisted.`,
          );
        return json(uri.href, {
          item: toCatalogItem(listing, market),
          status: listingStatus(listing, services.now()),
          links: {
            page: linkWithParams(market, "/listing/{id}", { id }),
            api: linkWithParams(market, "/listings/{id}", { id }),
            status: linkWithParams(market, "/listings/{id}/status", { id }),
          },
        });
      }),
  );
}
