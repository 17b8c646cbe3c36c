// The uncached-work gate's rest (src/workers/work-gate.ts): light traffic never waits for the rest it
// owes, a flood is paced at its share. maxWaitMs 0 turns "would have to wait" into an immediate 503.
import { describe, expect, it } from "vitest";
import { isBusy, MAX_UNIT_BUSY_MS, REST_ALLOWANCE_MS, WorkGate } from "../../src/workers/work-gate.js";

/** Keeps the request thread busy for `ms` (what an uncached page or search costs it). */
const busyFor = async (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

const gate = () => new WorkGate({ concurrency: 1, maxWaiting: 0, maxWaitMs: 0, share: 0.5 });

describe("the uncached-work gate", () => {
  it("starts the next unit at once when the rest owed is within the allowance (a long first page)", async () => {
    const work = gate();
    await work.run(() => busyFor(REST_ALLOWANCE_MS / 3));
    await expect(work.run(async () => "answered")).resolves.toBe("answered");
  });

  it("counts at most MAX_UNIT_BUSY_MS of a unit: one long unit alone does not make the next wait", async () => {
    const work = gate();
    await work.run(() => busyFor(MAX_UNIT_BUSY_MS * 4));
    await expect(work.run(async () => "answered")).resolves.toBe("answered");
  });

  it("still refuses a unit that would have to wait out a rest beyond the allowance (a flood)", async () => {
    const work = gate();
    // Each owes its 100 ms again: the third leaves 300 ms owed, past the 250 ms allowance.
    for (let unit = 0; unit < 3; unit++) await work.run(() => busyFor(MAX_UNIT_BUSY_MS));
    const refused = await work.run(async () => "answered").catch((error: unknown) => error);
    expect(isBusy(refused)).toBe(true);
  });

  it("paces back-to-back units at its share once the allowance is spent", async () => {
    const work = gate();
    let answered = 0;
    let refused = 0;
    for (let unit = 0; unit < 20; unit++) {
      try {
        await work.run(() => busyFor(REST_ALLOWANCE_MS / 5));
        answered++;
      } catch (error) {
        if (!isBusy(error)) throw error;
        refused++;
      }
    }
    // Each unit owes its own length again: the allowance covers about five, the rest are refused.
    expect(answered).toBeLessThan(10);
    expect(refused).toBeGreaterThan(10);
  });
});
