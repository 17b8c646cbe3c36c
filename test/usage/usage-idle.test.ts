// An idle usage indexer over a catalog with no sales (issue 26): a pass that follows a health change
// (the re-prober moves the catalog version with every batch it publishes) brings no listing and no
// tracked seller into the process, while a new listing is still picked up at the next pass. At
// 100k listings each of those reads held the request thread for seconds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { HealthStore } from "../../src/health/health-store.js";
import { createLogger } from "../../src/logger.js";
import { UsageStore } from "../../src/usage/usage-store.js";
import { createUsageChain } from "../../src/usage/chain-source.js";
import { UsageIndexer } from "../../src/usage/indexer.js";
import { testDatabaseKinds } from "../storage/databases.js";
import { listingInput, openStore, type StoreContext } from "../storage/fixtures.js";

const LISTINGS = 120;
const SCHEDULE = { rules: { failuresToUnhealthy: 1, successesToHealthy: 1 }, intervalMs: 15 * 60_000 };

/** How many rows (listings, sellers, coverage entries) a store answer brought into the process. */
function rowsIn(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map || value instanceof Set) return value.size;
  if (value && typeof value === "object" && "earliest" in value && value.earliest instanceof Map)
    return value.earliest.size;
  return 0;
}

/** The store, counting the rows each call returns. */
function counting(store: UsageStore): { store: UsageStore; rows: Map<string, number> } {
  const rows = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        rows.set(String(key), (rows.get(String(key)) ?? 0) + rowsIn(result));
        return result;
      };
    },
  });
  return { store: proxy, rows };
}

const total = (rows: Map<string, number>) => [...rows.values()].reduce((sum, n) => sum + n, 0);

describe.each(testDatabaseKinds())("an idle usage indexer ($kind)", (kind) => {
  let chain: LocalChain;
  let ctx: StoreContext;
  let usage: UsageStore;
  let ids: string[] = [];

  beforeAll(async () => {
    chain = await startLocalChain({ buyers: 0 });
    ctx = await openStore(kind);
    usage = new UsageStore(ctx.store.transactions);
    ids = [];
    for (let n = 0; n < LISTINGS; n++) ids.push((await ctx.store.createListing(listingInput(), new Date())).id);
  });
  afterAll(async () => {
    await ctx?.close();
    await chain?.stop();
  });

  const indexerOver = (store: UsageStore) =>
    new UsageIndexer({
      store,
      chain: createUsageChain({ asset: chain.asset, rpcUrl: chain.rpcUrl }),
      logger: createLogger("silent"),
      now: () => new Date(),
      marketplace: chain.marketplacePayTo,
      confirmations: 0,
      reorgWindowBlocks: 64,
      maxBlockRange: 2000,
      addressBatch: 200,
      catchUpRest: 0,
    });

  it("reads no listing and no seller again after a health change, and still tracks a new seller at the next pass", async () => {
    const { store, rows } = counting(usage);
    const indexer = indexerOver(store);
    await indexer.pass();
    // The first pass reads the catalog and starts tracking every seller.
    expect(total(rows)).toBeGreaterThanOrEqual(LISTINGS);

    // The re-prober publishes a failure: the catalog version moves, no seller or price does.
    const versionBefore = await usage.catalogVersion();
    await new HealthStore(ctx.store.transactions).recordProbe(
      ids[0]!,
      { ok: false, code: "timeout", latencyMs: 5_000 },
      new Date(),
      {
        ...SCHEDULE,
        fresh: false,
      },
    );
    expect(await usage.catalogVersion()).toBeGreaterThan(versionBefore);
    rows.clear();
    const report = await indexer.pass();
    expect(report.published).toBe(0);
    expect(total(rows), JSON.stringify(Object.fromEntries(rows))).toBeLessThan(LISTINGS / 10);
    // Not even the stamp summed up over the catalog: the change log holds only a health event.
    expect(rows.has("sellerBookStamp")).toBe(false);

    // A listing from a new seller: the next pass tracks it.
    const fresh = listingInput();
    await ctx.store.createListing(fresh, new Date());
    expect(await usage.sellerCoveredTo(fresh.sellerPayTo)).toBeNull();
    await indexer.pass();
    expect(await usage.sellerCoveredTo(fresh.sellerPayTo)).not.toBeNull();
  });
});
