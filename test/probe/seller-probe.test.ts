import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeConfig } from "../../src/config.js";
import { SellerProbe, type ProbeTarget, type Resolver } from "../../src/probe/seller-probe.js";
import { challenge, challengeAnswer, requirement, startSeller, type Seller } from "../support/sellers.js";

const ASSET = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const SELLER = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const config: ProbeConfig = {
  timeoutMs: 1000,
  maxResponseBytes: 4096,
  perClientPerMinute: 1000,
  perHostPerMinute: 1000,
  allowLoopbackSellers: true,
};
const good = () => challengeAnswer(challenge([requirement({ payTo: SELLER, amount: "30000", asset: ASSET })]));

let https: Seller;
let http: Seller;
beforeAll(async () => {
  https = await startSeller(good);
  http = await startSeller(good, { https: false });
});
afterAll(async () => {
  await https?.close();
  await http?.close();
});

const probeWith = (
  answer: Seller["answer"],
  target: Partial<ProbeTarget> = {},
  options: { config?: Partial<ProbeConfig>; resolver?: Resolver; seller?: Seller } = {},
) => {
  const seller = options.seller ?? https;
  seller.answer = answer;
  const probe = new SellerProbe(
    { ...config, ...options.config },
    { network: "eip155:8453", asset: ASSET },
    options.resolver,
  );
  return probe.probe(
    { resource: `${seller.url}/sell`, method: "POST", priceAtomic: "30000", sellerPayTo: SELLER, ...target },
    "198.51.100.7",
  );
};

describe("the seller probe: what the seller answers", () => {
  it("passes a 402 with a matching exact requirement in PAYMENT-REQUIRED", async () => {
    expect(await probeWith(good)).toMatchObject({ ok: true, requirement: { payTo: SELLER, amount: "30000" } });
    expect(https.requests.at(-1)).toBe("POST /sell");
  });

  it("passes a challenge sent only as an x402 v2 JSON body, and uses the listing's method", async () => {
    const body = JSON.stringify(challenge([requirement({ payTo: SELLER, amount: "30000", asset: ASSET })]));
    expect(await probeWith(() => ({ status: 402, body }), { method: "GET" })).toMatchObject({ ok: true });
    expect(https.requests.at(-1)).toBe("GET /sell");
  });

  it("passes when any one of several requirements matches", async () => {
    const accepts = [
      requirement({ payTo: SELLER, amount: "30000", asset: ASSET, network: "eip155:1" }),
      requirement({ payTo: SELLER, amount: "30000", asset: ASSET }),
    ];
    expect(await probeWith(() => challengeAnswer(challenge(accepts)))).toMatchObject({ ok: true });
  });

  const failures: Array<[string, Seller["answer"], string, RegExp]> = [
    ["not 402", () => ({ status: 200, body: "{}" }), "not_402", /answered 200 without payment/],
    [
      "a redirect",
      () => ({ status: 302, headers: { location: "https://elsewhere.example/x" } }),
      "redirect",
      /302 to https:\/\/elsewhere.example\/x; redirects are not followed/,
    ],
    [
      "402 without a challenge",
      () => ({ status: 402, body: "pay me" }),
      "no_challenge",
      /without a PAYMENT-REQUIRED header or a JSON body/,
    ],
    [
      "an x402 v1 challenge",
      () => ({ status: 402, body: JSON.stringify({ x402Version: 1, accepts: [] }) }),
      "x402_v1_challenge",
      /v1/,
    ],
    [
      "a malformed header",
      () => ({ status: 402, headers: { "PAYMENT-REQUIRED": "%%%" } }),
      "malformed_challenge",
      /not base64/,
    ],
    [
      "another network only",
      () =>
        challengeAnswer(
          challenge([requirement({ payTo: SELLER, amount: "30000", asset: ASSET, network: "eip155:84532" })]),
        ),
      "no_exact_base_requirement",
      /offers exact on eip155:84532/,
    ],
    [
      "another payTo",
      () => challengeAnswer(challenge([requirement({ payTo: OTHER, amount: "30000", asset: ASSET })])),
      "pay_to_mismatch",
      new RegExp(`payTo is ${OTHER}, but sellerPayTo is ${SELLER}`),
    ],
    [
      "another token",
      () => challengeAnswer(challenge([requirement({ payTo: SELLER, amount: "30000", asset: OTHER })])),
      "asset_mismatch",
      /asset is/,
    ],
    [
      "another price",
      () => challengeAnswer(challenge([requirement({ payTo: SELLER, amount: "31000", asset: ASSET })])),
      "price_mismatch",
      /amount is 31000, but priceUsdc is 30000/,
    ],
    ["a huge body without a header", () => ({ status: 402, body: "x".repeat(100_000) }), "no_challenge", /longer than/],
  ];
  for (const [name, answer, code, detail] of failures) {
    it(`fails ${name}: ${code}`, async () => {
      const result = await probeWith(answer);
      expect(result).toMatchObject({ ok: false, code });
      expect((result as { detail: string }).detail).toMatch(detail);
    });
  }

  it("reports every mismatch of the requirement at once", async () => {
    const result = await probeWith(() =>
      challengeAnswer(challenge([requirement({ payTo: OTHER, amount: "1", asset: OTHER })])),
    );
    expect(result).toMatchObject({ ok: false, code: "pay_to_mismatch" });
    expect((result as { detail: string }).detail).toMatch(/payTo is .*; asset is .*; amount is 1/);
  });

  it("gives up after the timeout, before the seller answers", async () => {
    const started = Date.now();
    const result = await probeWith(() => ({ ...good(), delayMs: 3000 }), {}, { config: { timeoutMs: 300 } });
    expect(result).toMatchObject({ ok: false, code: "timeout" });
    // A bound on the wait, not a speed: the seller's answer would have come after 3,000 ms.
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("reports an unreachable seller and a TLS failure", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await probeWith(good, { resource: `https://127.0.0.1:${port}/x` })).toMatchObject({
      ok: false,
      code: "unreachable",
    });
    expect(await probeWith(good, { resource: `${http.url.replace("http:", "https:")}/x` })).toMatchObject({
      ok: false,
      code: "tls_error",
    });
  });
});

describe("the seller probe: where it may connect", () => {
  const resolvesTo =
    (...addresses: string[]): Resolver =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  const strict = { config: { allowLoopbackSellers: false } };

  it("refuses loopback unless the test setting allows it", async () => {
    expect(await probeWith(good, {}, strict)).toMatchObject({
      ok: false,
      code: "address_not_allowed",
      detail: expect.stringContaining("loopback"),
    });
  });

  const refused: Array<[string, string]> = [
    ["https://[::ffff:127.0.0.1]/x", "loopback"],
    ["https://169.254.169.254/latest/meta-data", "metadata"],
    ["https://2130706433/x", "loopback"],
    ["https://0x7f.1/x", "loopback"],
    ["https://10.0.0.8/x", "private"],
    ["https://100.64.1.1/x", "carrierGradeNat"],
    ["https://[fd00::1]/x", "uniqueLocal"],
    ["https://[fe80::1]/x", "linkLocal"],
    ["https://0.0.0.0/x", "unspecified"],
    ["https://224.0.0.1/x", "multicast"],
  ];
  for (const [resource, range] of refused) {
    it(`refuses ${resource} (${range}) without connecting`, async () => {
      const result = await probeWith(good, { resource }, strict);
      expect(result).toMatchObject({ ok: false, code: "address_not_allowed" });
      expect((result as { detail: string }).detail).toContain(range);
    });
  }

  it("refuses a host name that resolves to a private address, or to any refused one among several", async () => {
    expect(
      await probeWith(
        good,
        { resource: "https://internal.example/x" },
        { ...strict, resolver: resolvesTo("10.1.2.3") },
      ),
    ).toMatchObject({
      code: "address_not_allowed",
    });
    expect(
      await probeWith(
        good,
        { resource: "https://mixed.example/x" },
        { ...strict, resolver: resolvesTo("93.184.216.34", "127.0.0.1") },
      ),
    ).toMatchObject({
      code: "address_not_allowed",
      detail: expect.stringContaining("127.0.0.1"),
    });
  });

  it("reports a host that does not resolve", async () => {
    const nowhere: Resolver = async () => {
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    };
    expect(await probeWith(good, { resource: "https://nowhere.example/x" }, { resolver: nowhere })).toMatchObject({
      code: "host_unresolvable",
      detail: expect.stringContaining("ENOTFOUND"),
    });
  });

  it("connects to the address it checked, with the URL's host name as Host (DNS is not asked twice)", async () => {
    const port = new URL(https.url).port;
    let lookups = 0;
    const pinned: Resolver = async () => {
      lookups++;
      return [{ address: "127.0.0.1", family: 4 }];
    };
    let host: string | undefined;
    const result = await probeWith(
      (req) => ((host = req.headers.host), good()),
      { resource: `https://seller.invalid:${port}/x` },
      { resolver: pinned },
    );
    expect(result).toMatchObject({ ok: true });
    expect(host).toBe(`seller.invalid:${port}`);
    expect(lookups).toBe(1);
  });

  it("takes plain http only from loopback test sellers, never otherwise", async () => {
    expect(await probeWith(good, {}, { seller: http })).toMatchObject({ ok: true });
    expect(await probeWith(good, {}, { seller: http, config: { allowLoopbackSellers: false } })).toMatchObject({
      code: "not_https",
    });
    expect(
      await probeWith(good, { resource: "http://public.example/x" }, { resolver: resolvesTo("93.184.216.34") }),
    ).toMatchObject({ code: "not_https" });
  });
});

describe("the seller probe: rate limits", () => {
  it("limits probes per client and per target host, and says when to retry", async () => {
    const probe = new SellerProbe(
      { ...config, perClientPerMinute: 2, perHostPerMinute: 3 },
      { network: "eip155:8453", asset: ASSET },
    );
    https.answer = good;
    const target = { resource: `${https.url}/x`, method: "GET" as const, priceAtomic: "30000", sellerPayTo: SELLER };
    expect(await probe.probe(target, "client-a")).toMatchObject({ ok: true });
    expect(await probe.probe(target, "client-a")).toMatchObject({ ok: true });
    expect(await probe.probe(target, "client-a")).toMatchObject({
      ok: false,
      code: "rate_limited",
      scope: "client",
      retryAfterSeconds: 30,
    });
    expect(await probe.probe(target, "client-b")).toMatchObject({ ok: true });
    expect(await probe.probe(target, "client-c")).toMatchObject({ ok: false, code: "rate_limited", scope: "host" });
    // The refused host probe did not cost client-c its own allowance.
    expect(
      await probe.probe({ ...target, resource: target.resource.replace("127.0.0.1", "localhost") }, "client-c"),
    ).toMatchObject({ ok: true });
  });
});
