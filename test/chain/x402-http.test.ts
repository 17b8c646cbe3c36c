// The SDK's stock buyer (wrapFetchWithPayment) buys from a node:http server driven by
// x402HTTPResourceServer with the in-process facilitator, settling after the handler's own work.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  x402HTTPResourceServer,
  type HTTPAdapter,
  type HTTPResponseInstructions,
} from "@x402/core/http";
import { x402ResourceServer } from "@x402/core/server";
import { registerExactEvmScheme } from "@x402/evm/exact/server";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createWalletClient, erc20Abi, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { createBuyerClient } from "../../src/payments/buyer.js";
import { createInProcessFacilitator } from "../../src/payments/facilitator.js";
import { listingFeePaymentOption, listingFeeRequirements } from "../../src/payments/listing-fee.js";

let chain: LocalChain;
let server: Server;
let baseUrl: string;
const listed: unknown[] = [];
/** Runs between verification and settlement, where the service writes its pending row. */
let beforeSettle: () => Promise<void> = async () => {};

function adapterFor(req: IncomingMessage, url: URL, body: unknown): HTTPAdapter {
  return {
    getHeader: (name) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : value;
    },
    getMethod: () => req.method ?? "GET",
    getPath: () => url.pathname,
    getUrl: () => url.href,
    getAcceptHeader: () => req.headers.accept ?? "",
    getUserAgent: () => req.headers["user-agent"] ?? "",
    getQueryParams: () => Object.fromEntries(url.searchParams),
    getBody: () => body,
  };
}

function send(res: ServerResponse, { status, headers, body }: HTTPResponseInstructions): void {
  res.writeHead(status, headers);
  res.end(typeof body === "string" ? body : JSON.stringify(body ?? {}));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
}

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 1 });
  const { client } = createInProcessFacilitator({ rpcUrl: chain.rpcUrl, settlerPrivateKey: chain.settler.privateKey });
  const resourceServer = registerExactEvmScheme(new x402ResourceServer(client), { networks: ["eip155:8453"] });
  const http402 = new x402HTTPResourceServer(resourceServer, {
    "POST /listings": {
      accepts: listingFeePaymentOption({ asset: chain.asset, payTo: chain.marketplacePayTo }),
      description: "List a paid endpoint",
      mimeType: "application/json",
    },
  });
  await http402.initialize();

  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", baseUrl);
    const body = await readJson(req);
    const result = await http402.processHTTPRequest({ adapter: adapterFor(req, url, body), path: url.pathname, method: req.method ?? "GET" });
    if (result.type === "no-payment-required") return send(res, { status: 200, headers: {}, body: { free: true } });
    if (result.type === "payment-error") return send(res, result.response);
    // Verified, not yet settled: the service writes its pending row here, then settles.
    listed.push(body);
    await beforeSettle();
    const settlement = await http402.processSettlement(result.paymentPayload, result.paymentRequirements, result.declaredExtensions);
    if (!settlement.success) return send(res, settlement.response);
    send(res, {
      status: 200,
      headers: { "Content-Type": "application/json", ...settlement.headers },
      body: { listed: true, transaction: settlement.transaction },
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await chain?.stop();
});

const listing = { name: "weather", resource: "https://seller.example/weather" };
const post = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(listing) };

describe("x402 over HTTP with the SDK's buyer", () => {
  it("answers 402 with PAYMENT-REQUIRED for the listing fee", async () => {
    const res = await fetch(`${baseUrl}/listings`, post);
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!);
    expect(required).toMatchObject({
      x402Version: 2,
      error: "Payment required",
      resource: { url: `${baseUrl}/listings`, description: "List a paid endpoint", mimeType: "application/json" },
    });
    expect(required.accepts).toEqual([listingFeeRequirements({ asset: chain.asset, payTo: chain.marketplacePayTo })]);
    expect((await fetch(`${baseUrl}/free`)).status).toBe(200);
  });

  it("is paid by wrapFetchWithPayment: 200, PAYMENT-RESPONSE with the tx hash, exactly the price moves", async () => {
    const buyer = chain.buyers[0]!;
    const pay = wrapFetchWithPayment(fetch, createBuyerClient(buyer.privateKey, { allowAssets: [{ asset: chain.asset }] }));
    const buyerBefore = await chain.balanceOf(buyer.address);
    const payToBefore = await chain.balanceOf(chain.marketplacePayTo);

    const res = await pay(`${baseUrl}/listings`, post);
    expect(res.status).toBe(200);
    const receipt = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
    expect(receipt).toEqual({
      success: true,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      network: "eip155:8453",
      payer: buyer.address,
    });
    expect(await res.json()).toEqual({ listed: true, transaction: receipt.transaction });
    expect(listed).toEqual([listing]);
    expect(await chain.balanceOf(buyer.address)).toBe(buyerBefore - 100_000n);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(payToBefore + 100_000n);
  });

  it("answers 402 with the verify reason when the payment cannot be good", async () => {
    const poor = generatePrivateKey();
    await chain.mintUsdc(privateKeyToAccount(poor).address, 1n);
    const pay = wrapFetchWithPayment(fetch, createBuyerClient(poor, { allowAssets: [{ asset: chain.asset }] }));
    const res = await pay(`${baseUrl}/listings`, post);
    expect(res.status).toBe(402);
    expect(res.headers.get("PAYMENT-RESPONSE")).toBeNull();
    expect(decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!).error).toBe(
      "invalid_exact_evm_insufficient_balance",
    );
    expect(listed).toHaveLength(1);
  });

  it("answers 402 with a failed PAYMENT-RESPONSE when settlement fails after verification", async () => {
    const buyer = chain.buyers[0]!;
    const pay = wrapFetchWithPayment(fetch, createBuyerClient(buyer.privateKey, { allowAssets: [{ asset: chain.asset }] }));
    const wallet = createWalletClient({ account: privateKeyToAccount(buyer.privateKey), chain: chain.chain, transport: http(chain.rpcUrl) });
    beforeSettle = async () => {
      const everything = await chain.balanceOf(buyer.address);
      const hash = await wallet.writeContract({ address: chain.asset, abi: erc20Abi, functionName: "transfer", args: [chain.settler.address, everything] });
      await chain.publicClient.waitForTransactionReceipt({ hash });
    };
    try {
      const payToBefore = await chain.balanceOf(chain.marketplacePayTo);
      const res = await pay(`${baseUrl}/listings`, post);
      expect(res.status).toBe(402);
      expect(decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!)).toMatchObject({
        success: false,
        errorReason: "invalid_exact_evm_insufficient_balance",
        transaction: "",
        network: "eip155:8453",
        payer: buyer.address,
      });
      expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(payToBefore);
    } finally {
      beforeSettle = async () => {};
    }
  });
});
