import type { Config } from "../config.js";
import {
  LISTING_FEE_ATOMIC,
  LISTING_FEE_USDC,
  LISTING_TTL_DAYS,
  PAYMENT_TIMEOUT_SECONDS,
  SALE_TAKE_BPS,
  X402_VERSION,
  type Network,
} from "../constants.js";

/**
 * The marketplace's facts: the constants plus what configuration and the payment set-up chose.
 * Every document reads them from here, so no two documents can disagree about the fee, the
 * wallet, the chain or the token.
 */
export interface MarketFacts {
  name: string;
  baseUrl: string;
  x402Version: typeof X402_VERSION;
  network: Network;
  /** Token contract of the listing fee and of every catalog item's requirement. */
  asset: string;
  /** EIP-712 domain of the token, sent as `extra` in payment requirements. */
  tokenName: string;
  tokenVersion: string;
  payTo: string;
  feeUsdc: typeof LISTING_FEE_USDC;
  feeAtomic: typeof LISTING_FEE_ATOMIC;
  ttlDays: typeof LISTING_TTL_DAYS;
  maxTimeoutSeconds: typeof PAYMENT_TIMEOUT_SECONDS;
  saleTakeBps: typeof SALE_TAKE_BPS;
}

export function marketFacts(
  config: Config,
  token: { payTo: string; tokenName: string; tokenVersion: string },
): MarketFacts {
  return {
    name: config.marketplaceName,
    baseUrl: config.publicBaseUrl,
    x402Version: X402_VERSION,
    network: config.network,
    asset: config.asset,
    tokenName: token.tokenName,
    tokenVersion: token.tokenVersion,
    payTo: token.payTo,
    feeUsdc: LISTING_FEE_USDC,
    feeAtomic: LISTING_FEE_ATOMIC,
    ttlDays: LISTING_TTL_DAYS,
    maxTimeoutSeconds: PAYMENT_TIMEOUT_SECONDS,
    saleTakeBps: SALE_TAKE_BPS,
  };
}
