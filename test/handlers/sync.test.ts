// The sync area: another catalog mirrors this one exactly from GET /sync/listings (changes since an
// instant, removals as tombstones) and audits it with GET /sync/snapshot, whose hash and signature a
// mirror checks against the signer this marketplace publishes in /.well-known/x402. A second
// instance of the service, with its own database, plays the mirror here.
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snapshotProblem } from "../../src/market/snapshot-signing.js";
import { DAY_MS, databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { describeAreaRoutes, jsonOf } from "./area-routes.js";

interface SyncPage {
  items: Array<{
    id: string;
    removed: boolean;
    reason?: string;
    item?: { description: string; accepts: Array<{ amount: string }> };
  }>;
  nextCursor: string | null;
  updatedUntil: string;
}
interface Snapshot {
  generatedAt: string;
  items: Array<{ metadata: { listingId: string }; description: string }>;
  contentHash: string;
  signature: string;
  signer: string;
}

describe.each(databaseKinds)("the sync area on $kind", (kind) => {
  let origin: CatalogServer;
  let mirrorHost: CatalogServer;
  const ids: string[] = [];

  beforeAll(async () => {
    origin = await startCatalogServer(kind, { LOAD_SEED: "true" });
    mirrorHost = await startCatalogServer(kind);
    for (let i = 0; i < 3; i++) ids.push((await origin.list({ description: `Mirror me number ${i}` })).id);
  });
  afterAll(async () => {
    await origin?.close();
    await mirrorHost?.close();
  });

  describeAreaRoutes("sync", () => origin.server, {
    getSyncListings: {
      status: 200,
      request: { query: "?limit=2" },
      check(answer) {
        const page = jsonOf<SyncPage>(answer);
        expect(page.items.map((entry) => entry.id)).toEqual(ids.slice(0, 2));
        expect(page.nextCursor).not.toBeNull();
      },
    },
    getSyncSnapshot: {
      status: 200,
      check(answer) {
        const snapshot = jsonOf<Snapshot>(answer);
        expect(snapshot.items.map((item) => item.metadata.listingId)).toEqual([...ids].sort());
        expect(snapshot.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
      },
    },
  });

  /** What a mirror keeps: listing id -> its catalog item, from the origin's sync API only. */
  async function sync(mirror: Map<string, unknown>, since: string | undefined): Promise<string> {
    let cursor: string | null = null;
    let until: string;
    do {
      const query: URLSearchParams = new URLSearchParams({
        limit: "2",
        ...(cursor ? { cursor } : since ? { updated_since: since } : {}),
      });
      const { status, body }: { status: number; body: SyncPage } = await origin.json<SyncPage>(
        `/sync/listings?${query}`,
      );
      expect(status).toBe(200);
      for (const entry of body.items) {
        if (entry.removed) mirror.delete(entry.id);
        else mirror.set(entry.id, entry.item);
      }
      cursor = body.nextCursor;
      until = body.updatedUntil;
    } while (cursor);
    return until;
  }
  const liveIds = async () =>
    (
      await origin.json<{ items: Array<{ metadata: { listingId: string } }> }>("/discovery/resources?limit=100")
    ).body.items
      .map((i) => i.metadata.listingId)
      .sort();

  it("lets a mirror converge on the live set as listings are created, updated, delisted and expire", async () => {
    const mirror = new Map<string, unknown>();
    let since = await sync(mirror, undefined);
    expect([...mirror.keys()].sort()).toEqual(await liveIds());

    const added = await origin.list({ description: "Arrived after the first sync" });
    const owners = origin.server.repositories.owners;
    await owners.update(
      ids[0]!,
      { description: "Changed after the first sync" },
      { nonce: `0x${"1".repeat(64)}`, action: "update", signer: "0x0" },
      origin.clock.now(),
    );
    await owners.delist(ids[1]!, { nonce: `0x${"2".repeat(64)}`, action: "delist", signer: "0x0" }, origin.clock.now());
    since = await sync(mirror, since);
    expect([...mirror.keys()].sort()).toEqual(await liveIds());
    expect((mirror.get(ids[0]!) as { description: string }).description).toBe("Changed after the first sync");
    expect(mirror.has(added.id)).toBe(true);

    // Time passes the terms' end: the expiry job records it, and the mirror drops them.
    origin.clock.advance(31 * DAY_MS);
    expect(await origin.server.jobs.runNow("listing-terms")).toMatchObject({ ran: true, ok: true });
    await sync(mirror, since);
    expect([...mirror.keys()]).toEqual([]);
    expect(await liveIds()).toEqual([]);
  });

  it("refuses a bad cursor and a bad instant with 400", async () => {
    expect((await origin.json("/sync/listings?cursor=not-a-cursor")).status).toBe(400);
    expect((await origin.json("/sync/listings?updated_since=yesterday")).status).toBe(400);
    expect((await origin.json("/sync/listings?limit=501")).status).toBe(400);
    const beyond = Buffer.from(JSON.stringify({ s: 2 ** 31 })).toString("base64url");
    expect((await origin.json(`/sync/listings?cursor=${beyond}`)).status).toBe(400);
    // Before any event could be: everything, not a database error.
    expect((await origin.json("/sync/listings?updated_since=0000-01-01T00:00:00Z")).status).toBe(200);
  });

  it("signs a snapshot a mirror verifies against the published signer, and refuses tampered ones", async () => {
    // A fresh origin state (the test above expired everything): list two more.
    await origin.list({ description: "In the snapshot, one" });
    await origin.list({ description: "In the snapshot, two" });
    const published = (
      await origin.json<{ catalog: { snapshotSigner: string; snapshot: string } }>("/.well-known/x402")
    ).body.catalog;
    const snapshot = (await origin.json<Snapshot>("/sync/snapshot")).body;
    expect(snapshot.items).toHaveLength(2);
    expect(await snapshotProblem(snapshot, published.snapshotSigner)).toBeNull();
    // The same key on every instance of one database; the mirror's own key is another.
    const mirrorSigner = (await mirrorHost.json<{ catalog: { snapshotSigner: string } }>("/.well-known/x402")).body
      .catalog.snapshotSigner;
    expect(mirrorSigner).not.toBe(published.snapshotSigner);

    const tampered = structuredClone(snapshot);
    tampered.items[0]!.description = "Tampered";
    expect(await snapshotProblem(tampered, published.snapshotSigner)).toMatch(/do not hash/);
    expect(
      await snapshotProblem({ ...snapshot, contentHash: `sha256:${"0".repeat(64)}` }, published.snapshotSigner),
    ).toMatch(/do not hash/);
    expect(
      await snapshotProblem({ ...snapshot, generatedAt: new Date(0).toISOString() }, published.snapshotSigner),
    ).toMatch(/not by the published signer/);
    const other = privateKeyToAccount(generatePrivateKey());
    const forged = {
      ...snapshot,
      signer: other.address,
      signature: await other.signMessage({
        message: `x402-marketplace snapshot ${snapshot.contentHash} ${snapshot.generatedAt}`,
      }),
    };
    expect(await snapshotProblem(forged, published.snapshotSigner)).toMatch(/not by the published signer/);
    expect(await snapshotProblem(snapshot, mirrorSigner)).toMatch(/not by the published signer/);
  });

  it("refuses a flood of sync pages from one address with 429 and Retry-After, before reading them", async () => {
    const limited = await startCatalogServer(kind, { SYNC_RATE_PER_CLIENT: "2" });
    try {
      const statuses: number[] = [];
      let last: { status: number; body: { error?: string }; headers: Headers } | undefined;
      for (let i = 0; i < 3; i++) {
        last = await limited.json<{ error?: string }>("/sync/listings?limit=1");
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect(last?.body.error).toBe("rate_limited");
      expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
      // The limit is the sync area's own: a catalog read from the same address still answers.
      expect((await limited.json("/discovery/resources?limit=1")).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
