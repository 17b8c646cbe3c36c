// A probe outside the rounds (a refresh anyone may ask for, an owner's update) is a health sample
// counted like a round's: it cannot make an unhealthy listing healthy in one pass, and a failing one
// counts too. The listing-time probe alone starts afresh.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthStore } from "../../src/health/health-store.js";
import type { HealthRules } from "../../src/health/health-rules.js";
import { testDatabaseKinds } from "../storage/databases.js";
import { at, listingInput, openStore, type StoreContext } from "../storage/fixtures.js";

/** The defaults (HEALTH_FAILURES_TO_UNHEALTHY, HEALTH_SUCCESSES_TO_HEALTHY). */
const RULES: HealthRules = { failuresToUnhealthy: 3, successesToHealthy: 2 };
const SCHEDULE = { rules: RULES, intervalMs: 15 * 60_000 };

describe.each(testDatabaseKinds())("probes outside the rounds on $kind", (kind) => {
  let ctx: StoreContext;
  let health: HealthStore;
  beforeAll(async () => {
    ctx = await openStore(kind);
    health = new HealthStore(ctx.store.transactions);
  });
  afterAll(() => ctx?.close());

  const status = async (id: string) => (await ctx.db.prisma.listing.findUniqueOrThrow({ where: { id } })).healthStatus;

  it("keeps the successes-in-a-row rule for a refresh, and counts a failing one", async () => {
    const { id } = await ctx.store.createListing(listingInput(), at(0));
    await health.recordProbe(id, { ok: true, latencyMs: 40 }, at(1), { ...SCHEDULE, fresh: true });
    expect(await status(id)).toBe("healthy");
    for (let i = 2; i < 2 + RULES.failuresToUnhealthy; i++)
      await health.recordProbe(id, { ok: false, code: "timeout", latencyMs: 5_000 }, at(i), {
        ...SCHEDULE,
        fresh: false,
      });
    expect(await status(id)).toBe("unhealthy");
    await health.recordProbe(id, { ok: true, latencyMs: 40 }, at(10), { ...SCHEDULE, fresh: false });
    expect(await status(id)).toBe("unhealthy");
    await health.recordProbe(id, { ok: true, latencyMs: 40 }, at(11), { ...SCHEDULE, fresh: false });
    expect(await status(id)).toBe("healthy");
    await health.recordProbe(id, { ok: false, code: "price_mismatch", latencyMs: 40 }, at(12), {
      ...SCHEDULE,
      fresh: false,
    });
    expect(await status(id)).toBe("drifted");
  });

  it("starts afresh from the listing-time probe: the terms just paid for are what it matched", async () => {
    const { id } = await ctx.store.createListing(listingInput(), at(0));
    for (let i = 1; i <= RULES.failuresToUnhealthy; i++)
      await health.recordProbe(id, { ok: false, code: "unreachable", latencyMs: 10 }, at(i), {
        ...SCHEDULE,
        fresh: false,
      });
    expect(await status(id)).toBe("unhealthy");
    await health.recordProbe(id, { ok: true, latencyMs: 40 }, at(20), { ...SCHEDULE, fresh: true });
    expect(await status(id)).toBe("healthy");
  });
});
