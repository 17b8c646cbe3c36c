// A listing's owner (its sellerPayTo) at work, end to end on the local chain: the fee paid by the
// owner makes the listing owner-verified; the owner updates (a price change only once the seller's
// own 402 shows it) and delists it with EIP-712 signatures. A stranger's signature, a replayed nonce,
// an expired deadline, another chain id and a tampered field are all refused with nothing changed;
// a listing paid by someone else becomes verified by the owner's signed claim.
import { randomBytes } from "node:crypto";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claimListing,
  delistListing,
  refreshListing,
  signingDocumentFor,
  signOwnerTypedData,
  updateListing,
  createMarketplaceClient,
} from "../../src/client/index.js";
import { ownerTypedData, type ListingChanges, type OwnerAction } from "../../src/listing/owner-typed-data.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";
import { PAID_FLOW_ENV } from "../support/fee-market.js";
import { useMarketServer, usePaidMarket } from "../support/paid-market.js";
import { payingFetch } from "../support/payments.js";
import { challenge, challengeAnswer, requirement } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** What the seller's 402 asks, in atomic units: tests raise it to show a new price. */
let sellerAmount = "10000";

const market = usePaidMarket({
  buyers: 3,
  answer: () =>
    challengeAnswer(
      challenge([
        requirement({ payTo: market.chain.buyers[0]!.address, amount: sellerAmount, asset: market.chain.asset }),
      ]),
    ),
});

interface ListingStatusAnswer {
  status: { state: string; reasons: Array<{ code: string }> };
  history: Array<{ type: string; data?: Record<string, unknown>; status: { state: string } }>;
}

describe.each(testDatabaseKinds())("owner operations on $kind", (databaseKind) => {
  const owner = () => market.chain.buyers[0]!;
  const stranger = () => market.chain.buyers[1]!;

  const site = useMarketServer(market, databaseKind, PAID_FLOW_ENV);

  const body = (path: string, overrides: Record<string, unknown> = {}) => ({
    resource: `${market.seller.url}${path}`,
    method: "POST",
    priceUsdc: "0.01",
    description: "Summarises a text for an agent",
    sellerPayTo: owner().address,
    ...overrides,
  });

  /** Pays the fee with `payer`'s key; returns the listing id. */
  async function paidListing(payer: Hex, path: string): Promise<string> {
    const response = await payingFetch(market.chain, payer)(`${site.server.url}/listings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body(path)),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  }

  const document = async (id: string) => {
    const response = await site.server.fetch(`/listings/${id}`);
    return {
      status: response.status,
      body: (await response.json()) as {
        item: { description: string; method: string; accepts: { amount: string }[]; metadata: Record<string, unknown> };
      },
    };
  };

  /** A signed request body built by hand: any key, any deadline, any chain id, fields sent as given. */
  async function handSigned(
    id: string,
    action: OwnerAction,
    key: Hex,
    options: { changes?: ListingChanges; deadline?: number; chainId?: number; sent?: ListingChanges } = {},
  ) {
    const nonce = toHex(randomBytes(32));
    const deadline = options.deadline ?? Math.floor(Date.now() / 1000) + 300;
    const typed = ownerTypedData(
      site.server.contexts.listings.market.name,
      action,
      id,
      { nonce, deadline },
      options.changes,
    );
    const { EIP712Domain: _, ...types } = typed.types;
    const signature = await privateKeyToAccount(key).signTypedData({
      domain: { ...typed.domain, chainId: options.chainId ?? typed.domain.chainId },
      types,
      primaryType: typed.primaryType,
      message: { ...typed.message, deadline: BigInt(deadline) },
    } as never);
    return {
      ...(options.sent ?? options.changes),
      nonce,
      deadline,
      ...(options.chainId !== undefined && { chainId: options.chainId }),
      signature,
    };
  }

  const send = (method: "POST" | "PATCH" | "DELETE", path: string, payload: unknown) =>
    site.server.fetch(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(payload) });

  const catalogIds = async () => {
    const catalog = (await (await site.server.fetch("/bazaar.json")).json()) as {
      items: { metadata: { listingId: string } }[];
    };
    return catalog.items.map((item) => item.metadata.listingId);
  };

  it("the owner lists (fee paid by sellerPayTo: verified), updates and delists; the fee is not refunded", async () => {
    const id = await paidListing(owner().privateKey, "/api/owned");
    expect((await document(id)).body.item.metadata.ownerVerified).toBe(true);
    const baseUrl = site.server.url;

    // The sign document: Base's chain id whatever the local market.chain, a fresh nonce, a 10-minute deadline.
    const signing = await signingDocumentFor(createMarketplaceClient({ baseUrl }), id, "update", {
      description: "Summarises any text, in 3 sentences",
    });
    expect(signing.typedData.domain).toEqual({
      name: site.server.contexts.listings.market.name,
      version: "1",
      chainId: 8453,
    });
    expect(signing.signer).toBe(owner().address);
    expect(Date.parse(signing.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    expect(signing.submit).toMatchObject({
      method: "PATCH",
      url: `${site.server.contexts.listings.config.publicBaseUrl}/listings/${id}`,
    });

    const described = await updateListing(
      { baseUrl, privateKey: owner().privateKey, listingId: id },
      { description: "Summarises any text, in 3 sentences" },
    );
    expect(described).toMatchObject({
      action: "update",
      state: "active",
      changed: ["description"],
      item: { description: "Summarises any text, in 3 sentences" },
    });
    expect((await document(id)).body.item.description).toBe("Summarises any text, in 3 sentences");

    // A new price the seller does not show yet: 422 with the probe's reason, nothing changed.
    await expect(
      updateListing({ baseUrl, privateKey: owner().privateKey, listingId: id }, { priceUsdc: "0.02" }),
    ).rejects.toThrow(/422/);
    expect((await document(id)).body.item.accepts[0]!.amount).toBe("10000");
    sellerAmount = "20000";
    try {
      const probesBefore = ((await (await site.server.fetch(`/listings/${id}`)).json()) as { lastProbes: unknown[] })
        .lastProbes.length;
      const priced = await updateListing(
        { baseUrl, privateKey: owner().privateKey, listingId: id },
        { priceUsdc: "0.02" },
      );
      expect(priced.item!.accepts[0]!.amount).toBe("20000");
      // The probe that showed the new price is a health sample of the new terms.
      const after = (await (await site.server.fetch(`/listings/${id}`)).json()) as {
        lastProbes: unknown[];
        item: { metadata: { health: { status: string } } };
      };
      expect(after.lastProbes.length).toBe(probesBefore + 1);
      expect(after.item.metadata.health.status).toBe("healthy");
      expect((await document(id)).body.item.metadata.priceUsdc).toBe("0.02");
    } finally {
      sellerAmount = "10000";
    }

    const marketBalance = await market.chain.balanceOf(market.chain.marketplacePayTo);
    const delisted = await delistListing({ baseUrl, privateKey: owner().privateKey, listingId: id });
    expect(delisted).toMatchObject({ action: "delist", state: "delisted" });
    expect(delisted.item).toBeUndefined();
    expect(delisted.message).toMatch(/not refunded/);
    expect(await market.chain.balanceOf(market.chain.marketplacePayTo)).toBe(marketBalance);
    // Hidden everywhere at once, counted as removed.
    expect((await document(id)).status).toBe(404);
    expect(await catalogIds()).not.toContain(id);
    const status = (await (await site.server.fetch("/status.json")).json()) as { sellerListingCountDelisted?: number };
    expect(status.sellerListingCountDelisted).toBe(1);
    // Why it is gone, and what happened to it, newest first (the change log of issue 27).
    const why = (await (await site.server.fetch(`/listings/${id}/status`)).json()) as ListingStatusAnswer;
    expect(why.status).toMatchObject({
      state: "delisted",
      reasons: [expect.objectContaining({ code: "delisted_by_owner" })],
    });
    const owned = why.history.filter((event) =>
      ["listing.created", "listing.updated", "listing.delisted"].includes(event.type),
    );
    expect(owned.map((event) => event.type)).toEqual([
      "listing.delisted",
      "listing.updated",
      "listing.updated",
      "listing.created",
    ]);
    expect(owned[1]!.data).toMatchObject({ by: "owner", priceUsdc: { from: "0.01", to: "0.02" } });
    expect(owned[2]!.data).toMatchObject({ by: "owner", description: { to: "Summarises any text, in 3 sentences" } });
    // Owner operations on a listing that is not live: 404.
    const again = await send("POST", `/listings/${id}/claim`, await handSigned(id, "claim", owner().privateKey));
    expect(again.status).toBe(404);
  });

  it("refuses a stranger, a replay, an expired or too distant deadline, another chain and a tampered field, changing nothing", async () => {
    const id = await paidListing(owner().privateKey, "/api/guarded");
    const before = (await document(id)).body.item;
    const history = async () =>
      ((await (await site.server.fetch(`/listings/${id}/status`)).json()) as ListingStatusAnswer).history;
    const historyBefore = await history();
    const changes = { description: "A description the owner signed" };
    const refusals: Array<[string, () => Promise<Response>, number, string]> = [
      [
        "stranger",
        async () =>
          send("PATCH", `/listings/${id}`, await handSigned(id, "update", stranger().privateKey, { changes })),
        403,
        "not_owner",
      ],
      [
        "stranger's delist",
        async () => send("DELETE", `/listings/${id}`, await handSigned(id, "delist", stranger().privateKey)),
        403,
        "not_owner",
      ],
      [
        "expired",
        async () =>
          send(
            "PATCH",
            `/listings/${id}`,
            await handSigned(id, "update", owner().privateKey, {
              changes,
              deadline: Math.floor(Date.now() / 1000) - 5,
            }),
          ),
        401,
        "deadline_passed",
      ],
      [
        "too far",
        async () =>
          send(
            "PATCH",
            `/listings/${id}`,
            await handSigned(id, "update", owner().privateKey, {
              changes,
              deadline: Math.floor(Date.now() / 1000) + 3600,
            }),
          ),
        403,
        "deadline_too_far",
      ],
      [
        "other chain",
        async () =>
          send("PATCH", `/listings/${id}`, await handSigned(id, "update", owner().privateKey, { changes, chainId: 1 })),
        403,
        "wrong_chain",
      ],
      [
        "tampered",
        async () =>
          send(
            "PATCH",
            `/listings/${id}`,
            await handSigned(id, "update", owner().privateKey, {
              changes,
              sent: { description: "A description nobody signed" },
            }),
          ),
        403,
        "not_owner",
      ],
    ];
    for (const [name, act, status, error] of refusals) {
      const response = await act();
      expect({ name, status: response.status, error: ((await response.json()) as { error: string }).error }).toEqual({
        name,
        status,
        error,
      });
    }
    expect((await document(id)).body.item).toEqual(before);
    expect(await history()).toEqual(historyBefore);

    // A signature over another chain id, sent without saying so: it recovers someone else.
    const silentChain = await handSigned(id, "delist", owner().privateKey, { chainId: 1 });
    const { chainId: _, ...withoutChainId } = silentChain;
    expect((await send("DELETE", `/listings/${id}`, withoutChainId)).status).toBe(403);

    // Replay: the first use changes the listing, the same signed request again gets 409 and changes nothing more.
    const signed = await handSigned(id, "update", owner().privateKey, { changes });
    expect((await send("PATCH", `/listings/${id}`, signed)).status).toBe(200);
    const afterFirst = (await document(id)).body.item;
    const replay = await send("PATCH", `/listings/${id}`, signed);
    expect(replay.status).toBe(409);
    expect(((await replay.json()) as { error: string }).error).toBe("nonce_used");
    expect((await document(id)).body.item).toEqual(afterFirst);
    expect(await catalogIds()).toContain(id);
    // One event for the one change the signature made, none for its replay.
    expect((await history()).length).toBe(historyBefore.length + 1);

    // Bad input is named by the contract (400), before any signature is looked at.
    const malformed = await send("PATCH", `/listings/${id}`, { ...signed, priceUsdc: "ten" });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(await malformed.json())).toContain("priceUsdc");
  });

  it("verifies a listing paid by someone else once its owner signs a claim", async () => {
    const id = await paidListing(stranger().privateKey, "/api/paid-by-a-friend");
    expect((await document(id)).body.item.metadata.ownerVerified).toBe(false);
    const verifiedOnly = async () =>
      (
        (await (await site.server.fetch("/bazaar.json?verified=true")).json()) as {
          items: { metadata: { listingId: string } }[];
        }
      ).items.map((item) => item.metadata.listingId);

    // The payer of the fee is not the owner: its claim is refused.
    const byPayer = await send("POST", `/listings/${id}/claim`, await handSigned(id, "claim", stranger().privateKey));
    expect(byPayer.status).toBe(403);
    expect((await document(id)).body.item.metadata.ownerVerified).toBe(false);

    const claimed = await claimListing({ baseUrl: site.server.url, privateKey: owner().privateKey, listingId: id });
    expect(claimed).toMatchObject({ action: "claim", ownerVerified: true, state: "active" });
    expect((await document(id)).body.item.metadata.ownerVerified).toBe(true);
    expect(await verifiedOnly()).toContain(id);
    const why = (await (await site.server.fetch(`/listings/${id}/status`)).json()) as ListingStatusAnswer;
    expect(why.history.filter((event) => event.type === "listing.verified")).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ by: "owner_claim" }),
        status: expect.objectContaining({ state: "live" }),
      }),
    ]);
    expect(why.status.reasons.map((reason) => reason.code)).toContain("owner_verified");
  });

  it("refreshes a listing for anyone: a probe now, with the seller's current metadata", async () => {
    const id = await paidListing(owner().privateKey, "/api/refreshed");
    const probes = market.seller.requests.length;
    const samples = async () =>
      ((await (await site.server.fetch(`/listings/${id}`)).json()) as { lastProbes: unknown[] }).lastProbes.length;
    const samplesBefore = await samples();
    const refreshed = await refreshListing({ baseUrl: site.server.url, listingId: id });
    expect(refreshed).toMatchObject({
      listingId: id,
      ok: true,
      healthRecorded: true,
      item: { metadata: { listingId: id, health: { status: "healthy" } } },
    });
    expect(await samples()).toBe(samplesBefore + 1);
    expect(market.seller.requests.slice(probes)).toEqual(["POST /api/refreshed"]);
    sellerAmount = "30000";
    try {
      const drifted = await refreshListing({ baseUrl: site.server.url, listingId: id });
      // A failing refresh is a health sample too: the live terms no longer match, so the listing is drifted at once.
      expect(drifted).toMatchObject({
        ok: false,
        code: "price_mismatch",
        healthRecorded: true,
        metadataChanged: false,
        item: { metadata: { health: { status: "drifted", failureCode: "price_mismatch" } } },
      });
      expect(await samples()).toBe(samplesBefore + 2);
    } finally {
      sellerAmount = "10000";
    }
    expect(
      (
        await site.server.fetch(`/listings/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}/refresh`, {
          method: "POST",
        })
      ).status,
    ).toBe(404);
  });

  it("answers a resent paid request with the same payment identifier with the stored 200: one listing, one transfer", async () => {
    const { createBuyerClient } = await import("../../src/payments/buyer.js");
    const { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } =
      await import("@x402/extensions/payment-identifier");
    const { encodePaymentSignatureHeader, decodePaymentRequiredHeader } = await import("@x402/core/http");
    const payer = market.chain.buyers[2]!;
    const unpaid = await site.server.fetch("/listings", { method: "POST" });
    const feeChallenge = decodePaymentRequiredHeader(unpaid.headers.get("PAYMENT-REQUIRED")!);
    expect(feeChallenge.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false } });

    const paymentId = generatePaymentId();
    const client = createBuyerClient(payer.privateKey, { allowAssets: [{ asset: market.chain.asset }] });
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      paymentRequired.extensions ??= {};
      appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId);
    });
    const header = encodePaymentSignatureHeader(await client.createPaymentPayload(structuredClone(feeChallenge)));
    const listing = body("/api/idempotent");
    const post = (payload: unknown, signature: string) =>
      site.server.fetch("/listings", {
        method: "POST",
        headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": signature },
        body: JSON.stringify(payload),
      });

    const [payerBefore, marketBefore] = [
      await market.chain.balanceOf(payer.address),
      await market.chain.balanceOf(market.chain.marketplacePayTo),
    ];
    const rowsBefore = (await site.server.contexts.listings.store.counts(new Date())).rawAll;
    const first = await post(listing, header);
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    // The answer was "lost": the client sends the very same request again.
    const resent = await post(listing, header);
    expect(resent.status).toBe(200);
    expect(await resent.json()).toEqual(firstBody);
    expect(decodePaymentResponseHeader(resent.headers.get("PAYMENT-RESPONSE")!)).toEqual(
      decodePaymentResponseHeader(first.headers.get("PAYMENT-RESPONSE")!),
    );
    expect(await market.chain.balanceOf(payer.address)).toBe(payerBefore - 100_000n);
    expect(await market.chain.balanceOf(market.chain.marketplacePayTo)).toBe(marketBefore + 100_000n);
    expect((await site.server.contexts.listings.store.counts(new Date())).rawAll).toBe(rowsBefore + 1);
    const stored = await site.server.contexts.listings.store.transactions.prisma.paymentIdempotency.findUnique({
      where: { id: `createListing:${paymentId}` },
    });
    expect(stored).toMatchObject({ status: 200, response: { status: 200, body: firstBody } });

    // The same identifier with another payload: 409, nothing charged.
    const other = await post({ ...listing, description: "Another listing under the same id" }, header);
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: string }).error).toBe("payment_identifier_conflict");
    expect(await market.chain.balanceOf(payer.address)).toBe(payerBefore - 100_000n);

    // Two sends of one identified request at once: one is answered, the other told to come back; then the stored 200.
    const racedId = generatePaymentId();
    const raced = createBuyerClient(payer.privateKey, { allowAssets: [{ asset: market.chain.asset }] });
    raced.onBeforePaymentCreation(async ({ paymentRequired }) => {
      paymentRequired.extensions ??= {};
      appendPaymentIdentifierToExtensions(paymentRequired.extensions, racedId);
    });
    const racedHeader = encodePaymentSignatureHeader(await raced.createPaymentPayload(structuredClone(feeChallenge)));
    const racedListing = body("/api/idempotent-raced");
    const answers = await Promise.all([post(racedListing, racedHeader), post(racedListing, racedHeader)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const waiting = answers.find((answer) => answer.status === 409)!;
    expect(((await waiting.json()) as { error: string }).error).toBe("payment_in_progress");
    expect(Number(waiting.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await post(racedListing, racedHeader)).status).toBe(200);
    expect(await market.chain.balanceOf(payer.address)).toBe(payerBefore - 200_000n);

    // An identifier that breaks the extension's format: 400 before anything else.
    const badClient = createBuyerClient(payer.privateKey, { allowAssets: [{ asset: market.chain.asset }] });
    badClient.onBeforePaymentCreation(async ({ paymentRequired }) => {
      const declared = paymentRequired.extensions![PAYMENT_IDENTIFIER] as { info: Record<string, unknown> };
      declared.info.id = "short";
    });
    const bad = await post(
      body("/api/idempotent-bad"),
      encodePaymentSignatureHeader(await badClient.createPaymentPayload(structuredClone(feeChallenge))),
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("invalid_payment_identifier");
    expect(await market.chain.balanceOf(payer.address)).toBe(payerBefore - 200_000n);
  });
});

const postgres = testDatabaseKinds().find((kind) => kind.kind === "postgres");

describe.skipIf(!postgres)("a replayed nonce on two instances at once (PostgreSQL)", () => {
  let database: TestDatabase;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    database = await postgres!.create();
    const env = { ...PAID_FLOW_ENV, DATABASE_URL: database.url };
    servers.push(await startTestServer(env, { payments: market.payments }));
    servers.push(await startTestServer(env));
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    await database?.drop();
  });

  it("lets exactly one of two concurrent uses of one signed update through", async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const owner = market.chain.buyers[0]!;
    const paid = await payingFetch(market.chain, owner.privateKey)(`${a.url}/listings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        resource: `${market.seller.url}/api/raced`,
        priceUsdc: "0.01",
        description: "Raced between two instances",
        sellerPayTo: owner.address,
      }),
    });
    expect(paid.status).toBe(200);
    const id = ((await paid.json()) as { id: string }).id;
    const changes = { description: "Changed exactly once" };
    const document = await signingDocumentFor(createMarketplaceClient({ baseUrl: a.url }), id, "update", changes);
    const message = document.typedData.message as { nonce: string; deadline: number };
    const signed = {
      ...changes,
      nonce: message.nonce,
      deadline: message.deadline,
      signature: await signOwnerTypedData(document, owner.privateKey),
    };
    const versionBefore = (await a.contexts.listings.store.catalogStamp(new Date())).version;
    const answers = await Promise.all(
      [a, b].map((server) =>
        server.fetch(`/listings/${id}`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(signed),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const loser = answers.find((answer) => answer.status === 409)!;
    expect(((await loser.json()) as { error: string }).error).toBe("nonce_used");
    expect((await a.contexts.listings.store.catalogStamp(new Date())).version).toBe(versionBefore + 1);
  });
});
