// `npm run demo` (tools/demo/story.ts): the whole story on its own local chain, with real payments.
import { describe, expect, it } from "vitest";
import { runStory } from "../../tools/demo/story.js";

describe("npm run demo", () => {
  it("lists the demo seller, finds it, buys from it, and the balances move by the fee and the price", async () => {
    const lines: string[] = [];
    const result = await runStory((line) => lines.push(line));
    expect(result.answer).toMatchObject({ haiku: expect.any(Array) });
    expect(result.after.marketplace - result.before.marketplace).toBe(100000n);
    expect(result.after.seller - result.before.seller).toBe(20000n - 100000n);
    expect(result.after.buyer - result.before.buyer).toBe(-20000n);
    expect(lines.join("\n")).toContain("$ x402-market buy");
    // The sale, counted from the chain: one call, one payer.
    expect(result.usage).toMatchObject({
      l30DaysTotalCalls: 1,
      l30DaysUniquePayers: 1,
      l30DaysVolumeUsdc: "0.02",
      provenance: "settled-onchain",
    });
  }, 60_000);
});
