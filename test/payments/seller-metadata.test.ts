// The service metadata a seller's own 402 declares, end to end: a paid listing (on anvil, paid by the
// SDK's stock buyer) stores what the Bazaar rules keep, and its catalog item shows it; hostile values
// are dropped or trimmed, never a reason to refuse the listing; a renewal replaces them.
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { PaymentRequired } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { testDatabaseKinds } from "../storage/databases.js";
import { PAID_MARKET_LIMITS, SELLER_PRICE, useMarketServer, usePaidMarket } from "../support/paid-market.js";
import { payingFetch } from "../support/payments.js";
import {
  challenge,
  challengeAnswer,
  requirement,
  type SellerAnswer,
  SELLER_PAY_TO,
  summariseListing,
} from "../support/sellers.js";

// PROBE_MAX_BYTES at its ceiling (1 MiB), so a 1 MB extensions.bazaar in a 402 body reaches the sanitiser.
const ENV = { ...PAID_MARKET_LIMITS, PROBE_MAX_BYTES: String(1024 * 1024) };

const weatherBazaar = () =>
  declareDiscoveryExtension({
    method: "POST",
    bodyType: "json",
    input: { city: "San Francisco" },
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    output: { example: { city: "San Francisco", temperature: 60 } },
  } as Parameters<typeof declareDiscoveryExtension>[0]).bazaar as unknown as {
    info: Record<string, unknown>;
    schema: Record<string, unknown>;
  };

interface Item {
  resource: string;
  mimeType: string;
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
  extensions?: { bazaar?: unknown };
  metadata: Record<string, unknown>;
}

/** What the seller answers, by path; each test lists its own path. */
const answers = new Map<string, () => SellerAnswer>();

const market = usePaidMarket({
  buyers: 2,
  answer: (request) => (answers.get(request.url ?? "") ?? (() => ({ status: 404 })))(),
});

/** The seller's challenge at `path`, paying SELLER_PAY_TO 0.03, with `resource` and `extensions` added. */
function declaring(
  path: string,
  resource: Record<string, unknown>,
  extensions?: Record<string, unknown>,
): PaymentRequired {
  const base = challenge(
    [requirement({ payTo: SELLER_PAY_TO, amount: SELLER_PRICE, asset: market.chain.asset })],
    `${market.seller.url}${path}`,
  );
  return { ...base, resource: { ...base.resource, ...resource }, ...(extensions && { extensions }) } as PaymentRequired;
}

describe.each(testDatabaseKinds())("on $kind", (databaseKind) => {
  const site = useMarketServer(market, databaseKind, ENV);

  const resourceAt = (path: string) => `${market.seller.url}${path}`;

  async function list(path: string, buyer = 0) {
    const response = await payingFetch(market.chain, market.chain.buyers[buyer]!.privateKey)(
      `${site.server.url}/listings`,
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(summariseListing(market.seller, { resource: resourceAt(path), method: "POST" })),
      },
    );
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as { id: string; renewed: boolean };
  }

  async function itemAt(path: string): Promise<Item> {
    const response = await site.server.fetch("/discovery/resources?limit=100");
    expect(response.status).toBe(200);
    const { items } = (await response.json()) as { items: Item[] };
    const item = items.find((candidate) => candidate.resource === resourceAt(path));
    expect(item, `no catalog item for ${path}`).toBeDefined();
    return item!;
  }

  it("shows an honest seller's name, tags, icon, media type and extensions.bazaar on its catalog item", async () => {
    const bazaar = weatherBazaar();
    answers.set("/honest", () =>
      challengeAnswer(
        declaring(
          "/honest",
          {
            mimeType: "text/csv",
            serviceName: "Example Weather",
            tags: ["weather", "forecast"],
            iconUrl: "https://cdn.example.com/icon.png",
          },
          { bazaar },
        ),
      ),
    );
    await list("/honest");
    const item = await itemAt("/honest");
    expect(item).toMatchObject({
      mimeType: "text/csv",
      serviceName: "Example Weather",
      tags: ["weather", "forecast"],
      iconUrl: "https://cdn.example.com/icon.png",
    });
    expect(item.extensions).toEqual({ bazaar });
  });

  it("lists a hostile seller but drops or trims what breaks the Bazaar rules", async () => {
    const bazaar = weatherBazaar();
    (bazaar.schema.properties as Record<string, unknown>).output = { $ref: "https://evil.example/schema.json" };
    const tags = ["AI", "ai", "Ai", "search", "SEARCH", "news", "x".repeat(33), "maps", "weather"];
    answers.set("/hostile", () =>
      challengeAnswer(
        declaring("/hostile", { serviceName: "N".repeat(100), tags, iconUrl: "http://127.0.0.1/x.png" }, { bazaar }),
      ),
    );
    const probes = market.seller.requests.length;
    await list("/hostile");
    expect(market.seller.requests.length).toBeGreaterThan(probes);
    const item = await itemAt("/hostile");
    expect(item.tags).toEqual(["AI", "search", "news", "maps", "weather"]);
    expect(item.mimeType).toBe("application/json");
    for (const dropped of ["serviceName", "iconUrl", "extensions"]) expect(item, dropped).not.toHaveProperty(dropped);
  });

  it("renews with what the seller declares now: a javascript: icon and a 1 MB bazaar in a 402 body are dropped, the old values replaced", async () => {
    answers.set("/renewed", () =>
      challengeAnswer(
        declaring(
          "/renewed",
          { serviceName: "First Name", tags: ["old"], iconUrl: "https://cdn.example.com/old.png" },
          { bazaar: weatherBazaar() },
        ),
      ),
    );
    const first = await list("/renewed", 1);
    expect(await itemAt("/renewed")).toMatchObject({
      serviceName: "First Name",
      tags: ["old"],
      extensions: { bazaar: expect.any(Object) },
    });

    const huge = weatherBazaar();
    (huge.info.output as Record<string, unknown>).example = { blob: "x".repeat(1_000_000) };
    const body = JSON.stringify(
      declaring("/renewed", { serviceName: "Second Name", iconUrl: "javascript:alert(1)" }, { bazaar: huge }),
    );
    expect(body.length).toBeGreaterThan(1_000_000);
    answers.set("/renewed", () => ({ status: 402, headers: { "content-type": "application/json" }, body }));
    const renewal = await list("/renewed", 1);
    expect(renewal).toMatchObject({ id: first.id, renewed: true });
    const item = await itemAt("/renewed");
    expect(item.serviceName).toBe("Second Name");
    for (const dropped of ["tags", "iconUrl", "extensions"]) expect(item, dropped).not.toHaveProperty(dropped);
  });

  it("drops an icon URL with userinfo", async () => {
    answers.set("/userinfo", () =>
      challengeAnswer(
        declaring("/userinfo", { serviceName: "Userinfo", iconUrl: "https://user:pass@cdn.example.com/i.png" }),
      ),
    );
    await list("/userinfo");
    const item = await itemAt("/userinfo");
    expect(item.serviceName).toBe("Userinfo");
    expect(item).not.toHaveProperty("iconUrl");
  });

  it("gives a seller that declares nothing no extensions and mimeType application/json", async () => {
    answers.set("/plain", () => challengeAnswer(declaring("/plain", {})));
    await list("/plain");
    const item = await itemAt("/plain");
    expect(item.mimeType).toBe("application/json");
    for (const absent of ["serviceName", "tags", "iconUrl", "extensions"])
      expect(item, absent).not.toHaveProperty(absent);
  });

  it("the dry run passes a hostile seller and says what would be stored and what was dropped", async () => {
    answers.set("/dry", () =>
      challengeAnswer(declaring("/dry", { serviceName: "Dry Run", tags: ["a", "A"], iconUrl: "javascript:alert(1)" })),
    );
    const response = await site.server.fetch("/listings/validate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(summariseListing(market.seller, { resource: resourceAt("/dry"), method: "POST" })),
    });
    expect(response.status).toBe(200);
    const report = (await response.json()) as { checks: Array<{ name: string; ok: boolean; reason: string }> };
    const probe = report.checks.find((check) => check.name === "seller-probe")!;
    expect(probe.ok).toBe(true);
    expect(probe.reason).toContain('service metadata kept: serviceName "Dry Run"; tags "a"');
    expect(probe.reason).toContain("dropped: tags: kept 1 of 2");
    expect(probe.reason).toContain("iconUrl: not an http(s) URL");
  });
});
