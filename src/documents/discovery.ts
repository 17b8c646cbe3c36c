import type { components } from "../../generated/openapi.js";
import type { DocumentContext } from "./context.js";
import type { Listing, Page } from "../catalog/rows.js";
import { toCatalogItem } from "../catalog/catalog-item.js";
import { linksTo, DISCOVERY_LINKS } from "../market/links.js";
import { listingFeeDetail } from "./listing-fee.js";
import { encodeCursor, type CursorScope } from "../catalog/search-cursor.js";
import type { RankReasons } from "../search/types.js";

export type DiscoveryDocument = components["schemas"]["DiscoveryDocument"];

export const SEED_INVENTORY_NOTE =
  "First-party /kr-* paths on this origin are leftover seed inventory (demo endpoints), not catalog items proper; they are hidden unless a seed parameter asks for them.";

export const SEED_FILTERS: Record<string, string> = {
  default: "foreign-first: leftover seed rows (/kr-* demo endpoints) are omitted",
  includeSeed: "includeSeed=true includes leftover seed rows",
  excludeSeed: "excludeSeed=false includes seed rows (legacy; true keeps the default)",
  leftoverSeed: "leftoverSeed=true includes seed rows; false keeps the default",
  foreign: "foreign=false includes seed rows; true keeps the default",
};

/** What a catalog list shows (src/queries/catalog.ts listPage). */
export interface ListView {
  page: Page<Listing>;
  limit: number;
  offset: number;
  /** The default seed view of the resources document describes the filters. */
  describeFilters: boolean;
}

function base(
  services: DocumentContext,
  note: string,
): Pick<DiscoveryDocument, "x402Version" | "role" | "name" | "note" | "listingFee" | "links" | "seedInventoryNote"> {
  const { market } = services;
  return {
    x402Version: 2,
    role: "marketplace",
    name: market.name,
    note,
    listingFee: listingFeeDetail(market),
    links: linksTo(market, DISCOVERY_LINKS),
    seedInventoryNote: SEED_INVENTORY_NOTE,
  };
}

export function listDocument(services: DocumentContext, view: ListView): DiscoveryDocument {
  const note =
    "Free catalog of x402-paid endpoints. Buy directly from each item's resource: on HTTP 402, pay its accepts[0].payTo (the seller), not the marketplace.";
  return {
    ...base(services, note),
    items: view.page.rows.map((row) => toCatalogItem(row, services.market)),
    pagination: { limit: view.limit, offset: view.offset, total: view.page.total },
    ...(view.describeFilters ? { filters: SEED_FILTERS } : {}),
  };
}

/** What a search shows (src/queries/catalog.ts searchPage). */
export interface SearchView {
  page: Page<Listing>;
  limit: number;
  offset: number;
  scope: CursorScope;
  /** Which matching answered (searches with text), with each result's rank reasons when the engine ranked them. */
  ranking?:
    | {
        mode: "lexical" | "semantic" | "hybrid" | "substring";
        reason?: string | undefined;
        reasons?: Map<string, RankReasons> | undefined;
        nearMisses?: Listing[] | undefined;
        interpreted?: Record<string, string> | undefined;
      }
    | undefined;
}

export function searchDocument(services: DocumentContext, view: SearchView): DiscoveryDocument {
  const reasons = view.ranking?.reasons;
  const render = (row: Listing) => {
    const item = toCatalogItem(row, services.market);
    const why = reasons?.get(row.id);
    return why
      ? {
          ...item,
          metadata: { ...item.metadata, rankReasons: why, lookalike: why.lookalikeOf !== undefined, match: why.match },
        }
      : item;
  };
  const items = view.page.rows.map(render);
  const nearMisses = view.ranking?.nearMisses;
  const next = view.offset + view.limit;
  const nextCursor = next < view.page.total ? encodeCursor(next, view.scope) : null;
  const note =
    "Matches description, resource URL, sellerPayTo, service name and tags, case-insensitively, best first. Page on with pagination.cursor (the next page's cursor, also in pagination.nextCursor).";
  return {
    ...base(services, note),
    query: view.scope.query,
    ...(view.ranking ? { searchMode: view.ranking.mode } : {}),
    ...(view.ranking?.reason ? { searchModeReason: view.ranking.reason } : {}),
    ...(view.ranking?.interpreted ? { interpretedFilters: view.ranking.interpreted } : {}),
    ...(nearMisses?.length ? { nearMisses: nearMisses.map(render) } : {}),
    resources: items,
    items,
    pagination: {
      limit: view.limit,
      offset: view.offset,
      total: view.page.total,
      cursor: nextCursor,
      nextCursor,
    },
  };
}

/**
 * A search document as JSON.stringify writes it, with its item list written once: `resources` and
 * `items` are the same list under two names, and writing it twice was half of the document's
 * JSON.stringify (about 0.15 ms of a 20-result search's request-thread CPU).
 */
export function searchJson(document: DiscoveryDocument): string {
  const { resources, items, pagination, ...head } = document;
  const opening = JSON.stringify(head).slice(0, -1);
  if (resources !== items || items === undefined || pagination === undefined || opening === "{")
    return JSON.stringify(document);
  const list = JSON.stringify(items);
  // The keys in searchDocument's order: the head's, then resources, items and pagination.
  return `${opening},"resources":${list},"items":${list},"pagination":${JSON.stringify(pagination)}}`;
}
