// A paid listing as a seller agent makes it: the SDK's stock buyer (wrapFetchWithPayment) pays the
// fee challenge of POST /listings for an https seller on loopback. Balances read from the chain.
import { decodePaymentResponseHeader } from "@x402/core/http";
import { createPublicClient, http, type Address, type Hex } from "viem";
import { testUsdcAbi } from "../../src/chain/contracts.js";
import { payingFetch } from "../support/payments.js";
import { challenge, challengeAnswer, requirement, startSeller, type Seller } from "../support/sellers.js";

export const SELLER_PAY_TO = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
export const LISTING_FEE = 100_000n;

/** An https seller on loopback that answers every request with its own x402 challenge in `asset`. */
export function startChallengingSeller(asset: string): Promise<Seller> {
  return startSeller(() => challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "20000", asset })])));
}

export function tokenBalance(rpcUrl: string, asset: Address, owner: Address): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return client.readContract({ address: asset, abi: testUsdcAbi, functionName: "balanceOf", args: [owner] });
}

export interface PaidListing {
  status: number;
  body: Record<string, unknown>;
  /** The decoded PAYMENT-RESPONSE header, if any. */
  receipt: { success: boolean; transaction?: string; payer?: string } | null;
}

/** POST /listings paid by the stock buyer with `buyerKey`, allowed to pay the test token `asset`. */
export async function listWithStockBuyer(
  marketUrl: string,
  options: { buyerKey: Hex; asset: Address; resource: string },
): Promise<PaidListing> {
  const paying = payingFetch({ asset: options.asset }, options.buyerKey);
  const response = await paying(`${marketUrl}/listings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      resource: options.resource,
      method: "POST",
      priceUsdc: "0.02",
      description: "Summarises a public web page; listed by the process-level suite.",
      sellerPayTo: SELLER_PAY_TO,
    }),
  });
  const header = response.headers.get("PAYMENT-RESPONSE");
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    receipt: header ? (decodePaymentResponseHeader(header) as PaidListing["receipt"]) : null,
  };
}

/** The resources /bazaar.json lists. */
export async function bazaarResources(marketUrl: string): Promise<string[]> {
  const response = await fetch(`${marketUrl}/bazaar.json`);
  const body = (await response.json()) as { items: Array<{ resource: string }> };
  return body.items.map((item) => item.resource);
}
