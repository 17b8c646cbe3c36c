// The paid route with hostile bodies and a real payment on a local chain: what no storage can hold
// is refused with a 400 before the payment is verified or settled (a 3,000-deep inputSchema used to
// be a 503 after verification and the seller probe), and a resource with `<` and quotes is listed
// in its WHATWG form, which every feed carries.
import { parseFeed } from "@rowanmanning/feed-parser";
import { SaxesParser } from "saxes";
import { describe, expect, it } from "vitest";
import { testDatabaseKinds } from "../storage/databases.js";
import { SELLER_PRICE, useMarketServer, usePaidMarket } from "../support/paid-market.js";
import { sdkPaymentHeader } from "../support/payments.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  SELLER_PAY_TO,
  startSeller,
  summariseListing,
} from "../support/sellers.js";

const market = usePaidMarket({ buyers: 2 });

/** An object nested `depth` levels deep. */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let level = 1; level < depth; level++) schema = { items: schema };
  return schema;
}

describe.each(testDatabaseKinds())("paid POST /listings with hostile bodies on $kind", (databaseKind) => {
  const site = useMarketServer(market, databaseKind);

  const listing = (overrides: Record<string, unknown> = {}) => summariseListing(market.seller, overrides);

  const post = (body: unknown, payment: string) =>
    site.server.fetch("/listings", {
      method: "POST",
      headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": payment },
      body: JSON.stringify(body),
    });

  it("refuses a 3,000-deep inputSchema with 400 before verifying, probing or settling the payment", async () => {
    const header = await sdkPaymentHeader(market.chain, market.chain.buyers[0]!.privateKey, site.feeChallenge);
    const [balance, probes] = [
      await market.chain.balanceOf(market.chain.marketplacePayTo),
      market.seller.requests.length,
    ];
    const response = await post(listing({ inputSchema: nested(3000) }), header);
    const body = (await response.json()) as { error: string; fields: Array<{ field: string }> };
    expect(response.status).toBe(400);
    expect(body.error).toBe("invalid_listing");
    expect(body.fields.map((field) => field.field)).toEqual(["/inputSchema"]);
    expect(market.seller.requests.length).toBe(probes);
    expect(await market.chain.balanceOf(market.chain.marketplacePayTo)).toBe(balance);
    expect((await site.server.contexts.listings.store.counts(new Date())).rawAll).toBe(0);
  });

  it("refuses at listing time with exactly the checks and codes the free dry run names, charging nothing", async () => {
    const answers = {
      down: () => ({ status: 503, body: "maintenance" }),
      price: () =>
        challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "99000", asset: market.chain.asset })])),
      payTo: () =>
        challengeAnswer(
          challenge([
            requirement({
              payTo: "0x000000000000000000000000000000000000dEaD",
              amount: SELLER_PRICE,
              asset: market.chain.asset,
            }),
          ]),
        ),
    };
    const changing = await startSeller(answers.down);
    try {
      for (const [name, answer] of Object.entries(answers)) {
        changing.answer = answer;
        const body = summariseListing(changing, { description: `Refused because of ${name}` });
        const dry = await site.server.fetch("/listings/validate", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const balance = await market.chain.balanceOf(market.chain.marketplacePayTo);
        const paid = await post(
          body,
          await sdkPaymentHeader(market.chain, market.chain.buyers[0]!.privateKey, site.feeChallenge),
        );
        const [dryReport, paidReport] = (await Promise.all([dry.json(), paid.json()])) as Array<{
          checks: Array<{ name: string; ok: boolean; code?: string }>;
        }>;
        expect({ name, dry: dry.status, paid: paid.status }).toEqual({ name, dry: 422, paid: 422 });
        expect(paidReport!.checks, name).toEqual(dryReport!.checks);
        expect(paidReport!.checks.find((check) => !check.ok)?.code, name).toMatch(
          /^(not_402|price_mismatch|pay_to_mismatch)$/,
        );
        expect(await market.chain.balanceOf(market.chain.marketplacePayTo)).toBe(balance);
      }
      expect((await site.server.contexts.listings.store.counts(new Date())).rawAll).toBe(0);
    } finally {
      await changing.close();
    }
  });

  it("lists a resource with < and quotes in its normalised form, with a tab and line feed in the description; the feeds stay well-formed", async () => {
    const resource = `${market.seller.url}/api/<summarise>?q="x"&lang='en'`;
    const description = "Summarises a page:\n\t- five bullets\n\t- a <title> & a summary";
    const header = await sdkPaymentHeader(market.chain, market.chain.buyers[1]!.privateKey, site.feeChallenge);
    const response = await post(listing({ resource, description }), header);
    const created = (await response.json()) as { resource: string };
    expect(response.status, JSON.stringify(created)).toBe(200);
    const normalised = `${market.seller.url}/api/%3Csummarise%3E?q=%22x%22&lang=%27en%27`;
    expect(created.resource).toBe(normalised);
    expect(market.seller.requests.at(-1)).toBe("POST /api/%3Csummarise%3E?q=%22x%22&lang=%27en%27");

    for (const route of ["/feed.atom", "/feed.rss"]) {
      const xml = await (await site.server.fetch(route)).text();
      const parser = new SaxesParser({ xmlns: true });
      expect(() => parser.write(xml).close(), route).not.toThrow();
      const [item] = parseFeed(xml).items;
      // An item links to the listing's page; the seller's resource, normalised, stands in its text.
      expect(item!.url, route).toMatch(/\/listing\/[0-9a-f-]{36}$/);
      expect(item!.description, route).toContain(description);
      expect(`${item!.description ?? ""}${item!.content ?? ""}`, route).toContain(normalised);
    }
  });
});
