// The operating variables: each bad value is refused at start, naming the variable, and a secret
// (the metrics token, a Redis URL with its password) is never echoed.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { problemsOf } from "../support/config.js";

describe("operating configuration", () => {
  it("defaults to an open /metrics, every request logged, per-instance limits", () => {
    expect(loadConfig({}).ops).toEqual({
      metricsToken: null,
      accessLogSample: 1,
      redisUrl: null,
      redisKeyPrefix: "x402-market:",
    });
  });

  it("reads each variable", () => {
    const ops = loadConfig({
      METRICS_TOKEN: "a-long-enough-token-123",
      ACCESS_LOG_SAMPLE: "0.25",
      REDIS_URL: "rediss://:secret@redis.internal:6380/2",
      REDIS_KEY_PREFIX: "market-eu:",
    }).ops;
    expect(ops).toEqual({
      metricsToken: "a-long-enough-token-123",
      accessLogSample: 0.25,
      redisUrl: "rediss://:secret@redis.internal:6380/2",
      redisKeyPrefix: "market-eu:",
    });
    expect(loadConfig({ ACCESS_LOG_SAMPLE: "0" }).ops.accessLogSample).toBe(0);
  });

  it.each([
    [{ METRICS_TOKEN: "short" }, /^METRICS_TOKEN must be 16 to 256 printable characters/],
    [{ METRICS_TOKEN: "has spaces in the middle of it" }, /^METRICS_TOKEN /],
    [{ ACCESS_LOG_SAMPLE: "2" }, /^ACCESS_LOG_SAMPLE must be a number from 0 to 1/],
    [{ ACCESS_LOG_SAMPLE: "half" }, /^ACCESS_LOG_SAMPLE /],
    [{ REDIS_URL: "http://:hunter2@cache:6379" }, /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ REDIS_KEY_PREFIX: "spaces are bad" }, /^REDIS_KEY_PREFIX must be/],
  ])("refuses %o, naming the variable", (env, problem) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it("never echoes a secret it refuses", () => {
    expect(problemsOf({ METRICS_TOKEN: "short secret" }).join()).not.toContain("short secret");
    expect(problemsOf({ REDIS_URL: "http://:hunter2@cache:6379" }).join()).not.toContain("hunter2");
  });
});
