// Owner operations without a chain (they move no money): the input schema as signed (its hash) and
// removed, the sign document's refusals, and the refresh's per-client limit. On both databases.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { updateListing } from "../../src/client/index.js";
import { canonicalJson, inputSchemaHash } from "../../src/listing/owner-typed-data.js";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { challenge, challengeAnswer, requirement, startSeller, type Seller } from "../support/sellers.js";

const ownerKey = generatePrivateKey();
const owner = privateKeyToAccount(ownerKey).address;

describe("the input schema's hash", () => {
  it("does not depend on key order, and tells null (remove) from unchanged", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}',
    );
    expect(inputSchemaHash({ type: "object", required: ["q"] })).toBe(
      inputSchemaHash({ required: ["q"], type: "object" }),
    );
    expect(inputSchemaHash(undefined)).toBe(`0x${"0".repeat(64)}`);
    expect(inputSchemaHash(null)).not.toBe(inputSchemaHash(undefined));
  });
});

describe.each(databaseKinds)("owner rules on $kind", (kind) => {
  let market: CatalogServer;
  let seller: Seller;
  let id: string;

  beforeAll(async () => {
    market = await startCatalogServer(kind, {
      ALLOW_LOOPBACK_SELLERS: "true",
      PROBE_RATE_PER_CLIENT: "2",
      PROBE_RATE_PER_HOST: "1000",
    });
    const asset = market.server.contexts.listings.market.asset;
    seller = await startSeller(() =>
      challengeAnswer(challenge([requirement({ payTo: owner, amount: "30000", asset })])),
    );
    // Listed directly (no fee): the clock of the catalog server is in 2030, the signatures' deadlines follow it.
    id = (await market.list({ resource: `${seller.url}/api/schema`, sellerPayTo: owner, priceUsdc: "0.03" })).id;
  });

  afterAll(async () => {
    await market?.close();
    await seller?.close();
  });

  const stored = () =>
    market.server.contexts.listings.store.transactions.prisma.listing.findUniqueOrThrow({ where: { id } });

  it("sets the input schema the owner signed, and removes it with null", async () => {
    const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
    const options = { baseUrl: market.server.url, privateKey: ownerKey, listingId: id };
    const set = await updateListing(options, { inputSchema: schema });
    expect(set).toMatchObject({ changed: ["inputSchema"], ownerVerified: true });
    expect((await stored()).inputSchema).toEqual(schema);
    await updateListing(options, { inputSchema: null });
    expect((await stored()).inputSchema).toBeNull();
  });

  it("refuses a sign document it cannot honour, naming the field", async () => {
    const notJson = await market.json<{ error: string; fields: { field: string }[] }>(
      `/listings/${id}/sign?action=update&inputSchema=%5B1%5D`,
    );
    expect(notJson.status).toBe(400);
    expect(notJson.body.fields.map((field) => field.field)).toEqual(["inputSchema"]);
    const nothing = await market.json<{ error: string }>(`/listings/${id}/sign?action=update`);
    expect([nothing.status, nothing.body.error]).toEqual([400, "no_changes"]);
    const zero = await market.json<{ error: string; fields: { field: string }[] }>(
      `/listings/${id}/sign?action=update&priceUsdc=0`,
    );
    expect([zero.status, zero.body.error, zero.body.fields[0]!.field]).toEqual([400, "invalid_update", "priceUsdc"]);
    const action = await market.json<{ fields: { field: string }[] }>(`/listings/${id}/sign?action=transfer`);
    expect(action.status).toBe(400);
    expect(action.body.fields[0]!.field).toBe("action");
    expect((await market.json(`/listings/00000000-0000-4000-8000-000000000000/sign?action=claim`)).status).toBe(404);
  });

  it("limits refreshes per client: 429 with Retry-After once over the probe limit, nothing probed", async () => {
    const refresh = () => market.server.fetch(`/listings/${id}/refresh`, { method: "POST" });
    let answer = await refresh();
    for (let i = 0; i < 3 && answer.status === 200; i++) answer = await refresh();
    expect(answer.status).toBe(429);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await answer.json()).toMatchObject({ error: "rate_limited" });
    const probes = seller.requests.length;
    expect((await refresh()).status).toBe(429);
    expect(seller.requests.length).toBe(probes);
  });
});
