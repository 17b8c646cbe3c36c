// The 0.10 USDC listing fee as x402 `exact` payment terms.
import type { PaymentOption } from "@x402/core/http";
import type { AssetAmount, Network, PaymentRequirements } from "@x402/core/types";

export const LISTING_FEE_NETWORK: Network = "eip155:8453";
/** 0.10 USDC in atomic units (6 decimals). */
export const LISTING_FEE_AMOUNT = "100000";
export const LISTING_FEE_TIMEOUT_SECONDS = 300;
/** USDC on Base, what `price: "$0.10"` resolves to on eip155:8453. */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
/** EIP-712 domain of USDC (and of TestUsdc); the buyer signs against it. */
export const USDC_EIP712_DOMAIN = { name: "USD Coin", version: "2" } as const;

export interface ListingFeeTerms {
  payTo: string;
  /** Token contract; default Base USDC. */
  asset?: string;
  network?: Network;
  amount?: string;
}

/** Price for x402ResourceServer: an explicit asset amount, so no default-asset lookup happens. */
export function listingFeePrice(terms: Pick<ListingFeeTerms, "asset" | "amount"> = {}): AssetAmount {
  return {
    amount: terms.amount ?? LISTING_FEE_AMOUNT,
    asset: terms.asset ?? BASE_USDC,
    extra: { ...USDC_EIP712_DOMAIN },
  };
}

/** Route payment option for x402HTTPResourceServer (`RouteConfig.accepts`). */
export function listingFeePaymentOption(terms: ListingFeeTerms): PaymentOption {
  return {
    scheme: "exact",
    network: terms.network ?? LISTING_FEE_NETWORK,
    payTo: terms.payTo,
    price: listingFeePrice(terms),
    maxTimeoutSeconds: LISTING_FEE_TIMEOUT_SECONDS,
  };
}

/** The requirements exactly as x402ResourceServer.buildPaymentRequirements produces them from the option above. */
export function listingFeeRequirements(terms: ListingFeeTerms): PaymentRequirements {
  const price = listingFeePrice(terms);
  return {
    scheme: "exact",
    network: terms.network ?? LISTING_FEE_NETWORK,
    amount: price.amount,
    asset: price.asset,
    payTo: terms.payTo,
    maxTimeoutSeconds: LISTING_FEE_TIMEOUT_SECONDS,
    extra: { ...price.extra },
  };
}
