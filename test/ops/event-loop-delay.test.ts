// The event loop's delay in /metrics (nodejs_eventloop_lag_*_seconds), sampled every 100 ms instead
// of every 10 ms so an idle instance is not woken 100 times a second (issue 26): a stall still shows
// in the maximum, and a quiet loop reads as quiet (the sampling interval is not counted as delay).
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { collectProcessMetrics, EVENT_LOOP_SAMPLE_MS, registry } from "../../src/metrics.js";
import { parseMetrics, sampleSum } from "../support/metrics.js";

const scrape = async () => parseMetrics(await registry.metrics());

/** Holds the thread as a long synchronous job would. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("event-loop delay in /metrics", () => {
  it("shows a stall in the maximum, and the median of a quiet loop below the sampling interval", async () => {
    collectProcessMetrics();
    await scrape(); // starts the figures afresh
    await sleep(EVENT_LOOP_SAMPLE_MS * 3);
    block(EVENT_LOOP_SAMPLE_MS * 6);
    await sleep(EVENT_LOOP_SAMPLE_MS * 2);
    const stalled = await scrape();
    // A stall reads at most one sampling interval short.
    expect(sampleSum(stalled, "nodejs_eventloop_lag_max_seconds")).toBeGreaterThanOrEqual(
      (EVENT_LOOP_SAMPLE_MS * 4) / 1000,
    );

    await sleep(EVENT_LOOP_SAMPLE_MS * 10);
    const quiet = await scrape();
    expect(sampleSum(quiet, "nodejs_eventloop_lag_p50_seconds")).toBeLessThan(EVENT_LOOP_SAMPLE_MS / 1000);
    expect(sampleSum(quiet, "nodejs_eventloop_lag_max_seconds")).toBeLessThan(
      sampleSum(stalled, "nodejs_eventloop_lag_max_seconds"),
    );
  });
});
