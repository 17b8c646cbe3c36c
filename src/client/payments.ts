// Payments for the toolkit: amounts, the x402 challenge of a 402, and a payer (the SDK's client)
// that pays only requirements matching what the user agreed to.
import type { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { Network, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { wrapFetchWithPayment } from "@x402/fetch";
import { formatUnits, type Hex } from "viem";
import { createBuyerClient } from "../payments/buyer.js";

const USDC_DECIMALS = 6;

/** "0.05" -> "50000"; null when it is not a decimal with at most 6 decimals. */
export function usdcToAtomic(usdc: string): string | null {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(usdc.trim());
  if (!match) return null;
  return BigInt(`${match[1]}${(match[2] ?? "").padEnd(USDC_DECIMALS, "0")}`).toString();
}

/** "100000" -> "0.10" (at least two decimals, as prices are usually written). */
export function atomicToUsdc(atomic: string | bigint): string {
  const [whole, fraction = ""] = formatUnits(BigInt(atomic), USDC_DECIMALS).split(".");
  return `${whole}.${fraction.padEnd(2, "0")}`;
}

/** The terms a payment must keep to: amount is an upper bound. */
export interface ExpectedPayment {
  network: string;
  asset: string;
  payTo: string;
  amount: string;
}

/** Every way `requirement` departs from `expected` (empty: it may be paid). */
export function requirementMismatches(requirement: PaymentRequirements, expected: ExpectedPayment): string[] {
  const problems: string[] = [];
  if (requirement.scheme !== "exact") problems.push(`scheme ${requirement.scheme} is not exact`);
  if (requirement.network !== expected.network) problems.push(`network ${requirement.network} != ${expected.network}`);
  if (requirement.asset.toLowerCase() !== expected.asset.toLowerCase())
    problems.push(`asset ${requirement.asset} != ${expected.asset}`);
  if (requirement.payTo.toLowerCase() !== expected.payTo.toLowerCase())
    problems.push(`payTo ${requirement.payTo} != ${expected.payTo}`);
  if (!/^\d+$/.test(requirement.amount) || BigInt(requirement.amount) > BigInt(expected.amount)) {
    problems.push(`amount ${requirement.amount} above ${expected.amount}`);
  }
  return problems;
}

/** The x402 v2 challenge of a 402: the PAYMENT-REQUIRED header, else a v2 JSON body. */
export async function readChallenge(response: Response): Promise<PaymentRequired | null> {
  const header = response.headers.get("PAYMENT-REQUIRED");
  if (header) {
    try {
      return decodePaymentRequiredHeader(header);
    } catch {
      return null;
    }
  }
  try {
    const body = (await response.clone().json()) as Partial<PaymentRequired>;
    return body.x402Version === 2 && Array.isArray(body.accepts) && body.accepts.length > 0
      ? (body as PaymentRequired)
      : null;
  } catch {
    return null;
  }
}

export interface PayerOptions {
  /** Only requirements matching these terms are paid, and never more than `amount`. */
  expected: ExpectedPayment;
}

/** The SDK's client paying with `privateKey`, restricted to the expected terms. */
export function createPayer(privateKey: Hex, { expected }: PayerOptions): x402Client {
  const client = createBuyerClient(privateKey, {
    allowAssets: [
      { asset: expected.asset, network: expected.network as Network, maxAmountPerPayment: expected.amount },
    ],
  });
  return client.registerPolicy((_version, requirements) =>
    requirements.filter((requirement) => requirementMismatches(requirement, expected).length === 0),
  );
}

/** fetch that answers a 402 by paying through the SDK (`wrapFetchWithPayment`). */
export function payingFetch(
  payer: x402Client,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return wrapFetchWithPayment(fetch, payer);
}
