import type { components } from "../../generated/openapi.js";
import { isJsonObject } from "../contract/json.js";
import { ITEM_SCHEME, ITEM_TYPE, type Listing } from "../storage/listing/listing-store.js";
import type { MarketFacts } from "../market/facts.js";

export type CatalogItem = components["schemas"]["CatalogItem"];

/** The stored tags column: a JSON array of strings (the probe sanitised them), or null. */
function tagsOf(column: string | null): string[] | undefined {
  if (column === null) return undefined;
  try {
    const tags: unknown = JSON.parse(column);
    return Array.isArray(tags) && tags.length > 0 ? (tags as string[]) : undefined;
  } catch {
    return undefined;
  }
}

type ItemHealth = CatalogItem["metadata"]["health"];
type ItemProvenance = NonNullable<CatalogItem["metadata"]["provenance"]>;

/** The published health (healthStatus, and healthSummary: the rest of metadata.health, written by the re-prober). */
function healthOf(listing: Listing): ItemHealth {
  const summary = isJsonObject(listing.healthSummary) ? (listing.healthSummary as Omit<ItemHealth, "status">) : {};
  return { ...summary, status: listing.healthStatus as ItemHealth["status"] };
}

/** Which fields the source declared and which our probe read from the seller's 402 (the terms, once it confirmed them). */
const DECLARED_FIELDS = ["resource", "method", "description", "serviceName", "tags"] as const;
const PROBED_FIELDS = ["scheme", "network", "asset", "amount", "payTo"] as const;

/** An indexed row's provenance: where it was read and when, and what our own probe confirmed. */
function provenanceOf(listing: Listing): ItemProvenance {
  const stored = listing.provenance as unknown as Pick<ItemProvenance, "source" | "document" | "firstSeenAt">;
  const confirmed = listing.state === "indexed";
  const lastHealthyAt = isJsonObject(listing.healthSummary) ? listing.healthSummary.lastHealthyAt : undefined;
  const fields: ItemProvenance["fields"] = {};
  for (const field of DECLARED_FIELDS) fields[field] = "source";
  for (const field of PROBED_FIELDS) fields[field] = confirmed ? "probe" : "source";
  return {
    source: stored.source,
    document: stored.document,
    firstSeenAt: stored.firstSeenAt,
    // Each sighting in the source writes the row (its expiry moves on); so does the probe's first confirmation.
    lastSeenAt: listing.updatedAt.toISOString(),
    fields,
    ...(confirmed && typeof lastHealthyAt === "string" && { confirmedAt: lastHealthyAt }),
  };
}

/**
 * A listing as buyers see it, Bazaar-shaped. The amount is the stored atomic integer (exact
 * decimal arithmetic at write time: "0.03" -> "30000"), never a float.
 */
export function toCatalogItem(listing: Listing, market: MarketFacts): CatalogItem {
  const tags = tagsOf(listing.tags);
  return {
    x402Version: 2,
    type: ITEM_TYPE,
    resource: listing.resource,
    method: listing.method as CatalogItem["method"],
    description: listing.description,
    mimeType: listing.mimeType ?? "application/json",
    ...(listing.serviceName !== null && { serviceName: listing.serviceName }),
    ...(tags && { tags }),
    ...(listing.iconUrl !== null && { iconUrl: listing.iconUrl }),
    ...(isJsonObject(listing.bazaar) && { extensions: { bazaar: listing.bazaar } }),
    lastUpdated: listing.updatedAt.toISOString(),
    accepts: [
      {
        scheme: ITEM_SCHEME,
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
      source: listing.indexedKey === null ? "listed" : "indexed",
      ...(listing.indexedKey !== null && isJsonObject(listing.provenance) && { provenance: provenanceOf(listing) }),
      ownerVerified: listing.ownerVerified,
      health: healthOf(listing),
      ...(isJsonObject(listing.usageSummary) && {
        usage: listing.usageSummary as unknown as NonNullable<CatalogItem["metadata"]["usage"]>,
      }),
      ...(isJsonObject(listing.sellerUsage) && {
        sellerUsage: listing.sellerUsage as unknown as NonNullable<CatalogItem["metadata"]["sellerUsage"]>,
      }),
    },
  };
}
