import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { BASE_USDC } from "../src/constants.js";
import { problemsOf } from "./support/config.js";

describe("configuration from the environment", () => {
  it("has defaults that serve on 8402 with the embedded SQLite", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8402,
      host: "127.0.0.1",
      publicBaseUrl: "http://localhost:8402",
      databaseUrl: "file:./data/marketplace.db",
      asset: BASE_USDC,
      network: "eip155:8453",
      production: false,
      marketplacePayTo: null,
    });
  });

  it("reads every documented variable", () => {
    const config = loadConfig({
      PORT: "9000",
      HOST: "0.0.0.0",
      PUBLIC_BASE_URL: "https://market.example.com/",
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/test",
      MARKETPLACE_PAY_TO: "0x2222222222222222222222222222222222222222",
      LOG_LEVEL: "warn",
      MAX_BODY_BYTES: "2048",
      LOAD_SEED: "false",
    });
    expect(config).toMatchObject({
      port: 9000,
      host: "0.0.0.0",
      publicBaseUrl: "https://market.example.com",
      databaseUrl: "postgresql://postgres@127.0.0.1:5432/test",
      marketplacePayTo: "0x2222222222222222222222222222222222222222",
      logLevel: "warn",
      maxBodyBytes: 2048,
      loadSeed: false,
    });
  });

  it("reports every bad value at once, naming the variable", () => {
    const problems = problemsOf({
      PORT: "eighty",
      PUBLIC_BASE_URL: "market.example.com",
      DATABASE_URL: "mysql://x",
      MARKETPLACE_PAY_TO: "0x12",
      LOG_LEVEL: "loud",
      LOAD_SEED: "maybe",
    });
    expect(problems).toHaveLength(6);
    for (const name of ["PORT", "PUBLIC_BASE_URL", "DATABASE_URL", "MARKETPLACE_PAY_TO", "LOG_LEVEL", "LOAD_SEED"]) {
      expect(problems.some((problem) => problem.startsWith(name))).toBe(true);
    }
  });

  it("refuses a base URL with a path, and production without a pay-to address", () => {
    expect(problemsOf({ PUBLIC_BASE_URL: "https://example.com/market" })[0]).toContain("origin");
    expect(problemsOf({ NODE_ENV: "production" })).toContain(
      "MARKETPLACE_PAY_TO is required in production (NODE_ENV=production)",
    );
  });
});
