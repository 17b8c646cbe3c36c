// The first-party /kr-* demo endpoints: real x402-paid resources, paid to the marketplace wallet,
// settled before they answer. A probe of a leftover seed row therefore passes, and a buyer can buy.
import { randomInt } from "node:crypto";
import { SEED_INVENTORY, type SeedResource } from "../catalog/seed-inventory.js";
import type { Reply } from "../contract/typed-handlers.js";
import type { Handler, Services } from "../services.js";
import type { Charge } from "../payments/payment-gate.js";
import { facilitatorUnavailableReply, paymentRequiredReply, unavailableReply } from "../payments/replies.js";
import { normalizePrice } from "../storage/listing-store.js";
import { linkTo } from "../market/links.js";

const FORTUNES = [
  "A paid request today saves a free-tier rate limit tomorrow.",
  "The nonce you sign is the nonce you spend.",
  "Settle once, list for thirty days.",
  "An agent that reads the catalog finds what it needs.",
  "Your next 402 will be answered promptly.",
];

const ANSWERS: Record<string, (body: unknown, now: Date) => unknown> = {
  "/kr-echo": (body) => body ?? null,
  "/kr-time": (_body, now) => ({ iso: now.toISOString(), unix: Math.floor(now.getTime() / 1000) }),
  "/kr-fortune": () => FORTUNES[randomInt(FORTUNES.length)],
};

export function demoCharge(seed: SeedResource, services: Pick<Services, "market">): Charge {
  const { market } = services;
  return {
    amount: normalizePrice(seed.priceUsdc).priceAtomic,
    payTo: market.payTo,
    resource: { url: linkTo(market, seed.path), description: seed.description, mimeType: "application/json" },
  };
}

async function serveDemo(path: string, body: unknown, headers: Record<string, string | undefined>, services: Services): Promise<Reply<"getDemoResource">> {
  const demo = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const seed = SEED_INVENTORY.find((resource) => resource.path === demo);
  const answer = ANSWERS[demo];
  if (!seed || !answer) return { status: 404, body: { error: "not_found", message: `${demo} is not a demo endpoint.` } };
  const { gate } = services.payments;
  const charge = demoCharge(seed, services);

  let outcome;
  try {
    outcome = await gate.check(headers, charge, services.now());
  } catch (error) {
    return facilitatorUnavailableReply(error, "Nothing was charged.");
  }
  if (outcome.kind === "unpaid") return paymentRequiredReply(outcome.paymentRequired, `Pay ${seed.priceUsdc} with x402 to call ${demo}.`);
  if (outcome.kind === "rejected") return paymentRequiredReply(outcome.paymentRequired, outcome.message);

  const settled = await gate.settle(outcome.payment);
  if (settled.kind === "failed") {
    return { status: 402, headers: { "PAYMENT-RESPONSE": settled.paymentResponse }, body: { error: settled.reason, message: `The settlement failed (${settled.reason}).`, x402Version: 2 } };
  }
  if (settled.kind === "not_sent") return unavailableReply(settled.reason, "Nothing was charged.");
  if (settled.kind === "unconfirmed") {
    return unavailableReply(settled.reason === "settlement_pending" ? "timeout" : settled.reason, "The payment may still settle; do not pay again for a minute.");
  }
  return {
    status: 200,
    headers: { "PAYMENT-RESPONSE": settled.paymentResponse },
    body: { demo, result: answer(body, services.now()), transaction: settled.transaction },
  };
}

export const getDemoResource: Handler<"getDemoResource"> = (input, services) => serveDemo(input.path, undefined, input.headers, services);

export const postDemoResource: Handler<"postDemoResource"> = (input, services) => serveDemo(input.path, input.body, input.headers, services);
