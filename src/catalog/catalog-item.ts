import type { components } from "../../generated/openapi.js";
import type { Listing } from "../storage/listing-store.js";
import type { MarketFacts } from "../market/facts.js";

export type CatalogItem = components["schemas"]["CatalogItem"];

/**
 * A listing as buyers see it, Bazaar-shaped. The amount is the stored atomic integer (exact
 * decimal arithmetic at write time: "0.03" -> "30000"), never a float.
 */
export function toCatalogItem(listing: Listing, market: MarketFacts): CatalogItem {
  return {
    x402Version: 2,
    type: "http",
    resource: listing.resource,
    method: listing.method as CatalogItem["method"],
    description: listing.description,
    mimeType: "application/json",
    lastUpdated: listing.updatedAt.toISOString(),
    accepts: [
      {
        scheme: "exact",
        network: listing.network,
        amount: listing.priceAtomic,
        asset: market.asset,
        payTo: listing.sellerPayTo,
        maxTimeoutSeconds: market.maxTimeoutSeconds,
        extra: { name: market.tokenName, version: market.tokenVersion },
      },
    ],
    metadata: {
      marketplace: market.name,
      listingId: listing.id,
      priceUsdc: listing.priceUsdc,
      listedAt: listing.listedAt.toISOString(),
      expiresAt: listing.expiresAt.toISOString(),
      salePayTo: listing.sellerPayTo,
      saleTakeBps: market.saleTakeBps,
      leftoverSeed: listing.leftoverSeed,
    },
  };
}
