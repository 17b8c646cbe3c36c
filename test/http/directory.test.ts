import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalOf } from "../../generated/operations.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

describe("discovery index, linkset and crawl documents", () => {
  let market: CatalogServer;
  beforeAll(async () => {
    market = await startCatalogServer(databaseKinds[0]!);
  });
  afterAll(async () => {
    await market?.close();
  });

  it("serves the discovery index at every alias, pointing at resources and search", async () => {
    const { body } = await market.json<{ resources: string; search: string; x402Version: number }>("/discovery");
    const base = market.server.contexts.listings.config.publicBaseUrl;
    expect(body).toMatchObject({
      x402Version: 2,
      resources: `${base}/discovery/resources`,
      search: `${base}/discovery/search`,
    });
    for (const alias of ["/discovery.json", "/discover", "/discover.json", "/index.json"]) {
      expect(await (await market.server.fetch(alias)).text()).toBe(JSON.stringify(body));
    }
  });

  it("serves an RFC 9264 linkset: anchors with arrays of absolute link targets", async () => {
    const { body } = await market.json<{ linkset: Array<Record<string, unknown>> }>("/linkset.json");
    expect(body.linkset.length).toBeGreaterThan(0);
    for (const context of body.linkset) {
      expect(typeof context.anchor).toBe("string");
      for (const [relation, targets] of Object.entries(context)) {
        if (relation === "anchor") continue;
        expect(Array.isArray(targets), relation).toBe(true);
        for (const target of targets as Array<{ href: string }>)
          expect(new URL(target.href).origin).toBe(market.server.contexts.listings.config.publicBaseUrl);
      }
    }
    // RFC 9727: the first context is the API catalog's (its `item` is this API); the service's relations follow.
    expect(body.linkset[0]).toMatchObject({
      anchor: `${market.server.contexts.listings.config.publicBaseUrl}/.well-known/api-catalog`,
    });
    expect(Object.keys(body.linkset[1]!)).toEqual(
      expect.arrayContaining([
        "service-desc",
        "urn:x402:marketplace:sell",
        "urn:x402:marketplace:buy",
        "urn:x402:marketplace:mcp",
      ]),
    );
    expect(await (await market.server.fetch("/bazaar.links.json")).text()).toBe(JSON.stringify(body));
  });

  it("lists every free GET document once, in priority order, each answering", async () => {
    const { body } = await market.json<{
      routes: Array<{ priority: number; url: string; aliases: string[]; mediaType: string }>;
    }>("/crawl.json");
    expect(body.routes.map((route) => route.priority)).toEqual(body.routes.map((_, index) => index + 1));
    expect(new URL(body.routes[0]!.url).pathname).toBe("/discovery");
    const contract = JSON.parse(readFileSync("generated/openapi.json", "utf8")) as {
      paths: Record<string, { get?: { operationId: string } }>;
    };
    const freeGetDocuments = new Set(
      Object.entries(contract.paths)
        // The operators' routes (spec/ops.tsp) are no catalog document; a path with parameters
        // (/listings/{id}) is one document per listing, linked from the catalog, not crawled.
        .filter(
          ([path, item]) =>
            item.get &&
            !path.includes("{") &&
            !path.startsWith("/kr-") &&
            path !== "/openapi.yaml" &&
            !["/metrics", "/livez", "/readyz"].includes(path),
        )
        .map(([, item]) => canonicalOf[item.get!.operationId as keyof typeof canonicalOf]),
    );
    expect(body.routes).toHaveLength(freeGetDocuments.size);
    for (const route of body.routes) {
      const response = await fetch(
        route.url.replace(market.server.contexts.listings.config.publicBaseUrl, market.server.url),
      );
      expect(response.status, route.url).not.toBe(404);
    }
  });
});
