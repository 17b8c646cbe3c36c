// The x402 discovery standards, as this host publishes them: `/.well-known/x402` (the `discovery`
// extension's capability manifest: a bare pointer to the paid route, the peers, and where the catalog
// and its signed snapshot are read) and `/.well-known/x402.json` (well-known-discovery.md: the paid
// route with its advisory requirement and input). The live 402 of POST /listings stays authoritative.
import type { components } from "../../generated/openapi.js";
import type { MarketFacts } from "../market/facts.js";
import { linkTo } from "../market/links.js";
import { listingRequestSchema } from "./listing-request.js";

type Schemas = components["schemas"];

const DESCRIPTION = (market: MarketFacts) =>
  `List your x402-paid endpoint in ${market.name} for ${market.ttlDays} days: ${market.feeUsdc} USDC, paid with x402 (exact, ${market.network}).`;

export function x402DiscoveryManifest(
  market: MarketFacts,
  publication: { peers: string[]; signer: string; updated: Date },
): Schemas["X402DiscoveryManifest"] {
  return {
    x402Version: 2,
    kind: "resource-server",
    name: market.name,
    description:
      "A catalog of x402-paid HTTP endpoints: sellers list theirs for a fee, buyers read the catalog free and pay sellers directly.",
    resources: [{ url: linkTo(market, "list"), method: "POST", description: DESCRIPTION(market) }],
    ...(publication.peers.length > 0 && { peers: publication.peers }),
    docs: linkTo(market, "/docs"),
    updated: publication.updated.toISOString(),
    catalog: {
      resources: linkTo(market, "/discovery/resources"),
      search: linkTo(market, "/discovery/search"),
      sync: linkTo(market, "/sync/listings"),
      snapshot: linkTo(market, "/sync/snapshot"),
      snapshotSigner: publication.signer,
    },
  };
}

export function x402RouteManifest(market: MarketFacts, updated: Date): Schemas["X402RouteManifest"] {
  return {
    x402Version: 2,
    lastUpdated: Math.floor(updated.getTime() / 1000),
    items: [
      {
        resource: {
          url: linkTo(market, "list"),
          description: DESCRIPTION(market),
          mimeType: "application/json",
          serviceName: market.name,
          tags: ["marketplace", "listing"],
        },
        type: "http",
        accepts: [
          {
            scheme: "exact",
            network: market.network,
            amount: market.feeAtomic,
            asset: market.asset,
            payTo: market.payTo,
            maxTimeoutSeconds: market.maxTimeoutSeconds,
            extra: { name: market.tokenName, version: market.tokenVersion },
          },
        ],
        input: {
          method: "POST",
          routeTemplate: "/listings",
          bodyType: "json",
          body: listingRequestSchema() as Record<string, unknown>,
        },
        output: { mimeType: "application/json" },
      },
    ],
  };
}
