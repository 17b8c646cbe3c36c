// POST /listings/validate runs the paid route's checks without payment or saving; GET explains it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  challenge,
  challengeAnswer,
  requirement,
  startSeller,
  type Seller,
  SELLER_PAY_TO,
  summariseListing,
} from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";

const SELLER = SELLER_PAY_TO;

interface Check {
  name: string;
  ok: boolean;
  code?: string;
  reason?: string;
}
/** A validation report, or an error body (400, 429). */
type Report = { ok: boolean; checks: Check[]; fields?: unknown[] } & Record<string, unknown>;

let server: TestServer;
let seller: Seller;

beforeAll(async () => {
  server = await startTestServer({
    ALLOW_LOOPBACK_SELLERS: "true",
    PAYMENT_RATE_PER_CLIENT: "100000",
    PROBE_RATE_PER_CLIENT: "1000",
    PROBE_RATE_PER_HOST: "1000",
  });
  const asset = server.contexts.listings.market.asset;
  seller = await startSeller(() =>
    challengeAnswer(challenge([requirement({ payTo: SELLER, amount: "30000", asset })])),
  );
});

afterAll(async () => {
  await server?.close();
  await seller?.close();
});

const body = (overrides: Record<string, unknown> = {}) => summariseListing(seller, overrides);

async function validate(target: TestServer, payload: unknown) {
  const response = await target.fetch("/listings/validate", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
  });
  const answer = (await response.json()) as Report;
  return { status: response.status, answer, headers: response.headers };
}

describe("POST /listings/validate", () => {
  it("answers 200 with every check by name when all pass, probing the seller once, saving nothing", async () => {
    const probes = seller.requests.length;
    const { status, answer } = await validate(server, body());
    expect(status).toBe(200);
    expect(answer).toMatchObject({ ok: true, charged: false, saved: false });
    expect(answer.checks.map((check) => check.name)).toEqual([
      "schema",
      "network",
      "price",
      "description",
      "sellerPayTo",
      "resource",
      "seller-probe",
    ]);
    expect(answer.checks.every((check) => check.ok && check.reason)).toBe(true);
    expect(seller.requests.slice(probes)).toEqual(["POST /api/summarise"]);
    expect((await server.contexts.listings.store.counts(new Date())).rawAll).toBe(0);
  });

  it("answers 422 naming each failed check with its code and reason", async () => {
    const { status, answer } = await validate(
      server,
      body({ priceUsdc: "0", sellerPayTo: "0x0000000000000000000000000000000000000000", description: "        x" }),
    );
    expect(status).toBe(422);
    const failed = answer.checks.filter((check) => !check.ok);
    expect(failed).toEqual([
      { name: "price", ok: false, code: "price_not_positive", reason: expect.any(String) },
      { name: "description", ok: false, code: "description_blank", reason: expect.any(String) },
      { name: "sellerPayTo", ok: false, code: "zero_address", reason: expect.any(String) },
      { name: "seller-probe", ok: false, code: "pay_to_mismatch", reason: expect.stringContaining("payTo is") },
    ]);
    // Like every error body, the report names the problem in `error` and says it in `message`.
    expect(answer).toMatchObject({
      ok: false,
      error: "listing_checks_failed",
      message: expect.stringContaining(
        "price: price_not_positive; description: description_blank; sellerPayTo: zero_address; seller-probe: pay_to_mismatch",
      ),
    });
  });

  it("answers 422 when the seller does not ask for payment, saying what it answered", async () => {
    seller.answer = () => ({ status: 200, body: "free!" });
    try {
      const { status, answer } = await validate(server, body({ method: "GET" }));
      expect(status).toBe(422);
      expect(answer.checks.at(-1)).toMatchObject({
        name: "seller-probe",
        ok: false,
        code: "not_402",
        reason: expect.stringContaining(`GET ${seller.url}/api/summarise answered 200`),
      });
    } finally {
      seller.answer = () =>
        challengeAnswer(
          challenge([requirement({ payTo: SELLER, amount: "30000", asset: server.contexts.listings.market.asset })]),
        );
    }
  });

  it("does not probe a resource URL that failed its own check", async () => {
    const probes = seller.requests.length;
    const { status, answer } = await validate(
      server,
      body({ resource: `${seller.url.replace("https://", "https://user:pw@")}/x` }),
    );
    expect(status).toBe(422);
    expect(answer.checks.slice(-2)).toMatchObject([
      { name: "resource", ok: false, code: "credentials_in_url" },
      { name: "seller-probe", ok: false, code: "skipped" },
    ]);
    expect(seller.requests.length).toBe(probes);
  });

  it("answers 400 with field errors when the body breaks the schema", async () => {
    const { status, answer } = await validate(server, { ...body(), priceUsdc: 0.03, extra: true });
    expect(status).toBe(400);
    expect(answer.fields).toEqual(
      expect.arrayContaining([
        { in: "body", field: "/priceUsdc", message: "must be string" },
        { in: "body", field: "/extra", message: "is not an allowed field" },
      ]),
    );
  });

  it("refuses loopback sellers unless the test setting is on", async () => {
    const strict = await startTestServer({ ALLOW_LOOPBACK_SELLERS: "false" });
    try {
      const { status, answer } = await validate(strict, body());
      expect(status).toBe(422);
      expect(answer.checks.at(-1)).toMatchObject({
        code: "address_not_allowed",
        reason: expect.stringContaining("loopback"),
      });
    } finally {
      await strict.close();
    }
  });

  it("rate-limits probes per client with 429 and Retry-After", async () => {
    const limited = await startTestServer({ ALLOW_LOOPBACK_SELLERS: "true", PROBE_RATE_PER_CLIENT: "1" });
    try {
      expect((await validate(limited, body())).status).toBe(200);
      const { status, answer, headers } = await validate(limited, body());
      expect(status).toBe(429);
      expect(answer).toMatchObject({ error: "rate_limited", message: expect.stringContaining("too many probes") });
      expect(Number(headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

describe("per-client limits behind a proxy (TRUST_PROXY)", () => {
  it("tells clients apart by X-Forwarded-For", async () => {
    const proxied = await startTestServer({
      ALLOW_LOOPBACK_SELLERS: "true",
      PROBE_RATE_PER_CLIENT: "1",
      TRUST_PROXY: "true",
    });
    const from = (client: string) =>
      proxied.fetch("/listings/validate", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": client },
        body: JSON.stringify(body()),
      });
    try {
      expect((await from("203.0.113.1")).status).toBe(200);
      expect((await from("203.0.113.2")).status).toBe(200);
      expect((await from("203.0.113.1")).status).toBe(429);
    } finally {
      await proxied.close();
    }
  });
});

describe("GET /listings/validate", () => {
  it("documents the dry run: schema, example, every check, how to call", async () => {
    const response = await server.fetch("/listings/validate");
    expect(response.status).toBe(200);
    const guide = (await response.json()) as {
      schema: { additionalProperties: boolean };
      example: unknown;
      checks: Array<{ name: string }>;
      curl: string;
    };
    expect(guide).toMatchObject({
      method: "POST",
      url: `${server.contexts.listings.config.publicBaseUrl}/listings/validate`,
      charged: false,
      saved: false,
    });
    expect(guide.schema.additionalProperties).toBe(false);
    expect(guide.example).toMatchObject({ network: "eip155:8453" });
    expect(guide.checks.map((check) => check.name)).toEqual([
      "schema",
      "network",
      "price",
      "description",
      "sellerPayTo",
      "resource",
      "seller-probe",
    ]);
    expect(guide.curl).toContain("/listings/validate");
  });
});
