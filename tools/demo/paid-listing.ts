/**
 * `npm run demo:list`: a real paid listing against a running `npm start` (the embedded local chain).
 * It starts a tiny x402 seller on https://127.0.0.1 (self-signed, tools/demo/tls), dry-runs the
 * listing, pays the 0.10 fee with the SDK's stock buyer from a funded key in .dev/chain.json, and
 * buys the /kr-fortune demo endpoint. MARKETPLACE_URL (default http://localhost:8402) and
 * DEV_CHAIN_FILE (default .dev/chain.json) point it elsewhere.
 */
import { readFileSync } from "node:fs";
import { decodePaymentResponseHeader } from "@x402/core/http";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, formatUnits, http, type Address } from "viem";
import type { ChainFile } from "../../src/chain/local-chain.js";
import { testUsdcAbi } from "../../src/chain/contracts.js";
import { chainForRpc } from "../../src/chain/viem-chain.js";
import { createBuyerClient } from "../../src/payments/buyer.js";
import { startDemoSeller } from "./seller.js";

const marketplace = (process.env.MARKETPLACE_URL ?? "http://localhost:8402").replace(/\/+$/, "");
const chainFile = process.env.DEV_CHAIN_FILE ?? ".dev/chain.json";
const chain = JSON.parse(readFileSync(chainFile, "utf8")) as ChainFile;
const [payer, seller] = chain.buyers as [ChainFile["buyers"][number], ChainFile["buyers"][number]];
const PRICE = { usdc: "0.02", atomic: "20000" };

const reader = createPublicClient({ chain: chainForRpc(chain.rpcUrl), transport: http(chain.rpcUrl) });
const balanceOf = async (address: Address) =>
  formatUnits(
    await reader.readContract({ address: chain.asset, abi: testUsdcAbi, functionName: "balanceOf", args: [address] }),
    6,
  );
const show = (title: string, value: unknown) =>
  console.log(`\n== ${title}\n${typeof value === "string" ? value : JSON.stringify(value, null, 2)}`);

// 1. The seller: an x402 endpoint that asks 0.02 paid to its own wallet (it never needs to settle here).
const sellerServer = await startDemoSeller({
  asset: chain.asset,
  payTo: seller.address,
  priceAtomic: PRICE.atomic,
  description: "Demo: a haiku about agents",
});
const resource = `${sellerServer.url}/haiku`;

try {
  const listing = {
    resource,
    method: "POST",
    priceUsdc: PRICE.usdc,
    description: "Writes a haiku about autonomous agents.",
    sellerPayTo: seller.address,
    network: "eip155:8453",
  };
  show("seller endpoint", resource);
  show(
    "the fee (GET /listings/challenge)",
    (await (await fetch(`${marketplace}/listings/challenge`)).json()) as unknown,
  );

  // 2. The free dry run.
  const dryRun = await fetch(`${marketplace}/listings/validate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(listing),
  });
  show(`dry run (POST /listings/validate): ${dryRun.status}`, await dryRun.json());

  // 3. The paid listing, with the SDK's stock buyer.
  const pay = wrapFetchWithPayment(
    fetch,
    createBuyerClient(payer.privateKey, { allowAssets: [{ asset: chain.asset }] }),
  );
  const before = await balanceOf(chain.marketplacePayTo);
  const listed = await pay(`${marketplace}/listings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(listing),
  });
  show(`paid listing (POST /listings): ${listed.status}`, await listed.json());
  const receipt = listed.headers.get("PAYMENT-RESPONSE");
  if (receipt) show("PAYMENT-RESPONSE", decodePaymentResponseHeader(receipt));
  show("marketplace wallet", `${before} -> ${await balanceOf(chain.marketplacePayTo)} test USDC`);

  // 4. A buyer buys a first-party demo endpoint.
  const bought = await pay(`${marketplace}/kr-fortune`);
  show(`bought GET /kr-fortune: ${bought.status}`, await bought.json());
} finally {
  await sellerServer.close();
}
