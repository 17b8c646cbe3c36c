// The /kr-* leftover seed paths are real x402-paid endpoints paid to the marketplace wallet: a probe
// of a seed row passes, and a buyer can buy.
import { readFileSync } from "node:fs";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED_INVENTORY } from "../../src/catalog/seed-inventory.js";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { loadConfig } from "../../src/config.js";
import type { Payments } from "../../src/payments/setup.js";
import { SellerProbe } from "../../src/probe/seller-probe.js";
import { normalizePrice } from "../../src/storage/listing/listing-store.js";
import { chainPayments, payingFetch, sdkPaymentHeader } from "../support/payments.js";
import { startTestServer, type TestServer } from "../support/server.js";

let chain: LocalChain;
let payments: Payments;
let server: TestServer;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 1 });
  payments = await chainPayments(chain);
  server = await startTestServer({}, { payments });
});

afterAll(async () => {
  await server?.close();
  await chain?.stop();
});

const call = (path: string, method: string, init: RequestInit = {}) =>
  server.fetch(path, {
    method,
    ...(method === "POST" && { headers: { "content-type": "application/json" }, body: '{"hello":"x402"}' }),
    ...init,
  });

describe("the /kr-* demo endpoints", () => {
  it("are in the contract, each with its seed inventory method", () => {
    const paths = (
      JSON.parse(readFileSync("generated/openapi.json", "utf8")) as { paths: Record<string, Record<string, unknown>> }
    ).paths;
    for (const seed of SEED_INVENTORY)
      expect(Object.keys(paths[seed.path] ?? {}), seed.path).toEqual([seed.method.toLowerCase()]);
  });

  for (const seed of SEED_INVENTORY) {
    it(`${seed.method} ${seed.path} without payment: 402 for ${seed.priceUsdc} to the marketplace wallet`, async () => {
      const response = await call(seed.path, seed.method);
      expect(response.status).toBe(402);
      const challenge = decodePaymentRequiredHeader(response.headers.get("PAYMENT-REQUIRED")!);
      expect(challenge.accepts).toEqual([
        expect.objectContaining({
          scheme: "exact",
          network: "eip155:8453",
          amount: normalizePrice(seed.priceUsdc).priceAtomic,
          asset: chain.asset,
          payTo: chain.marketplacePayTo,
        }),
      ]);
      expect(challenge.resource).toMatchObject({
        url: `${server.contexts.listings.config.publicBaseUrl}${seed.path}`,
        description: seed.description,
      });
    });

    it(`${seed.method} ${seed.path} is bought by the stock buyer, settled before it answers`, async () => {
      const buyer = chain.buyers[0]!;
      const price = BigInt(normalizePrice(seed.priceUsdc).priceAtomic);
      const before = await chain.balanceOf(chain.marketplacePayTo);
      const response = await payingFetch(chain, buyer.privateKey)(`${server.url}${seed.path}`, {
        method: seed.method,
        ...(seed.method === "POST" && { headers: { "content-type": "application/json" }, body: '{"hello":"x402"}' }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        demo: string;
        transaction: string;
        result: { iso: string } & Record<string, unknown>;
      };
      const receipt = decodePaymentResponseHeader(response.headers.get("PAYMENT-RESPONSE")!);
      expect(body).toMatchObject({ demo: seed.path, transaction: receipt.transaction });
      if (seed.path === "/kr-echo") expect(body.result).toEqual({ hello: "x402" });
      if (seed.path === "/kr-time") expect(Date.parse(body.result.iso)).toBeGreaterThan(Date.now() - 60_000);
      if (seed.path === "/kr-fortune") expect(body.result).toEqual(expect.any(String));
      expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before + price);
    });

    it(`a seller probe of the seed row ${seed.path} passes`, async () => {
      const config = loadConfig({ ALLOW_LOOPBACK_SELLERS: "true" });
      const probe = new SellerProbe(config.probe, { network: "eip155:8453", asset: chain.asset });
      const result = await probe.probe(
        {
          resource: `${server.url}${seed.path}`,
          method: seed.method,
          priceAtomic: normalizePrice(seed.priceUsdc).priceAtomic,
          sellerPayTo: chain.marketplacePayTo,
        },
        "test",
      );
      expect(result).toMatchObject({ ok: true });
    });
  }

  it("never spends a payment sent with HEAD: 402 and no transfer, and the payment stays usable", async () => {
    const challenge = decodePaymentRequiredHeader(
      (await call("/kr-time", "GET")).headers.get("PAYMENT-REQUIRED")!,
    ) as PaymentRequired;
    const header = await sdkPaymentHeader(chain, chain.buyers[0]!.privateKey, challenge);
    const before = await chain.balanceOf(chain.marketplacePayTo);
    const head = await call("/kr-time", "HEAD", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(head.status).toBe(402);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before);
    expect((await call("/kr-time", "GET", { headers: { "PAYMENT-SIGNATURE": header } })).status).toBe(200);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before + 1000n);
  });

  it("refuses a demo payment sent twice: one charge", async () => {
    const challenge = decodePaymentRequiredHeader(
      (await call("/kr-time", "GET")).headers.get("PAYMENT-REQUIRED")!,
    ) as PaymentRequired;
    const header = await sdkPaymentHeader(chain, chain.buyers[0]!.privateKey, challenge);
    const before = await chain.balanceOf(chain.marketplacePayTo);
    expect((await call("/kr-time", "GET", { headers: { "PAYMENT-SIGNATURE": header } })).status).toBe(200);
    const replay = await call("/kr-time", "GET", { headers: { "PAYMENT-SIGNATURE": header } });
    expect(replay.status).toBe(402);
    expect(await replay.json()).toMatchObject({ error: "invalid_exact_evm_nonce_already_used" });
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before + 1000n);
  });
});
