// Issue 25: a payment costs a signature verification (milliseconds of CPU with the in-process
// facilitator) for anyone who sends a PAYMENT-SIGNATURE, valid or not. A per-client limit is checked
// before the header is decoded or the facilitator asked, on POST /listings and the demo routes.
import { randomBytes } from "node:crypto";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.js";

/** A well-formed PAYMENT-SIGNATURE for `requirements` whose signature is random bytes. */
function junkPayment(requirements: PaymentRequirements): string {
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: `0x${randomBytes(20).toString("hex")}`,
    to: requirements.payTo,
    value: requirements.amount,
    validAfter: String(now - 600),
    validBefore: String(now + 300),
    nonce: `0x${randomBytes(32).toString("hex")}`,
  };
  return encodePaymentSignatureHeader({
    x402Version: 2,
    accepted: requirements,
    payload: { authorization, signature: `0x${randomBytes(65).toString("hex")}` },
  } as never);
}

describe("the per-client payment limit", { timeout: 120_000 }, () => {
  it("refuses a client over PAYMENT_RATE_PER_CLIENT with 429 before verifying, and leaves unpaid requests alone", async () => {
    const server = await startTestServer({ LOAD_SEED: "true", PAYMENT_RATE_PER_CLIENT: "2" });
    try {
      const challenge = await server.fetch("/kr-time");
      expect(challenge.status).toBe(402);
      const requirements = decodePaymentRequiredHeader(challenge.headers.get("payment-required")!).accepts[0]!;
      const pay = () => server.fetch("/kr-time", { headers: { "payment-signature": junkPayment(requirements) } });

      // Within the limit, the payment goes on to verification (the test server's payment backend
      // refuses it: 402, or 502 where it has no chain), nothing charged.
      const first = await pay();
      expect([402, 502]).toContain(first.status);
      // The budget refills (2 a minute): spend it until refused, within a few tries on a slow machine.
      let over = await pay();
      for (let i = 0; i < 5 && over.status !== 429; i++) over = await pay();
      expect(over.status).toBe(429);
      expect(await over.json()).toMatchObject({ error: "rate_limited" });
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      // The same client, over its limit: POST /listings with a payment is refused the same way.
      const listing = await server.fetch("/listings", {
        method: "POST",
        headers: { "content-type": "application/json", "payment-signature": junkPayment(requirements) },
        body: "{}",
      });
      expect(listing.status).toBe(429);
      // Without a payment nothing is counted: the challenge still comes.
      expect((await server.fetch("/kr-time")).status).toBe(402);
      expect((await server.fetch("/discovery/resources")).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
