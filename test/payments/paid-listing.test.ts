// POST /listings end to end: a real HTTP server, a real anvil chain, the SDK's stock buyer, and an
// https seller on loopback. Money must move exactly once, or not at all.
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { listingFeeCharge } from "../../src/listing/paid-listing.js";
import { testDatabaseKinds } from "../storage/databases.js";
import { SELLER_PRICE, useMarketServer, usePaidMarket } from "../support/paid-market.js";
import { handSignedHeader, payingFetch, paymentKeyOf, sdkPaymentHeader } from "../support/payments.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  type Seller,
  SELLER_PAY_TO,
  summariseListing,
} from "../support/sellers.js";

const SELLER = SELLER_PAY_TO;

const market = usePaidMarket({ buyers: 4 });

describe.each(testDatabaseKinds())("on $kind", (databaseKind) => {
  const site = useMarketServer(market, databaseKind);

  const listing = (overrides: Record<string, unknown> = {}) =>
    summariseListing(market.seller, { method: "POST", ...overrides });

  const post = (body: unknown, payment?: string) =>
    site.server.fetch("/listings", {
      method: "POST",
      headers: { "content-type": "application/json", ...(payment && { "PAYMENT-SIGNATURE": payment }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const marketBalance = () => market.chain.balanceOf(market.chain.marketplacePayTo);
  const storedRows = async () => (await site.server.contexts.listings.store.counts(new Date())).rawAll;

  /** Asserts that nothing was charged or saved and the seller was not probed, around `act`. */
  async function expectNothingHappens(act: () => Promise<void>) {
    const [balance, rows, probes] = [await marketBalance(), await storedRows(), market.seller.requests.length];
    await act();
    expect(await marketBalance()).toBe(balance);
    expect(await storedRows()).toBe(rows);
    expect(market.seller.requests.length).toBe(probes);
  }

  describe("the challenge", () => {
    it("answers an empty body (the unpaid probe) with 402 and PAYMENT-REQUIRED, the same JSON as GET /listings/challenge", async () => {
      const response = await post(undefined);
      expect(response.status).toBe(402);
      const header = decodePaymentRequiredHeader(response.headers.get("PAYMENT-REQUIRED")!);
      expect(header).toEqual(site.feeChallenge);
      expect(header.accepts).toEqual([
        {
          scheme: "exact",
          network: "eip155:8453",
          amount: "100000",
          asset: market.chain.asset,
          payTo: market.chain.marketplacePayTo,
          maxTimeoutSeconds: 300,
          extra: { name: "USD Coin", version: "2" },
        },
      ]);
      expect(header.resource.url).toBe(`${site.server.contexts.listings.config.publicBaseUrl}/listings`);
      const body = await response.json();
      expect(body).toMatchObject({ x402Version: 2, error: "payment_required", accepts: header.accepts });
    });

    it("builds the fee's unpaid challenge once and freezes it: every unpaid request states the same terms, and none can alter them", async () => {
      const { gate } = market.payments;
      const terms = site.server.contexts.listings.market;
      const first = await gate.challenge(listingFeeCharge(terms));
      expect(await gate.challenge(listingFeeCharge(terms))).toBe(first);
      expect(Object.isFrozen(first.accepts[0]!.extra)).toBe(true);
      expect(first).toEqual(site.feeChallenge);
      // A refusal names its own reason: it is built for its reply, not taken from the unpaid one.
      const refused = await gate.challenge(listingFeeCharge(terms), "invalid_payment_payload");
      expect(refused.error).toBe("invalid_payment_payload");
      expect(first.error).toBe("payment_required");
    });

    it("answers a valid body without payment with 402, before probing the seller", async () => {
      await expectNothingHappens(async () => {
        const response = await post(listing());
        expect(response.status).toBe(402);
        expect(response.headers.get("PAYMENT-REQUIRED")).toBeTruthy();
      });
    });

    it("shows the real configuration in the fee card and /facilitator.json", async () => {
      const fee = await (await site.server.fetch("/pricing.json")).json();
      expect(fee).toMatchObject({
        payTo: market.chain.marketplacePayTo,
        asset: market.chain.asset,
        amount: "100000",
        usdc: "0.10",
        network: "eip155:8453",
        maxTimeoutSeconds: 300,
      });
      const facilitator = await (await site.server.fetch("/facilitator.json")).json();
      expect(facilitator).toMatchObject({
        mode: "embedded-local-chain",
        realMoney: false,
        facilitator: "in-process",
        payTo: market.chain.marketplacePayTo,
        settler: market.chain.settler.address,
      });
    });
  });

  describe("a paid listing", () => {
    let paidHeader: string;
    let first: Record<string, unknown>;

    it("is paid by the stock @x402/fetch buyer: 200, PAYMENT-RESPONSE, exactly 100000 to the marketplace", async () => {
      const buyer = market.chain.buyers[0]!;
      const [buyerBefore, marketBefore, probes] = [
        await market.chain.balanceOf(buyer.address),
        await marketBalance(),
        market.seller.requests.length,
      ];
      const response = await payingFetch(market.chain, buyer.privateKey)(`${site.server.url}/listings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(listing()),
      });
      expect(response.status).toBe(200);
      const receipt = decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!);
      expect(receipt).toMatchObject({ success: true, network: "eip155:8453", payer: buyer.address });
      const body = (await response.json()) as { expiresAt: string };
      expect(body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        resource: listing().resource,
        listingFeeUsdc: "0.10",
        expiresAt: expect.any(String),
        catalog: `${site.server.contexts.listings.config.publicBaseUrl}/bazaar.json`,
        renewed: false,
        transaction: receipt.transaction,
      });
      expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(29.9 * 86_400_000);
      expect(await market.chain.balanceOf(buyer.address)).toBe(buyerBefore - 100_000n);
      expect(await marketBalance()).toBe(marketBefore + 100_000n);
      expect(market.seller.requests.slice(probes)).toEqual(["POST /api/summarise"]);
      expect((await site.server.contexts.listings.store.counts(new Date())).foreign).toBe(1);
    });

    it("answers the same payment sent again with the first result, without a second transfer", async () => {
      paidHeader = await sdkPaymentHeader(market.chain, market.chain.buyers[1]!.privateKey, site.feeChallenge);
      const otherResource = listing({ resource: `${market.seller.url}/api/other` });
      const response = await post(otherResource, paidHeader);
      expect(response.status).toBe(200);
      first = (await response.json()) as Record<string, unknown>;
      const balance = await marketBalance();
      const settlerTxs = await market.chain.publicClient.getTransactionCount({ address: market.chain.settler.address });
      for (let i = 0; i < 2; i++) {
        const again = await post(otherResource, paidHeader);
        expect(again.status).toBe(200);
        expect(await again.json()).toEqual(first);
        expect(decodePaymentResponseHeader(again.headers.get("PAYMENT-RESPONSE")!)).toMatchObject({
          success: true,
          transaction: first.transaction,
        });
      }
      expect(await marketBalance()).toBe(balance);
      expect(await market.chain.publicClient.getTransactionCount({ address: market.chain.settler.address })).toBe(
        settlerTxs,
      );
    });

    it("refuses the same payment for another listing with 409", async () => {
      const response = await post(listing({ resource: `${market.seller.url}/api/third` }), paidHeader);
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({ error: "payment_already_used" });
    });

    it("gives concurrent duplicates of one payment one listing and one transfer", async () => {
      const header = await sdkPaymentHeader(market.chain, market.chain.buyers[2]!.privateKey, site.feeChallenge);
      const body = listing({ resource: `${market.seller.url}/api/concurrent` });
      const [balance, rows] = [await marketBalance(), await storedRows()];
      const responses = await Promise.all(Array.from({ length: 5 }, () => post(body, header)));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
      const ids = new Set(
        await Promise.all(
          responses.filter((r) => r.status === 200).map(async (r) => ((await r.json()) as { id: string }).id),
        ),
      );
      expect(ids.size).toBe(1);
      for (const response of responses.filter((r) => r.status === 409))
        expect(await response.json()).toMatchObject({ error: "payment_in_progress" });
      expect(await marketBalance()).toBe(balance + 100_000n);
      expect(await storedRows()).toBe(rows + 1);
    });

    it("renews the seller's live listing of the same resource instead of adding one", async () => {
      const rows = await storedRows();
      const renewal = await post(
        listing({ resource: `${market.seller.url}/api/other` }),
        await sdkPaymentHeader(market.chain, market.chain.buyers[1]!.privateKey, site.feeChallenge),
      );
      expect(renewal.status).toBe(200);
      const body = (await renewal.json()) as { expiresAt: string };
      expect(body).toMatchObject({ id: first.id, renewed: true });
      expect(Date.parse(body.expiresAt)).toBeGreaterThan(Date.parse(first.expiresAt as string) + 29 * 86_400_000);
      expect(await storedRows()).toBe(rows);
    });
  });

  describe("a payment that cannot be good gets 402 with a precise reason; nothing is charged or saved", () => {
    const fee = () => site.feeChallenge.accepts[0]!;
    const cases: Array<[string, () => Promise<string>, string]> = [
      [
        "insufficient balance",
        async () => {
          const poor = generatePrivateKey();
          await market.chain.mintUsdc(privateKeyToAccount(poor).address, 1n);
          return sdkPaymentHeader(market.chain, poor, site.feeChallenge);
        },
        "invalid_exact_evm_insufficient_balance",
      ],
      [
        "wrong amount (signed value)",
        () => handSignedHeader(market.chain.buyers[3]!.privateKey, fee(), { value: "50000" }),
        "invalid_exact_evm_payload_authorization_value_mismatch",
      ],
      [
        "wrong amount (accepted terms)",
        () =>
          sdkPaymentHeader(market.chain, market.chain.buyers[3]!.privateKey, {
            ...site.feeChallenge,
            accepts: [{ ...fee(), amount: "50000" }],
          }),
        "payment_amount_mismatch",
      ],
      [
        "wrong payTo",
        () => handSignedHeader(market.chain.buyers[3]!.privateKey, fee(), { to: SELLER }),
        "invalid_exact_evm_recipient_mismatch",
      ],
      [
        "wrong network",
        () =>
          sdkPaymentHeader(market.chain, market.chain.buyers[3]!.privateKey, {
            ...site.feeChallenge,
            accepts: [{ ...fee(), network: "eip155:84532" }],
          }),
        "payment_network_mismatch",
      ],
      [
        "expired authorization",
        () =>
          handSignedHeader(market.chain.buyers[3]!.privateKey, fee(), {
            validBefore: String(Math.floor(Date.now() / 1000) - 60),
          }),
        "invalid_exact_evm_payload_authorization_valid_before",
      ],
      [
        "tampered signature",
        () =>
          handSignedHeader(market.chain.buyers[3]!.privateKey, fee(), {}, (payload) => {
            const signature = (payload.payload as { signature: string }).signature;
            return {
              ...payload,
              payload: {
                ...payload.payload,
                signature: `${signature.slice(0, 10)}${signature[10] === "0" ? "1" : "0"}${signature.slice(11)}`,
              },
            };
          }),
        "invalid_exact_evm_signature",
      ],
      [
        "authorization valid for too long",
        () =>
          handSignedHeader(market.chain.buyers[3]!.privateKey, fee(), {
            validBefore: String(Math.floor(Date.now() / 1000) + 3600),
          }),
        "authorization_validity_too_long",
      ],
      ["not a payment at all", async () => "not base64 json!", "invalid_payment_signature_header"],
    ];
    for (const [name, sign, reason] of cases) {
      it(`${name} -> ${reason}`, async () => {
        const header = await sign();
        await expectNothingHappens(async () => {
          const response = await post(listing({ resource: `${market.seller.url}/api/refused` }), header);
          expect(response.status).toBe(402);
          expect(decodePaymentRequiredHeader(response.headers.get("PAYMENT-REQUIRED")!).error).toBe(reason);
          const body = await response.json();
          expect(body).toMatchObject({ error: reason, x402Version: 2, message: expect.any(String) });
        });
        if (reason !== "invalid_payment_signature_header")
          expect(await site.server.contexts.listings.store.findPayment(paymentKeyOf(header))).toBeNull();
      });
    }
  });

  describe("a request that would fail is refused before any money moves", () => {
    const cases: Array<[string, () => Record<string, unknown>, number, string, string]> = [
      ["price zero", () => listing({ priceUsdc: "0" }), 400, "invalid_listing", "/priceUsdc"],
      [
        "bad checksum",
        () => listing({ sellerPayTo: "0x2546bcd3c84621e976D8185a91A922aE77ECEc30" }),
        400,
        "invalid_listing",
        "/sellerPayTo",
      ],
      ["unknown field", () => ({ ...listing(), price: "1" }), 400, "invalid_request", "/price"],
      [
        "http resource",
        () => listing({ resource: "http://seller.example.com/x" }),
        400,
        "invalid_request",
        "/resource",
      ],
    ];
    for (const [name, body, status, error, field] of cases) {
      it(`${name}: ${status} ${error} naming ${field}, even with a valid payment`, async () => {
        const header = await sdkPaymentHeader(market.chain, market.chain.buyers[3]!.privateKey, site.feeChallenge);
        await expectNothingHappens(async () => {
          const response = await post(body(), header);
          expect(response.status).toBe(status);
          const answer = await response.json();
          expect(answer).toMatchObject({
            error,
            fields: expect.arrayContaining([expect.objectContaining({ in: "body", field })]),
          });
        });
      });
    }

    it("a payment without a body: 400 listing_body_required", async () => {
      const header = await sdkPaymentHeader(market.chain, market.chain.buyers[3]!.privateKey, site.feeChallenge);
      await expectNothingHappens(async () => {
        const response = await post(undefined, header);
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: "listing_body_required" });
      });
    });

    const sellerFailures: Array<[string, () => ReturnType<Seller["answer"]>, Record<string, unknown>, string]> = [
      ["the seller answers 200", () => ({ status: 200, body: "{}" }), {}, "not_402"],
      [
        "the seller pays someone else",
        () =>
          challengeAnswer(
            challenge([
              requirement({ payTo: market.chain.settler.address, amount: SELLER_PRICE, asset: market.chain.asset }),
            ]),
          ),
        {},
        "pay_to_mismatch",
      ],
      [
        "the price differs",
        () =>
          challengeAnswer(challenge([requirement({ payTo: SELLER, amount: SELLER_PRICE, asset: market.chain.asset })])),
        { priceUsdc: "0.05" },
        "price_mismatch",
      ],
    ];
    for (const [name, answer, overrides, code] of sellerFailures) {
      it(`${name}: 422 with the report, and the verified payment is never settled`, async () => {
        const header = await sdkPaymentHeader(market.chain, market.chain.buyers[3]!.privateKey, site.feeChallenge);
        const previous = market.seller.answer;
        market.seller.answer = answer;
        try {
          const [balance, rows] = [await marketBalance(), await storedRows()];
          const response = await post(listing({ resource: `${market.seller.url}/api/failing`, ...overrides }), header);
          expect(response.status).toBe(422);
          const report = (await response.json()) as { checks: unknown[] };
          expect(report).toMatchObject({ ok: false, charged: false, saved: false });
          expect(report.checks.at(-1)).toMatchObject({ name: "seller-probe", ok: false, code });
          expect(await marketBalance()).toBe(balance);
          expect(await storedRows()).toBe(rows);
        } finally {
          market.seller.answer = previous;
        }
      });
    }
  });
});
