// The listing fee's terms exactly as the service presents them: what GET /listings/challenge and an
// unpaid POST /listings carry, built by the service's own PaymentGate from its own market facts.
import type { PaymentRequired } from "@x402/core/types";
import type { LocalChain } from "../../src/chain/local-chain.js";
import { loadConfig } from "../../src/config.js";
import { listingFeeCharge } from "../../src/listing/paid-listing.js";
import { marketFactsFor } from "../../src/payments/setup.js";
import { chainPayments } from "../support/payments.js";

export async function serviceFeeChallenge(chain: LocalChain): Promise<PaymentRequired> {
  const config = loadConfig({ LOG_LEVEL: "silent", LOAD_SEED: "false" });
  const payments = await chainPayments(chain);
  try {
    return await payments.gate.challenge(listingFeeCharge(marketFactsFor(config, payments)));
  } finally {
    await payments.close();
  }
}
