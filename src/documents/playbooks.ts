// The sell and buy recipes. Every other document that tells an agent how to sell or buy (machine
// playbook, quickstart, join card, llms-full.txt, the MCP tools) is built from these steps.
import type { components } from "../../generated/openapi.js";
import { type MarketFacts } from "../market/facts.js";
import { listingFeeSummary } from "./listing-fee.js";
import { paymentFacts, POLICY } from "./agent-facts.js";
import { exampleListing } from "./listing-request.js";
import { linkTemplate, linkTo, linksTo } from "../market/links.js";

type Schemas = components["schemas"];
export type PlaybookStep = Schemas["PlaybookStep"];

const JSON_BODY = { "content-type": "application/json" };
/** The search text the documents use as an example. */
export const EXAMPLE_QUERY = "weather";

/** What a seller's endpoint must answer before it can be listed. */
export function sellerEndpointRule(market: MarketFacts): string {
  return (
    `an https endpoint you control that answers an unpaid request (with the method you list) with HTTP 402 and an x402 v2 challenge ` +
    `(PAYMENT-REQUIRED header) holding an exact requirement on ${market.network} that pays your sellerPayTo exactly your priceUsdc in ${market.asset}`
  );
}

export function dryRunStep(market: MarketFacts, step: number): PlaybookStep {
  return {
    step,
    title: "Validate for free",
    action:
      "POST your listing body to the dry run: it runs every check of the paid route, including a probe of your endpoint, without charging and without saving.",
    method: "POST",
    url: linkTo(market, "validate"),
    headers: JSON_BODY,
    body: exampleListing(market),
    expect:
      "200 with ok true: ready to list. 422 names each failed check (name, code, reason); 400 names the fields that break the schema.",
  };
}

export function payAndListStep(market: MarketFacts, step: number): PlaybookStep {
  return {
    step,
    title: "Pay the fee and list",
    action:
      `POST the same body to /listings. Without payment it answers 402 with PAYMENT-REQUIRED: exact scheme, ${market.network}, amount ${market.feeAtomic} ` +
      `(${market.feeUsdc} USDC), asset ${market.asset}, payTo ${market.payTo}. Sign it with any x402 v2 client (an EIP-3009 transferWithAuthorization; ` +
      "the payer needs no gas) and send the same POST again with the PAYMENT-SIGNATURE header. The 402 declares the x402 payment-identifier extension: " +
      "put an id in your payload's extensions and, if the answer is lost, send the very same request again for the stored 200 (no second charge).",
    method: "POST",
    url: linkTo(market, "list"),
    headers: { ...JSON_BODY, "PAYMENT-SIGNATURE": "<base64 x402 v2 payment payload>" },
    body: exampleListing(market),
    expect:
      `200 {id, resource, listingFeeUsdc, expiresAt, catalog} with PAYMENT-RESPONSE (the settlement transaction). The listing is active for ${market.ttlDays} days; ` +
      "paying again for the same resource, method and sellerPayTo renews it (renewed: true) and extends it by the same period.",
  };
}

export function sellSteps(market: MarketFacts): PlaybookStep[] {
  return [
    {
      step: 1,
      title: "Make your endpoint answer 402",
      action: `You need ${sellerEndpointRule(market)}. The marketplace probes it when you validate and when you list.`,
      expect: "An unpaid request to your resource answers 402 with that challenge.",
    },
    {
      step: 2,
      title: "Write the listing body",
      action:
        "Fill resource (https URL), method (GET or POST, default POST), priceUsdc (decimal string, at most 6 decimals), description (8 to 400 characters), " +
        `sellerPayTo, and optionally inputSchema and network (${market.network}). Unknown fields are rejected.`,
      method: "GET",
      url: linkTo(market, "schema"),
      expect: `200: the JSON Schema of the body. An example body is at ${linkTo(market, "example")}.`,
    },
    dryRunStep(market, 3),
    {
      step: 4,
      title: "Read the fee challenge (optional)",
      action: "Read the exact challenge an unpaid POST /listings presents, as plain JSON, to check what you will sign.",
      method: "GET",
      url: linkTo(market, "challenge"),
      expect: `200: {x402Version: 2, resource, accepts: [{scheme: exact, network: ${market.network}, amount: ${market.feeAtomic}, asset, payTo, maxTimeoutSeconds, extra}]}.`,
    },
    payAndListStep(market, 5),
    {
      step: 6,
      title: "See your listing",
      action: "Your listing is in the catalog, the feed and search as soon as the fee settles.",
      method: "GET",
      url: linkTo(market, "feed"),
      expect: "200 with your resource among items (newest first).",
    },
  ];
}

/** After listing: the owner (sellerPayTo) corrects, withdraws or claims a listing with an EIP-712 signature; anyone refreshes it. */
export function ownerSteps(market: MarketFacts, first: number): PlaybookStep[] {
  const listing = linkTemplate(market, "/listings/{id}");
  const sign = linkTemplate(market, "/listings/{id}/sign");
  const claim = linkTemplate(market, "/listings/{id}/claim");
  const refresh = linkTemplate(market, "/listings/{id}/refresh");
  return [
    {
      step: first,
      title: "Update, delist or claim your listing (as its owner)",
      action:
        `Only the listing's sellerPayTo may, and only by signing: GET ${sign}?action=update (with description, method, priceUsdc or inputSchema as JSON), action=delist or action=claim ` +
        `returns the exact EIP-712 typed data (domain {name: ${JSON.stringify(market.name)}, version "1", chainId 8453}, a fresh nonce, a deadline 10 minutes ahead) and the request to send. ` +
        `Sign it with sellerPayTo's key (eth_signTypedData_v4; an externally owned account: contract wallets are not supported) and send it with the signature: PATCH ${listing}, DELETE ${listing} or POST ${claim} ({id} is the listing's metadata.listingId). ` +
        "A new price or method is accepted only once your endpoint's 402 shows it. Delisting hides the listing everywhere at once; the fee is not refunded. " +
        "A claim marks a listing whose fee someone else paid as owner-verified (a fee paid by sellerPayTo itself is verified already).",
      expect:
        "200 with the listing as it now is. 401 deadline_passed, 403 not_owner (another signer, or a field sent differently from what was signed), 403 deadline_too_far or wrong_chain, " +
        "409 nonce_used (sign again), 404 when the listing is not live, 422 when the probe does not show the new price or method: each changes nothing.",
    },
    {
      step: first + 1,
      title: "Refresh your listing's health and metadata",
      action: `Anyone may POST ${refresh} (free, rate-limited per client): the marketplace probes the endpoint now and keeps the seller metadata of its 402 (serviceName, tags, iconUrl, bazaar).`,
      expect: "200 with ok, the probe's failure code when it failed, and the catalog item as buyers now see it.",
    },
    {
      step: first + 2,
      title: "Follow what happens to your listing",
      action:
        `GET ${linkTemplate(market, "/listings/{id}/status")} says where any of your listings stands and why (reason codes with their evidence: failing probes, a 402 that drifted from the listing, ` +
        `expiry, delisting) and its transitions; ${linkTemplate(market, "/sellers/{payTo}/feed.atom")} (and feed.json) carries every event of your listings. ` +
        `To be told as it happens, GET ${linkTo(market, "/webhooks/sign")}?payTo=<sellerPayTo>&url=<your https endpoint>, sign the typed data with sellerPayTo's key and send it as that document's submit says (POST /webhooks): ` +
        "your endpoint first answers a signed webhook.verification challenge, then receives listing.created, renewed, updated, delisted, expiring (7 and 1 days ahead), expired, health_changed, drifted and verified, " +
        "signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the secret returned once. Buyers may subscribe to chosen listingIds or a saved search without signing.",
      expect:
        "201 with the subscription, status pending until your endpoint echoes the challenge, and its whsec_ secret (shown once; send it as Authorization: Bearer to read the delivery log at GET /webhooks/{id} or to delete it).",
    },
  ];
}

export function findStep(market: MarketFacts, step: number): PlaybookStep {
  return {
    step,
    title: "Find a listing",
    action:
      `Search the free catalog by text, read it page by page (${linkTo(market, "resources")}), or poll the feed for new listings ` +
      `(${linkTo(market, "feed")}, with since set to the last nextSince). First-party /kr-* demo rows are hidden unless includeSeed=true. ` +
      "Keep health=healthy (as this URL does) to be shown only listings whose endpoint answered its last re-probes with the listed terms; " +
      "health=any shows every listing, marked: unhealthy (down), drifted (its live price, payTo or token no longer match the listing) or unknown (not re-probed yet).",
    method: "GET",
    url: linkTo(market, "/discovery/search", { query: EXAMPLE_QUERY, health: "healthy" }),
    expect:
      "200 with items: each has resource, method, description, accepts (scheme, network, amount in atomic units, asset, payTo), metadata.priceUsdc " +
      "and metadata.health (status, uptime over 24 h/7 d/30 d, p50 latency, last checked).",
  };
}

export function payTheSellerStep(step: number): PlaybookStep {
  return {
    step,
    title: "Pay the seller",
    action:
      "Sign the requirement that matches the listing with any x402 v2 client (EIP-3009; no gas needed) and repeat the same request with the PAYMENT-SIGNATURE header.",
    headers: { "PAYMENT-SIGNATURE": "<base64 x402 v2 payment payload>" },
    expect:
      "The seller's answer (usually 200) with PAYMENT-RESPONSE carrying the settlement. The payment goes to the seller, never to the marketplace.",
  };
}

export function buySteps(market: MarketFacts): PlaybookStep[] {
  return [
    findStep(market, 1),
    {
      step: 2,
      title: "Call the seller unpaid",
      action:
        "Send the listing's method to its resource (for POST, a JSON body matching the listing's inputSchema, if any). The seller answers 402 with its own PAYMENT-REQUIRED challenge.",
      expect:
        "402 from the seller. Check that its requirement matches the catalog item: same payTo, same asset, same network, amount no higher than listed. Pay nothing that does not match.",
    },
    payTheSellerStep(3),
  ];
}

export function sellPlaybook(market: MarketFacts): Schemas["SellPlaybook"] {
  return {
    name: market.name,
    role: "marketplace",
    x402Version: 2,
    title: "Sell: list your x402 endpoint",
    summary:
      `Validate your listing for free, then POST it to /listings paying a fixed ${market.feeUsdc} USDC fee with x402 (exact, ${market.network}). ` +
      `The listing is active for ${market.ttlDays} days; buyers pay you directly at your own endpoint.`,
    listingFee: listingFeeSummary(market),
    feeAtomic: market.feeAtomic,
    requirements: [
      sellerEndpointRule(market),
      `a wallet holding at least ${market.feeUsdc} of the token ${market.asset} on ${market.network}, able to sign EIP-712 (EIP-3009 transferWithAuthorization); it needs no gas`,
      "an x402 v2 client to sign the fee (any will do; no client package of this marketplace is required), or the example script",
    ],
    steps: [...sellSteps(market), ...ownerSteps(market, sellSteps(market).length + 1)],
    example: exampleListing(market),
    statuses: [
      { status: 200, meaning: "listed (or renewed); the body has id, expiresAt and the catalog URL" },
      {
        status: 400,
        meaning: "the body breaks the schema or a listing check; the fields are named; nothing was charged",
      },
      {
        status: 402,
        meaning: "pay the fee: the challenge is in PAYMENT-REQUIRED; after a payment, error names why it was refused",
      },
      {
        status: 409,
        meaning:
          "this payment (or payment identifier) was already used or is being processed: send the same request later for its result, or sign a new payment",
      },
      { status: 422, meaning: "the probe of your endpoint failed (the report names the check); nothing was charged" },
      { status: 429, meaning: "too many probes from you or of your host; wait for Retry-After" },
      {
        status: 502,
        meaning:
          "the facilitator gave no usable answer; the message says what happened; send the same request (same payment) again later",
      },
      {
        status: 503,
        meaning:
          "no definite answer in time; send the same request (same payment) again after Retry-After for the result: a payment never settles twice",
      },
    ],
    script: linkTo(market, "curlList"),
    policy: [...POLICY],
    links: linksTo(market, [
      "validate",
      "schema",
      "example",
      "challenge",
      "list",
      "fee",
      "facilitator",
      "buy",
      "playbook",
      "start",
      "llms",
      "mcp",
    ]),
  };
}

export function buyPlaybook(market: MarketFacts): Schemas["BuyPlaybook"] {
  return {
    name: market.name,
    role: "marketplace",
    x402Version: 2,
    title: "Buy: find a listing and pay its seller",
    summary:
      "Read the free catalog (search, resources, feed or MCP list_market), call the listed resource, and pay the seller's own 402 challenge with x402. " +
      "The marketplace is not a party to the sale.",
    steps: buySteps(market),
    notes: [
      ...paymentFacts(market),
      "Poll for changes with If-None-Match (304 when unchanged) or the feed's since parameter; there are no webhooks.",
      "Disputes and refunds are between buyer and seller: the marketplace never touches the payment.",
    ],
    script: linkTo(market, "buyScript"),
    policy: [...POLICY],
    links: linksTo(market, [
      "search",
      "resources",
      "catalog",
      "foreign",
      "feed",
      "sell",
      "playbook",
      "start",
      "llms",
      "mcp",
    ]),
  };
}
