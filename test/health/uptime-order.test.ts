// sort=uptime follows what the re-prober publishes: each published health summary's 7-day uptime is
// written to the listing's sort column in the same statement, so a probe that changes it moves the
// listing in the order at once; a listing never probed has none and comes last.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthStore } from "../../src/health/health-store.js";
import type { HealthRules } from "../../src/health/health-rules.js";
import { catalogView } from "../../src/storage/catalog/catalog-filters.js";
import { testDatabaseKinds } from "../storage/databases.js";
import { at, listingInput, openStore, type StoreContext } from "../storage/fixtures.js";

const RULES: HealthRules = { failuresToUnhealthy: 3, successesToHealthy: 2 };
const SCHEDULE = { rules: RULES, intervalMs: 15 * 60_000 };
const OK = { ok: true, latencyMs: 40 } as const;
const DOWN = { ok: false, code: "timeout", latencyMs: 5_000 } as const;

describe.each(testDatabaseKinds())("the uptime order follows published health on $kind", (kind) => {
  let ctx: StoreContext;
  let health: HealthStore;
  beforeAll(async () => {
    ctx = await openStore(kind);
    health = new HealthStore(ctx.store.transactions);
  });
  afterAll(() => ctx?.close());

  const view = catalogView({ sort: "uptime" }, false)!;
  const order = async (now: Date) =>
    (await ctx.store.catalog.page(view, { limit: 10, offset: 0, now })).rows.map((row) => row.id);
  const shown = async (id: string) => {
    const row = await ctx.db.prisma.listing.findUniqueOrThrow({ where: { id } });
    return { column: row.uptime7d, summary: (row.healthSummary as { uptime7d?: number } | null)?.uptime7d };
  };

  it("moves a listing when a probe changes its 7-day uptime; one never probed comes last", async () => {
    const steady = (await ctx.store.createListing(listingInput(), at(0))).id;
    const shaky = (await ctx.store.createListing(listingInput(), at(1))).id;
    const unprobed = (await ctx.store.createListing(listingInput(), at(2))).id;
    await health.recordProbe(steady, OK, at(3), { ...SCHEDULE, fresh: true });
    await health.recordProbe(shaky, OK, at(3), { ...SCHEDULE, fresh: true });
    await health.recordProbe(shaky, DOWN, at(4), { ...SCHEDULE, fresh: false });
    expect(await shown(steady)).toEqual({ column: 1, summary: 1 });
    expect(await shown(shaky)).toEqual({ column: 0.5, summary: 0.5 });
    expect(await shown(unprobed)).toEqual({ column: 0, summary: undefined });
    expect(await order(at(5))).toEqual([steady, shaky, unprobed]);

    // Two failures bring the steady one to 1/3, below the shaky one's 1/2.
    await health.recordProbe(steady, DOWN, at(6), { ...SCHEDULE, fresh: false });
    await health.recordProbe(steady, DOWN, at(7), { ...SCHEDULE, fresh: false });
    expect(await shown(steady)).toEqual({ column: 0.3333, summary: 0.3333 });
    expect(await order(at(8))).toEqual([shaky, steady, unprobed]);

    // A first probe puts the unprobed one, now at 100%, first.
    await health.recordProbe(unprobed, OK, at(9), { ...SCHEDULE, fresh: true });
    expect(await order(at(10))).toEqual([unprobed, shaky, steady]);
  });
});
