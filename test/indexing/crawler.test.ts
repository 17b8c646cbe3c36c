// The index crawler against loopback hosts as they come: a Bazaar-shaped catalog paged by offset, a
// domain whose /.well-known/x402 lists bare URLs, and hostile ones (huge, slow, redirecting, private
// addresses in what they declare, thousands of resources). What a buyer sees is read over HTTP:
// indexed rows appear with source=indexed|all only once the health prober confirmed their 402.
import type { IncomingMessage } from "node:http";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimListing } from "../../src/client/index.js";
import { BASE_USDC } from "../../src/constants.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  startSeller,
  type Seller,
  type SellerAnswer,
} from "../support/sellers.js";

const PAY_TO = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const OTHER_NETWORK_ASSET = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

interface Item {
  resource: string;
  accepts: Array<Record<string, unknown>>;
  description?: string;
  method?: string;
  metadata?: { source?: string; provenance?: { source: string; document: string }; listingId?: string };
}
type Page = { items: Item[]; pagination: { total: number } };

const json = (body: unknown): SellerAnswer => ({
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const itemFor = (resource: string, extra: Partial<Item> = {}): Item => ({
  resource,
  accepts: [
    {
      scheme: "exact",
      network: "eip155:8453",
      amount: "30000",
      asset: BASE_USDC,
      payTo: PAY_TO,
      maxTimeoutSeconds: 60,
    },
  ],
  description: `Indexed endpoint at ${resource}`,
  ...extra,
});

/** A host that is at once a catalog (/discovery/resources, paged), a set of sellers (/api/*: 402) and a domain's manifests. */
function world(
  catalog: () => Item[],
  manifest: () => unknown = () => ({ x402Version: 2, resources: [] }),
  openapi?: () => unknown,
) {
  const offsets: number[] = [];
  let failAtOffset: number | null = null;
  const answer = (request: IncomingMessage): SellerAnswer => {
    const url = new URL(request.url ?? "/", "http://x");
    if (url.pathname === "/discovery/resources") {
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const limit = Number(url.searchParams.get("limit") ?? 100);
      offsets.push(offset);
      if (failAtOffset !== null && offset >= failAtOffset) return { status: 503, body: "busy" };
      const all = catalog();
      return json({
        x402Version: 2,
        items: all.slice(offset, offset + limit),
        pagination: { limit, offset, total: all.length },
      });
    }
    if (url.pathname.startsWith("/api/"))
      return challengeAnswer(challenge([requirement({ payTo: PAY_TO, amount: "30000", asset: BASE_USDC })]));
    if (url.pathname === "/.well-known/x402") return json(manifest());
    if (url.pathname === "/openapi.json" && openapi) return json(openapi());
    return { status: 404, body: "" };
  };
  return { answer, offsets, failFrom: (offset: number | null) => (failAtOffset = offset) };
}

const indexed = async (server: CatalogServer, query = "source=indexed") =>
  (await server.json<Page>(`/discovery/resources?limit=200&${query}`)).body.items.map((item) => item.resource).sort();
const crawl = async (server: CatalogServer) => {
  const run = await server.server.jobs.runNow("index-crawler");
  expect(run).toMatchObject({ ran: true, ok: true });
  return (
    run as {
      result: Array<{ source: string; complete: boolean; problem: string | null; counts: Record<string, number> }>;
    }
  ).result;
};
const confirm = (server: CatalogServer) => server.server.contexts.listings.health.prober.runRound();

describe.each(databaseKinds)("the index crawler on $kind", (kind) => {
  const ENV = {
    ALLOW_LOOPBACK_SELLERS: "true",
    INDEX_HOST_GAP_MS: "0",
    HEALTH_HOST_GAP_MS: "0",
    PROBE_TIMEOUT_MS: "2000",
    INDEX_TIMEOUT_MS: "1000",
  };

  describe("a Bazaar-shaped catalog", () => {
    let host: Seller;
    let server: CatalogServer;
    let catalog: Item[];
    const hostWorld = world(() => catalog);

    beforeAll(async () => {
      host = await startSeller(hostWorld.answer);
      catalog = [
        ...Array.from({ length: 230 }, (_, i) => itemFor(`${host.url}/api/tool-${i}`)),
        itemFor("https://10.0.0.7/api/internal"),
        itemFor("http://api.example.com/plain-http"),
        itemFor("https://api.example.com/on-another-network", {
          accepts: [
            { scheme: "exact", network: "eip155:84532", amount: "1", asset: OTHER_NETWORK_ASSET, payTo: PAY_TO },
          ],
        }),
        itemFor("https://api.example.com/no-price", {
          accepts: [{ scheme: "exact", network: "eip155:8453", amount: "0", asset: BASE_USDC, payTo: PAY_TO }],
        }),
      ];
      server = await startCatalogServer(kind, { ...ENV, INDEX_SOURCES: `bazaar:${host.url}/discovery/resources` });
    });
    afterAll(async () => {
      await server?.close();
      await host?.close();
    });

    it("takes what it can show, refuses the rest by name, and shows rows only once its probe confirmed them", async () => {
      hostWorld.failFrom(200);
      const [first] = await crawl(server);
      // Page 3 failed: the pass stops there and keeps its place.
      expect(first).toMatchObject({
        source: `bazaar:${new URL(host.url).host}`,
        complete: false,
        problem: "http_error",
      });
      expect(first!.counts).toMatchObject({ added: 200 });
      expect(await indexed(server)).toEqual([]);

      hostWorld.failFrom(null);
      hostWorld.offsets.length = 0;
      const [second] = await crawl(server);
      // Resumed at the saved offset, not from the start.
      expect(hostWorld.offsets[0]).toBe(200);
      expect(second).toMatchObject({ complete: true, problem: null });
      expect(second!.counts).toMatchObject({
        added: 30,
        refused_private_address: 1,
        refused_not_https: 1,
        refused_other_network_or_asset: 1,
        refused_bad_amount: 1,
      });

      // Not shown before the probe, and never in the default view.
      expect(await indexed(server, "source=all")).toEqual([]);
      await confirm(server);
      const shown = await indexed(server);
      expect(shown).toHaveLength(200);
      expect((await server.json<Page>("/discovery/resources?limit=200")).body.items).toEqual([]);
      // The web catalog: the same rows with source=indexed, labelled with where they came from; none by default.
      const page = await (await server.server.fetch("/?source=indexed&limit=5")).text();
      expect(page).toContain(`indexed from bazaar:${new URL(host.url).host}`);
      expect(await (await server.server.fetch("/?limit=5")).text()).not.toContain("indexed from");
      const item = (await server.json<Page>("/discovery/resources?limit=1&source=indexed")).body.items[0]!;
      expect(item.metadata).toMatchObject({
        source: "indexed",
        provenance: { source: expect.stringMatching(/^bazaar:/), document: `${host.url}/discovery/resources` },
      });
    });

    it("pages source=all in one newest-first order across listings and indexed rows", async () => {
      server.clock.advance(60_000);
      const listed = await server.list({ description: "A paid listing among indexed rows" });
      const all = (await server.json<Page>("/discovery/resources?limit=5&source=all")).body;
      expect(all.items[0]!.metadata?.listingId).toBe(listed.id);
      const indexedTotal = (await server.json<Page>("/discovery/resources?limit=1&source=indexed")).body.pagination
        .total;
      expect(indexedTotal).toBe(230);
      expect(all.pagination.total).toBe(indexedTotal + 1);
      const deep = (await server.json<Page>("/discovery/resources?limit=10&offset=225&source=all")).body.items;
      expect(deep).toHaveLength(6);
    });

    it("removes what the source stopped declaring after a complete pass", async () => {
      catalog = catalog.slice(10);
      const [report] = await crawl(server);
      expect(report).toMatchObject({ complete: true });
      expect(report!.counts.removed).toBe(10);
      expect(await indexed(server)).not.toContain(`${host.url}/api/tool-0`);
      expect((await server.json<Page>("/discovery/resources?limit=1&source=indexed")).body.pagination.total).toBe(220);
    });
  });

  describe("a domain that lists bare URLs and paid OpenAPI operations", () => {
    let host: Seller;
    let server: CatalogServer;
    beforeAll(async () => {
      let url = "";
      host = await startSeller(
        world(
          () => [],
          () => ({
            version: 1,
            resources: [
              `${url}/api/weather`,
              { url: `${url}/api/quote`, method: "POST", description: "Quotes\u0000\u001b[31m in red" },
              "http://169.254.169.254/latest",
            ],
          }),
          // Its OpenAPI document: one more paid operation; a free one, a templated path and the
          // manifest's own weather route are not taken again.
          () => ({
            openapi: "3.1.0",
            paths: {
              "/api/translate": {
                get: { summary: "Translates a text", responses: { "402": { description: "Payment required" } } },
              },
              "/api/weather": { get: { responses: { "402": {} } } },
              "/api/free": { get: { responses: { "200": {} } } },
              "/api/items/{id}": { get: { responses: { "402": {} } } },
            },
          }),
        ).answer,
      );
      url = host.url;
      server = await startCatalogServer(kind, { ...ENV, INDEX_SOURCES: `domain:${host.url}` });
    });
    afterAll(async () => {
      await server?.close();
      await host?.close();
    });

    it("reads each URL's 402 for its terms and refuses private addresses", async () => {
      const [report] = await crawl(server);
      expect(report!.counts).toMatchObject({ added: 3, refused_private_address: 1 });
      // Why a row is not shown yet, and why it is once confirmed: its status names both.
      const row = (await server.server.repositories.listings.transactions.prisma.listing.findFirst({
        where: { indexedSource: { not: null } },
      }))!;
      const statusOf = async () =>
        (
          await server.json<{ status: { state: string; reasons: Array<{ code: string }> } }>(
            `/listings/${row.id}/status`,
          )
        ).body.status;
      expect(await statusOf()).toMatchObject({ state: "pending", reasons: [{ code: "awaiting_probe_confirmation" }] });
      await confirm(server);
      expect((await statusOf()).reasons.map((reason) => reason.code)).toEqual(["probe_passing", "indexed_not_listed"]);
      const items = (await server.json<Page>("/discovery/resources?source=indexed")).body.items;
      expect(items.map((item) => [item.resource, item.accepts[0]!.payTo, item.accepts[0]!.amount]).sort()).toEqual([
        [`${host.url}/api/quote`, PAY_TO, "30000"],
        [`${host.url}/api/translate`, PAY_TO, "30000"],
        [`${host.url}/api/weather`, PAY_TO, "30000"],
      ]);
      // A manifest's words are stored as a catalog's are: no control characters.
      expect(items.find((item) => item.resource === `${host.url}/api/quote`)!.description).toBe("Quotes [31m in red");
    });
  });

  describe("an indexed row's seller", () => {
    const sellerKey = generatePrivateKey();
    const seller = privateKeyToAccount(sellerKey);
    let host: Seller;
    let server: CatalogServer;
    beforeAll(async () => {
      let url = "";
      host = await startSeller((request) =>
        request.url === "/.well-known/x402"
          ? json({ version: 1, resources: [`${url}/api/mine`, `${url}/api/listed-later`] })
          : challengeAnswer(challenge([requirement({ payTo: seller.address, amount: "30000", asset: BASE_USDC })])),
      );
      url = host.url;
      server = await startCatalogServer(kind, { ...ENV, INDEX_SOURCES: `domain:${host.url}` });
      await crawl(server);
      await confirm(server);
    });
    afterAll(async () => {
      await server?.close();
      await host?.close();
    });

    const itemOf = async (resource: string) =>
      (await server.json<Page>("/discovery/resources?source=indexed")).body.items.find(
        (item) => item.resource === resource,
      ) as (Item & { metadata: { listingId: string; ownerVerified: boolean } }) | undefined;

    it("claims it with the owner signature; a stranger cannot", async () => {
      const item = (await itemOf(`${host.url}/api/mine`))!;
      expect(item.metadata.ownerVerified).toBe(false);
      const baseUrl = server.server.url;
      await expect(
        claimListing({ baseUrl, privateKey: generatePrivateKey(), listingId: item.metadata.listingId }),
      ).rejects.toMatchObject({ kind: "refused" });
      // Sent anyway, a stranger's signature is refused by the server too, and nothing changes.
      const stranger = privateKeyToAccount(generatePrivateKey());
      const forged = await server.json(`/listings/${item.metadata.listingId}/claim`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          nonce: `0x${"ab".repeat(32)}`,
          deadline: Math.floor(server.clock.now().getTime() / 1000) + 300,
          signature: await stranger.signMessage({ message: "not the claim" }),
        }),
      });
      expect(forged.status).toBe(403);
      const claimed = await claimListing({ baseUrl, privateKey: sellerKey, listingId: item.metadata.listingId });
      expect(claimed).toMatchObject({ action: "claim", state: "indexed", ownerVerified: true });
      expect((await itemOf(`${host.url}/api/mine`))!.metadata.ownerVerified).toBe(true);
    });

    it("lists the resource, and the listing replaces the indexed row", async () => {
      const resource = `${host.url}/api/listed-later`;
      expect(await itemOf(resource)).toBeDefined();
      server.clock.advance(1000);
      const listed = await server.list({
        resource,
        method: "GET",
        sellerPayTo: seller.address,
        description: "Now a paid listing",
      });
      expect(await itemOf(resource)).toBeUndefined();
      const mine = (await server.json<Page>("/discovery/resources?source=all")).body.items.filter(
        (item) => item.resource === resource,
      );
      expect(mine.map((item) => [item.metadata?.listingId, item.metadata?.source])).toEqual([[listed.id, "listed"]]);
      // Crawled again, the resource stays the listing's: no indexed row beside it.
      const [report] = await crawl(server);
      expect(report!.counts.listed).toBe(1);
      expect(await itemOf(resource)).toBeUndefined();
    });
  });

  describe("a source read with a gap between requests", () => {
    let host: Seller;
    let server: CatalogServer;
    beforeAll(async () => {
      // 15 pages of items refused without a write: each page comes back before the gap is over, so every request waits.
      host = await startSeller(
        world(() => Array.from({ length: 1500 }, (_, i) => itemFor(`http://api.example.com/tool-${i}`))).answer,
      );
      server = await startCatalogServer(kind, {
        ...ENV,
        INDEX_HOST_GAP_MS: "20",
        INDEX_SOURCES: `bazaar:${host.url}/discovery/resources`,
      });
    });
    afterAll(async () => {
      await server?.close();
      await host?.close();
    });

    it("waits without leaving a listener on the crawl's signal per request", async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
      process.on("warning", onWarning);
      try {
        const [report] = await crawl(server);
        expect(report).toMatchObject({ complete: true, problem: null, counts: { refused_not_https: 1500 } });
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off("warning", onWarning);
      }
      expect(warnings.filter((warning) => warning.startsWith("MaxListenersExceededWarning"))).toEqual([]);
    });
  });

  describe("hostile sources", () => {
    const hosts: Seller[] = [];
    let server: CatalogServer;
    let names: Record<string, string>;
    beforeAll(async () => {
      const huge = await startSeller(() => json({ items: [], padding: "x".repeat(200_000) }));
      const slow = await startSeller(() => ({ ...json({ items: [] }), delayMs: 30_000 }));
      const redirect = await startSeller((request) => ({
        status: 302,
        headers: { location: request.url ?? "/" },
        body: "",
      }));
      const many = await startSeller(
        world(() => Array.from({ length: 5000 }, (_, i) => itemFor(`https://api.example.com/tool-${i}`))).answer,
      );
      hosts.push(huge, slow, redirect, many);
      const sources = [huge, slow, redirect, many].map((host) => `bazaar:${host.url}/discovery/resources`);
      names = Object.fromEntries(
        ["huge", "slow", "redirect", "many"].map((name, i) => [name, `bazaar:${new URL(hosts[i]!.url).host}`]),
      );
      server = await startCatalogServer(kind, {
        ...ENV,
        INDEX_SOURCES: sources.join(","),
        INDEX_MAX_DOCUMENT_BYTES: "65536",
        // Long enough for the 5,000-item source on a loaded machine; the slow one never answers in time.
        INDEX_TIMEOUT_MS: "5000",
        INDEX_MAX_ITEMS: "250",
      });
    });
    afterAll(async () => {
      await server?.close();
      await Promise.all(hosts.map((host) => host.close()));
    });

    it("bounds each one by size, time, redirects and item count", async () => {
      const reports = Object.fromEntries((await crawl(server)).map((report) => [report.source, report]));
      expect(reports[names.huge!]).toMatchObject({ complete: false, problem: "too_large" });
      expect(reports[names.slow!]).toMatchObject({ complete: false, problem: "timeout" });
      expect(reports[names.redirect!]).toMatchObject({ complete: false, problem: "redirect_not_followed" });
      expect(reports[names.many!]).toMatchObject({ complete: true, problem: "item_cap" });
      expect(reports[names.many!]!.counts.added).toBe(250);
      // The redirect was not followed: one request.
      expect(hosts[2]!.requests).toHaveLength(1);
    });
  });
});
