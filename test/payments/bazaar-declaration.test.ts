// Our own paid routes declare themselves: every 402 of POST /listings and of the /kr-* demos carries
// extensions.bazaar (the x402 Bazaar discovery extension) with the contract's input and output
// schemas, in the PAYMENT-REQUIRED header and in the body alike, and discovery validators accept it:
// the SDK's own bazaar validation (what a facilitator runs before cataloging) and @agentcash/discovery's
// 402 check (which marked every one of them invalid while the declaration was missing).
import { validatePaymentRequiredDetailed } from "@agentcash/discovery";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import {
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from "@x402/extensions/bazaar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { componentSchema } from "../../src/contract/schemas.js";
import { startTestServer, type TestServer } from "../support/server.js";

const ORIGIN = "https://market.example.test";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ PUBLIC_BASE_URL: ORIGIN, LOAD_SEED: "true" });
});
afterAll(async () => {
  await server?.close();
});

interface Case {
  method: "GET" | "POST";
  path: string;
  body?: string;
  /** The contract's schema of the input: the request body (POST) or the query parameters (GET). */
  input: () => Record<string, unknown>;
  output: string;
}

const CASES: Case[] = [
  { method: "POST", path: "/listings", input: () => componentSchema("ListingRequest"), output: "ListingCreated" },
  // The contract takes any JSON body at /kr-echo (`unknown`), and no query parameter at the GET demos.
  { method: "POST", path: "/kr-echo", body: '{"hello":"x402"}', input: () => ({}), output: "DemoAnswer" },
  { method: "GET", path: "/kr-time", input: () => ({ type: "object", properties: {} }), output: "DemoAnswer" },
  { method: "GET", path: "/kr-fortune", input: () => ({ type: "object", properties: {} }), output: "DemoAnswer" },
];

async function unpaid(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const answer = await server.fetch(path, {
    method,
    headers: { ...(body !== undefined && { "content-type": "application/json" }), ...headers },
    body,
  });
  expect(answer.status).toBe(402);
  const header = answer.headers.get("PAYMENT-REQUIRED");
  expect(header).toBeTruthy();
  const fromHeader = decodePaymentRequiredHeader(header!);
  const { message, ...fromBody } = (await answer.json()) as PaymentRequired & { message: string };
  expect(message).toBeTruthy();
  // The body repeats the PaymentRequired object of the header, extensions included.
  expect(fromBody).toEqual(fromHeader);
  return fromHeader;
}

function bazaarOf(challenge: PaymentRequired): DiscoveryExtension {
  const bazaar = challenge.extensions?.bazaar as DiscoveryExtension | undefined;
  expect(bazaar, "extensions.bazaar").toBeDefined();
  return bazaar!;
}

describe("the 402 of each of our paid routes declares the route (extensions.bazaar)", () => {
  for (const route of CASES) {
    it(`${route.method} ${route.path}: the contract's input and output schemas, accepted by discovery validators`, async () => {
      const challenge = await unpaid(route.method, route.path, route.body);
      const bazaar = bazaarOf(challenge);
      const input = bazaar.schema.properties.input.properties as Record<string, unknown>;

      expect(bazaar.info.input).toMatchObject({ type: "http", method: route.method });
      expect(input.method).toEqual({ type: "string", enum: [route.method] });
      if (route.method === "POST") {
        expect(bazaar.info.input).toMatchObject({ bodyType: "json" });
        expect(input.body).toEqual(route.input());
      } else {
        expect(input.queryParams).toEqual(route.input());
      }
      const output = bazaar.schema.properties.output?.properties as Record<string, unknown> | undefined;
      expect(output?.example).toEqual(componentSchema(route.output));
      expect(bazaar.info.output).toMatchObject({ type: "json", example: expect.anything() });

      // What a facilitator checks before cataloging: info (the examples too) fits schema, and the spec's invariants.
      expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
      expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({ valid: true });

      const verdict = validatePaymentRequiredDetailed(challenge);
      expect(verdict.issues).toEqual([]);
      expect(verdict).toMatchObject({ valid: true, normalized: { hasInputSchema: true, hasOutputSchema: true } });
    });
  }

  it("POST /listings: the example body it declares passes the listing checks (the dry run says ok)", async () => {
    const bazaar = bazaarOf(await unpaid("POST", "/listings"));
    const body = (bazaar.info.input as { body: unknown }).body;
    const answer = await server.fetch("/listings/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    // The example's seller does not exist, so the seller probe fails; every check of the body itself passes.
    const report = (await answer.json()) as { checks: Array<{ name: string; ok: boolean }> };
    const bodyChecks = report.checks.filter((check) => check.name !== "seller-probe" && check.name !== "resource");
    expect(bodyChecks.map((check) => check.name)).toContain("schema");
    expect(bodyChecks.filter((check) => !check.ok)).toEqual([]);
  });

  it("GET /listings/challenge is the PaymentRequired of an unpaid POST /listings, declaration included", async () => {
    const published = (await (await server.fetch("/listings/challenge")).json()) as PaymentRequired;
    expect(published).toEqual(await unpaid("POST", "/listings"));
    expect(bazaarOf(published).info.input).toMatchObject({ method: "POST" });
  });

  it("a refused payment's 402 carries the same declaration as the unpaid one", async () => {
    const first = await unpaid("GET", "/kr-time");
    const refused = await unpaid("GET", "/kr-time", undefined, { "PAYMENT-SIGNATURE": "not base64 json" });
    expect(refused.error).toBe("invalid_payment_signature_header");
    expect(bazaarOf(refused)).toEqual(bazaarOf(first));
  });
});
