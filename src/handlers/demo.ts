// The demo area (spec/demo.tsp): the first-party /kr-* endpoints, real x402-paid resources, paid to
// the marketplace wallet, settled before they answer. A probe of a leftover seed row therefore
// passes, and a buyer can buy.
import { randomInt } from "node:crypto";
import { routeTable } from "../../generated/operations.js";
import { normalizePrice } from "../catalog/rows.js";
import { DEMO_RESOURCES, type DemoPath, type SeedResource } from "../catalog/seed-inventory.js";
import type { Reply } from "../contract/typed-handlers.js";
import { linkTo } from "../market/links.js";
import { bodyRouteDiscovery, queryRouteDiscovery, type RouteDiscovery } from "../payments/bazaar.js";
import type { Charge } from "../payments/payment-gate.js";
import { facilitatorUnavailableReply, paymentRequiredReply, unavailableReply } from "../payments/replies.js";
import type { DemoAreaContext, Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

const FORTUNES = [
  "A paid request today saves a free-tier rate limit tomorrow.",
  "The nonce you sign is the nonce you spend.",
  "Settle once, list for thirty days.",
  "An agent that reads the catalog finds what it needs.",
  "Your next 402 will be answered promptly.",
];

/** What each demo route returns once paid: one answer per demo route of the contract, no other. */
const ANSWERS: { readonly [P in DemoPath]: (body: unknown, now: Date) => unknown } = {
  "/kr-echo": (body) => body ?? null,
  "/kr-time": (_body, now) => ({ iso: now.toISOString(), unix: Math.floor(now.getTime() / 1000) }),
  "/kr-fortune": () => FORTUNES[randomInt(FORTUNES.length)],
};

/** What the demos' bazaar declarations show: a fixed call and answer, so every challenge is the same. */
const EXAMPLE_BODY = { hello: "x402" };
const EXAMPLE_TIME = new Date(Date.UTC(2026, 0, 1, 12));
const EXAMPLE_TRANSACTION = `0x${"cd".repeat(32)}`;
const EXAMPLE_RESULTS: { readonly [P in DemoPath]: unknown } = {
  "/kr-echo": ANSWERS["/kr-echo"](EXAMPLE_BODY, EXAMPLE_TIME),
  "/kr-time": ANSWERS["/kr-time"](undefined, EXAMPLE_TIME),
  "/kr-fortune": FORTUNES[0],
};

/** Each demo's declaration, from its operation's schemas in the contract. */
const DISCOVERY = Object.fromEntries(
  (Object.keys(DEMO_RESOURCES) as DemoPath[]).map((demo) => {
    const output = { demo, result: EXAMPLE_RESULTS[demo], transaction: EXAMPLE_TRANSACTION };
    const discovery =
      DEMO_RESOURCES[demo].method === "POST"
        ? bodyRouteDiscovery("postDemoResource", { input: EXAMPLE_BODY, output })
        : queryRouteDiscovery("getDemoResource", { output });
    return [demo, discovery];
  }),
) as { readonly [P in DemoPath]: RouteDiscovery };

type DemoRoute = Extract<(typeof routeTable)[number], { area: "demo" }>;

/** Routed operationId -> its demo route (`getDemoResource` is /kr-time, `getDemoResource__krFortune` /kr-fortune). */
const DEMO_ROUTES = new Map<string, DemoPath>(
  routeTable
    .filter((route): route is DemoRoute => route.area === "demo")
    .map((route) => [route.operationId, route.path]),
);

function demoPathOf(operationId: string): DemoPath {
  const path = DEMO_ROUTES.get(operationId);
  // The router mounts these two handlers on the demo routes only: anything else is a wiring bug (500).
  if (path === undefined) throw new Error(`${operationId} is not a demo route of the contract`);
  return path;
}

function demoCharge(seed: SeedResource, { market }: Pick<DemoAreaContext, "market">): Charge {
  return {
    amount: normalizePrice(seed.priceUsdc).priceAtomic,
    payTo: market.payTo,
    resource: { url: linkTo(market, seed.path), description: seed.description, mimeType: "application/json" },
    discovery: DISCOVERY[seed.path],
  };
}

async function serveDemo(
  demo: DemoPath,
  body: unknown,
  headers: Record<string, string | undefined>,
  services: DemoAreaContext,
): Promise<Reply<"getDemoResource">> {
  const seed = DEMO_RESOURCES[demo];
  const { gate } = services.payments;

  let outcome;
  try {
    outcome = await gate.check(headers, demoCharge(seed, services), services.now());
  } catch (error) {
    return facilitatorUnavailableReply(error, "Nothing was charged.");
  }
  if (outcome.kind === "unpaid")
    return paymentRequiredReply(outcome.paymentRequired, `Pay ${seed.priceUsdc} with x402 to call ${demo}.`);
  if (outcome.kind === "rejected") return paymentRequiredReply(outcome.paymentRequired, outcome.message);

  const settled = await gate.settle(outcome.payment);
  if (settled.kind === "failed") {
    return {
      status: 402,
      headers: { "PAYMENT-RESPONSE": settled.paymentResponse },
      body: { error: settled.reason, message: `The settlement failed (${settled.reason}).`, x402Version: 2 },
    };
  }
  if (settled.kind === "not_sent") return unavailableReply(settled.reason, "Nothing was charged.");
  if (settled.kind === "unconfirmed") {
    return unavailableReply(
      settled.reason === "settlement_pending" ? "timeout" : settled.reason,
      "The payment may still settle; do not pay again for a minute.",
    );
  }
  return {
    status: 200,
    headers: { "PAYMENT-RESPONSE": settled.paymentResponse },
    body: { demo, result: ANSWERS[demo](body, services.now()), transaction: settled.transaction },
  };
}

/** GET /kr-time, /kr-fortune. */
const getDemoResource: Handler<"getDemoResource"> = (input, services) =>
  serveDemo(demoPathOf(input.operationId), undefined, input.headers, services);

/** POST /kr-echo. */
const postDemoResource: Handler<"postDemoResource"> = (input, services) =>
  serveDemo(demoPathOf(input.operationId), input.body, input.headers, services);

export const demoHandlers: AreaHandlers<"demo"> = { getDemoResource, postDemoResource };
