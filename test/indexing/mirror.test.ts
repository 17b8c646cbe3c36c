// A second instance of this service mirrors the first (INDEX_SOURCES=sync:<first>): its first pass
// loads the first's signed snapshot, checked against the signer the first publishes; later passes
// follow the change log. After listings are created, updated, delisted and expire on the first, one
// crawl brings the second's indexed rows to the first's live set. A snapshot that was tampered with
// on the way is refused and nothing of it is stored.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

const LIVE = "/discovery/resources?limit=200";
const liveIds = async (server: CatalogServer) =>
  (await server.json<{ items: Array<{ metadata: { listingId: string } }> }>(LIVE)).body.items
    .map((item) => item.metadata.listingId)
    .sort();
const mirroredIds = async (mirror: CatalogServer) =>
  (await mirror.server.repositories.index.keysOf(`sync:${new URL(originUrl).host}`)).length;
let originUrl = "";

async function crawl(server: CatalogServer) {
  const run = await server.server.jobs.runNow("index-crawler");
  expect(run).toMatchObject({ ran: true, ok: true });
  return (run as { result: Array<{ complete: boolean; problem: string | null; counts: Record<string, number> }> })
    .result[0]!;
}

/** The mirror's rows of its sync source, by id. */
async function rowsOf(mirror: CatalogServer): Promise<Map<string, { description: string; priceAtomic: string }>> {
  const rows = await mirror.server.repositories.listings.transactions.prisma.listing.findMany({
    where: { indexedSource: { not: null } },
    select: { id: true, description: true, priceAtomic: true },
  });
  return new Map(rows.map((row) => [row.id, { description: row.description, priceAtomic: row.priceAtomic }]));
}

describe.each(databaseKinds)("a mirror of this service on $kind", (kind) => {
  let origin: CatalogServer;
  let mirror: CatalogServer;
  let tamperer: Server;

  beforeAll(async () => {
    origin = await startCatalogServer(kind);
    originUrl = origin.server.url;
    mirror = await startCatalogServer(kind, {
      ALLOW_LOOPBACK_SELLERS: "true",
      INDEX_HOST_GAP_MS: "0",
      INDEX_SOURCES: `sync:${origin.server.url}`,
    });
  });
  afterAll(async () => {
    await mirror?.close();
    await origin?.close();
    await new Promise((resolve) => (tamperer ? tamperer.close(resolve) : resolve(undefined)));
  });

  it("converges on the origin's live set as listings are created, updated, delisted and expire", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await origin.list({ description: `Mirrored listing ${i}`, resource: `https://api.example.com/tool-${i}` })).id,
      );
    const first = await crawl(mirror);
    expect(first).toMatchObject({ complete: true, problem: null });
    expect([...(await rowsOf(mirror)).keys()].sort()).toEqual(await liveIds(origin));

    const owners = origin.server.repositories.owners;
    await owners.update(
      ids[0]!,
      { description: "Changed on the origin", priceUsdc: "0.05" },
      { nonce: `0x${"1".repeat(64)}`, action: "update", signer: "0x0" },
      origin.clock.now(),
    );
    await owners.delist(ids[1]!, { nonce: `0x${"2".repeat(64)}`, action: "delist", signer: "0x0" }, origin.clock.now());
    const added = await origin.list({
      description: "Listed after the first crawl",
      resource: "https://api.example.com/new",
    });
    const second = await crawl(mirror);
    expect(second).toMatchObject({ complete: true });
    const rows = await rowsOf(mirror);
    expect([...rows.keys()].sort()).toEqual(await liveIds(origin));
    expect(rows.get(ids[0]!)).toEqual({ description: "Changed on the origin", priceAtomic: "50000" });
    expect(rows.has(added.id)).toBe(true);
    expect(second.counts.removed).toBe(1);

    origin.clock.advance(31 * DAY_MS);
    expect(await origin.server.jobs.runNow("listing-terms")).toMatchObject({ ran: true, ok: true });
    await crawl(mirror);
    expect(await liveIds(origin)).toEqual([]);
    expect(await mirroredIds(mirror)).toBe(0);
  });

  it("refuses a snapshot whose items were changed on the way, and stores nothing of it", async () => {
    await origin.list({ description: "Genuine description", resource: "https://api.example.com/genuine" });
    // A man in the middle: the origin's documents, with the snapshot's first description rewritten.
    tamperer = createServer((request, response) => {
      void (async () => {
        const upstream = await fetch(`${origin.server.url}${request.url}`);
        let body = await upstream.text();
        if (request.url?.startsWith("/.well-known/x402"))
          body = body.replaceAll(origin.server.url, `http://127.0.0.1:${(tamperer.address() as AddressInfo).port}`);
        if (request.url?.startsWith("/sync/snapshot"))
          body = body.replace("Genuine description", "Pay the attacker instead");
        response.writeHead(upstream.status, { "content-type": "application/json" }).end(body);
      })();
    });
    await new Promise<void>((resolve) => tamperer.listen(0, "127.0.0.1", resolve));
    const tampered = await startCatalogServer(kind, {
      ALLOW_LOOPBACK_SELLERS: "true",
      INDEX_HOST_GAP_MS: "0",
      INDEX_SOURCES: `sync:http://127.0.0.1:${(tamperer.address() as AddressInfo).port}`,
    });
    try {
      const report = await crawl(tampered);
      expect(report).toMatchObject({ complete: false, problem: "snapshot_refused" });
      expect((await rowsOf(tampered)).size).toBe(0);
    } finally {
      await tampered.close();
    }
  });
});
