// What acts for a buyer uses healthy listings unless told otherwise: the CLI's buy refuses an
// unhealthy or drifted listing (saying why) without --force, list_market takes `health`, the buy
// playbook's catalog read asks for health=healthy, and the status document counts by health.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";
import { runCli } from "../support/cli.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { DOWN, paying, startHealthSeller, type HealthSeller } from "./support.js";

const ROUND_MS = 20 * 60_000;

describe("buyers see healthy listings unless told otherwise", () => {
  let market: CatalogServer;
  let seller: HealthSeller;
  let client: Client;
  const ids: Record<"healthy" | "down" | "drifted", string> = { healthy: "", down: "", drifted: "" };

  beforeAll(async () => {
    market = await startCatalogServer(databaseKinds[0]!, {
      ALLOW_LOOPBACK_SELLERS: "true",
      HEALTH_HOST_GAP_MS: "0",
      PROBE_TIMEOUT_MS: "1000",
    });
    const asset = market.server.contexts.listings.market.asset;
    seller = await startHealthSeller((request) => {
      if (request.url === "/down") return DOWN();
      if (request.url === "/drifted") return paying(asset, "90000")();
      return paying(asset)();
    });
    for (const name of ["healthy", "down", "drifted"] as const) {
      const listing = await market.list({
        resource: `${seller.url}/${name}`,
        method: "GET",
        priceUsdc: "0.03",
        sellerPayTo: SELLER_PAY_TO,
        description: `Weather forecast, the ${name} one`,
      });
      ids[name] = listing.id;
    }
    for (let round = 0; round < 3; round++) {
      await market.server.contexts.listings.health.prober.runRound();
      market.clock.advance(ROUND_MS);
    }
    client = new Client({ name: "health-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${market.server.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await market?.close();
    await seller?.close();
  });

  const buy = (id: string, ...extra: string[]) =>
    runCli(["buy", id, "--url", market.server.url, "--max", "0.05", "--yes", ...extra], {
      X402_PRIVATE_KEY: generatePrivateKey(),
    });

  it("the CLI's buy refuses an unhealthy or a drifted listing and says why, and tries anyway with --force", async () => {
    const visitsBefore = seller.visits.length;
    const [down, drifted] = await Promise.all([buy(ids.down), buy(ids.drifted)]);
    expect(down.code, down.stderr).toBe(3);
    expect(down.stderr).toContain(
      "the listing is unhealthy: its endpoint failed the marketplace's last re-probes (last probe: not_402)",
    );
    expect(down.stderr).toContain("--force");
    expect(drifted.code, drifted.stderr).toBe(3);
    expect(drifted.stderr).toContain("the listing is drifted");
    expect(drifted.stderr).toContain("price_mismatch");
    expect(seller.visits.length).toBe(visitsBefore);

    const forced = await buy(ids.down, "--force");
    expect(forced.stderr).toContain("buying anyway (--force): the listing is unhealthy");
    expect(seller.visits.length).toBeGreaterThan(visitsBefore);
  });

  it("list_market filters by health (default any, each item's health shown)", async () => {
    const call = async (args: Record<string, unknown>) => {
      const result = (await client.callTool({ name: "list_market", arguments: args })) as CallToolResult;
      const document = result.structuredContent as {
        items: Array<{ metadata: { listingId: string; health: { status: string } } }>;
      };
      return {
        ids: document.items.map((item) => item.metadata.listingId),
        text: (result.content[0] as { text: string }).text,
      };
    };
    const all = await call({ query: "weather" });
    expect(all.ids.sort()).toEqual(Object.values(ids).sort());
    expect(all.text).toContain("health unhealthy (not_402)");
    expect((await call({ query: "weather", health: "healthy" })).ids).toEqual([ids.healthy]);
    expect((await call({ query: "weather", health: "drifted" })).ids).toEqual([ids.drifted]);
  });

  it("the buy playbook's catalog read asks for healthy listings, and finds only those", async () => {
    const playbook = (await market.json<{ steps: Array<{ url?: string }> }>("/buy.json")).body;
    const url = new URL(playbook.steps[0]!.url!);
    expect(url.searchParams.get("health")).toBe("healthy");
    const found = await market.json<{ items: Array<{ metadata: { listingId: string } }> }>(
      `${url.pathname}?health=healthy&query=weather`,
    );
    expect(found.body.items.map((item) => item.metadata.listingId)).toEqual([ids.healthy]);
  });

  it("the status document counts the listings by health", async () => {
    const status = await market.json<{ listingsByHealth: Record<string, number> }>("/status.json");
    expect(status.body.listingsByHealth).toEqual({ healthy: 1, unhealthy: 1, drifted: 1, unknown: 0 });
  });
});
