// The set-up of the paid-flow suites: a test server taking listing fees through the given payments,
// an honest seller, and the fee's requirement as the server presents it.
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { Payments } from "../../src/payments/setup.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  SELLER_PAY_TO,
  startSeller,
  type Seller,
  type SellerAnswer,
} from "./sellers.js";
import { startTestServer, type TestServer } from "./server.js";

/** Loopback sellers allowed, no background reconciler (tests run it), probe limits out of the way. */
export const PAID_FLOW_ENV = {
  ALLOW_LOOPBACK_SELLERS: "true",
  RECONCILE_INTERVAL_SECONDS: "0",
  PAYMENT_RATE_PER_CLIENT: "100000",
  PROBE_RATE_PER_CLIENT: "1000",
  PROBE_RATE_PER_HOST: "1000",
};

export interface FeeMarket {
  server: TestServer;
  seller: Seller;
  /** The seller's honest answer: a challenge for 0.01 to SELLER_PAY_TO in the fee's token (tests may swap `seller.answer`). */
  honest: () => SellerAnswer;
  /** The listing fee's requirement, from GET /listings/challenge. */
  fee: PaymentRequirements;
  close(): Promise<void>;
}

export async function startFeeMarket(
  payments: Payments,
  env: Record<string, string> = PAID_FLOW_ENV,
): Promise<FeeMarket> {
  const server = await startTestServer(env, { payments });
  const honest = () =>
    challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "10000", asset: payments.asset })]));
  const seller = await startSeller(honest);
  const fee = ((await (await server.fetch("/listings/challenge")).json()) as PaymentRequired).accepts[0]!;
  return {
    server,
    seller,
    honest,
    fee,
    async close() {
      await server.close();
      await seller.close();
    },
  };
}
