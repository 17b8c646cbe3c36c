// Buying from a seller: the seller is paid directly at its own endpoint, and only when its challenge
// matches the catalog item (payTo, asset, network, an amount no higher than listed), stays under
// the buyer's cap, and the buyer confirms.
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { Hex } from "viem";
import { ToolkitError, unreachable } from "./errors.js";
import type { CatalogItem } from "./marketplace-client.js";
import { atomicToUsdc, createPayer, payingFetch, readChallenge, requirementMismatches } from "./payments.js";

/** What the user is asked to agree to. */
export interface Quote {
  purpose: "listing fee" | "purchase";
  resource: string;
  requirement: PaymentRequirements;
  amountUsdc: string;
}

export interface PaymentSteps {
  privateKey: Hex;
  /** Atomic units; anything above is refused before signing. */
  maxAtomic: string;
  confirm: (quote: Quote) => Promise<boolean>;
  onProgress?: (message: string) => void;
}

export interface BuyOptions extends PaymentSteps {
  /** Request body for POST resources (default `{}`). */
  body?: string;
}

export interface BuyResult {
  status: number;
  answer: unknown;
  paid: Quote;
  settlement: SettleResponse | null;
}

/** Refuses (kind "refused") unless the quote is under the cap and the user agrees. */
export async function agreeToPay(quote: Quote, steps: PaymentSteps): Promise<void> {
  const { amount } = quote.requirement;
  if (BigInt(amount) > BigInt(steps.maxAtomic)) {
    throw new ToolkitError(
      "refused",
      `refusing to pay: the ${quote.purpose} is ${quote.amountUsdc} USDC, above your cap of ${atomicToUsdc(steps.maxAtomic)} USDC`,
      "raise the cap (--max) if you mean to pay it",
    );
  }
  if (!(await steps.confirm(quote)))
    throw new ToolkitError("refused", `not paid: the ${quote.purpose} was not confirmed`);
}

export function settlementOf(response: Response): SettleResponse | null {
  const header = response.headers.get("PAYMENT-RESPONSE");
  if (!header) return null;
  try {
    return decodePaymentResponseHeader(header);
  } catch {
    return null;
  }
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function buyFromSeller(item: CatalogItem, options: BuyOptions): Promise<BuyResult> {
  const listed = item.accepts[0];
  if (!listed) throw new ToolkitError("request", `the catalog item ${item.resource} has no payment terms`);
  const init = (): RequestInit =>
    item.method === "POST"
      ? { method: "POST", headers: { "content-type": "application/json" }, body: options.body ?? "{}" }
      : { method: "GET" };

  options.onProgress?.(`asking ${item.method} ${item.resource} for its price`);
  const unpaid = await fetch(item.resource, init()).catch((error: unknown) => {
    throw unreachable(item.resource, error);
  });
  if (unpaid.status !== 402) {
    throw new ToolkitError(
      "request",
      `the seller answered ${unpaid.status} to an unpaid request, not 402`,
      "the listing may be stale; try another one",
    );
  }
  const challenge = await readChallenge(unpaid);
  if (!challenge) throw new ToolkitError("request", "the seller's 402 carries no x402 v2 challenge");
  const requirement = challenge.accepts.find((candidate) => requirementMismatches(candidate, listed).length === 0);
  if (!requirement) {
    const problems = challenge.accepts
      .map((candidate) => requirementMismatches(candidate, listed).join(", "))
      .join("; ");
    throw new ToolkitError(
      "refused",
      `refusing to pay: the seller's challenge does not match the catalog (${problems})`,
      "the seller changed its terms; nothing was paid",
    );
  }
  const quote: Quote = {
    purpose: "purchase",
    resource: item.resource,
    requirement,
    amountUsdc: atomicToUsdc(requirement.amount),
  };
  await agreeToPay(quote, options);

  options.onProgress?.(`paying ${quote.amountUsdc} USDC to ${requirement.payTo}; waiting for the seller to settle`);
  const payer = createPayer(options.privateKey, { expected: requirement });
  const response = await payingFetch(payer)(item.resource, init()).catch((error: unknown) => {
    if (error instanceof TypeError) throw unreachable(item.resource, error);
    throw new ToolkitError("payment", `the payment could not be made: ${(error as Error).message}`);
  });
  const answer = await bodyOf(response);
  const settlement = settlementOf(response);
  if (response.status === 402) {
    const reason = settlement?.errorReason ?? (answer as { error?: string } | null)?.error ?? "refused";
    throw new ToolkitError(
      "payment",
      `the seller refused the payment: ${reason}`,
      "check the payer's balance of the token",
      answer,
    );
  }
  if (!response.ok)
    throw new ToolkitError("request", `the seller answered ${response.status} after payment`, undefined, answer);
  return { status: response.status, answer, paid: quote, settlement };
}
