// The model's worker and the backfill's pacing: the thread stops when idle and starts again on the
// next text (the same vectors as before), and the backfill works only its duty share of the time
// (SEARCH_BACKFILL_DUTY), 0 meaning not at all.
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddingPool } from "../../src/search/embedding-pool.js";
import { DEFAULT_BACKFILL_DUTY, loadConfig } from "../../src/config.js";
import { backfillPauseMs } from "../../src/search/service.js";
import { problemsOf } from "../support/config.js";

const until = async (done: () => boolean, timeoutMs = 60_000) => {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe("the model's worker", () => {
  const pool = new EmbeddingPool({ threads: 1, idleMs: 300 });
  afterAll(() => pool.close());

  it("starts on the first text, stops when idle, and starts again with the same answers", async () => {
    expect(pool.threads).toBe(0);
    const [first] = await pool.embed(["hourly weather forecast for a city"]);
    expect(first).toHaveLength(512);
    await until(() => pool.threads === 0);
    const [again] = await pool.embed(["hourly weather forecast for a city"]);
    expect(pool.threads).toBe(1);
    expect(Array.from(again!)).toEqual(Array.from(first!));
  }, 120_000);
});

describe("the backfill's duty", () => {
  it("pauses after each batch so that it works its share of the time", () => {
    expect(backfillPauseMs(100, 1)).toBe(0);
    expect(backfillPauseMs(100, 0.5)).toBe(100);
    expect(backfillPauseMs(100, 0.25)).toBe(300);
  });

  it("reads SEARCH_BACKFILL_DUTY from 0 to 1, and refuses anything else", () => {
    const duty = (value: string | undefined) =>
      loadConfig(value === undefined ? {} : { SEARCH_BACKFILL_DUTY: value }).searchBackfillDuty;
    expect(duty(undefined)).toBe(DEFAULT_BACKFILL_DUTY);
    expect(duty("")).toBe(DEFAULT_BACKFILL_DUTY);
    expect(duty("0")).toBe(0);
    expect(duty("0.1")).toBe(0.1);
    expect(duty("1")).toBe(1);
    for (const bad of ["-0.1", "1.5", "half", "NaN"])
      expect(problemsOf({ SEARCH_BACKFILL_DUTY: bad })).toEqual([expect.stringMatching(/^SEARCH_BACKFILL_DUTY/)]);
  });
});
