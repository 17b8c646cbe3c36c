import type { components } from "../../generated/openapi.js";
import type { DocumentContext } from "./context.js";
import type { Listing } from "../catalog/rows.js";
import { toCatalogItem } from "../catalog/catalog-item.js";
import { SEED_INVENTORY_NOTE } from "./discovery.js";
import { linkTo, linksTo } from "../market/links.js";
import { CONTRACT_VERSION } from "../constants.js";
import { listingFeeSummary } from "./listing-fee.js";

export type ForeignDocument = components["schemas"]["ForeignDocument"];

/** The foreign catalog shows the newest foreign listings; the discovery routes page through all. */
export const FOREIGN_PAGE_SIZE = 100;

export function foreignDocument(
  services: DocumentContext,
  rows: Listing[],
  counts: { foreign: number; seed: number },
  updatedAt: Date,
): ForeignDocument {
  const { market } = services;
  const items = rows.map((row) => toCatalogItem(row, market));
  return {
    name: market.name,
    version: CONTRACT_VERSION,
    role: "marketplace",
    x402Version: 2,
    updatedAt: updatedAt.toISOString(),
    purpose: `Listings by third-party sellers only (the newest ${FOREIGN_PAGE_SIZE}); page through all of them at /discovery/resources.`,
    paid: false,
    sellerListingCount: counts.foreign,
    sellerListingCountIncludingSeed: counts.foreign + counts.seed,
    items,
    sellerListings: items,
    howToBuy: [
      "Pick an item and call its resource with its method.",
      "The seller answers HTTP 402 with a PAYMENT-REQUIRED challenge; pay accepts[0] (the seller's payTo) with x402, then retry with PAYMENT-SIGNATURE.",
      "The marketplace never holds funds: you pay the seller directly.",
    ],
    howToPoll: [
      `Send If-None-Match with the ETag of your last read: 304 means nothing changed.`,
      `Or poll ${linkTo(market, "/feed.json")}?since=<nextSince of your last read> for new listings only.`,
    ],
    howToSell: [
      `Dry-run your listing body free at POST ${linkTo(market, "/listings/validate")}.`,
      `POST it to ${linkTo(market, "/listings")} and pay the ${market.feeUsdc} USDC fee with x402 (${market.network}).`,
      `It is listed for ${market.ttlDays} days; paying again renews it.`,
    ],
    listingFee: listingFeeSummary(market),
    filters: {
      equivalentSearch: linkTo(market, "/search"),
      equivalentResources: linkTo(market, "/discovery/resources"),
      leftoverSeedParam: "leftoverSeed=true on the discovery routes includes the /kr-* demo rows",
      foreignParam: "foreign=false on the discovery routes includes the /kr-* demo rows",
    },
    links: linksTo(market, ["market", "resources", "search", "feed", "list", "playbook", "status", "includeSeed"]),
    seedInventoryNote: SEED_INVENTORY_NOTE,
  };
}
