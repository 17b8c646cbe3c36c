import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { problemsOf } from "../support/config.js";

const PAY_TO = "0x2222222222222222222222222222222222222222";
const KEY = `0x${"ab".repeat(32)}`;

describe("the payments configuration", () => {
  it("defaults to the embedded local chain in development, with loopback sellers allowed", () => {
    const config = loadConfig({});
    expect(config.payments).toMatchObject({
      mode: "embedded",
      facilitatorUrl: null,
      tokenName: "USD Coin",
      tokenVersion: "2",
      reconcileIntervalMs: 60_000,
      devChainFile: ".dev/chain.json",
    });
    expect(config.probe).toEqual({
      timeoutMs: 5000,
      maxResponseBytes: 65536,
      perClientPerMinute: 20,
      perHostPerMinute: 30,
      allowLoopbackSellers: true,
    });
  });

  it("reads a remote facilitator with auth headers, and self-settlement", () => {
    const remote = loadConfig({
      MARKETPLACE_PAY_TO: PAY_TO,
      FACILITATOR_URL: "https://facilitator.example.com/",
      FACILITATOR_AUTH_HEADERS: '{"Authorization":"Bearer t","X-Api-Key":"k"}',
      FACILITATOR_TIMEOUT_MS: "5000",
      CHAIN_RPC_URL: "https://rpc.example.com",
      RECONCILE_INTERVAL_SECONDS: "30",
    });
    expect(remote.payments).toMatchObject({
      mode: "remote",
      facilitatorUrl: "https://facilitator.example.com",
      facilitatorAuthHeaders: { Authorization: "Bearer t", "X-Api-Key": "k" },
      facilitatorTimeoutMs: 5000,
      chainRpcUrl: "https://rpc.example.com",
      reconcileIntervalMs: 30_000,
    });
    expect(remote.probe.allowLoopbackSellers).toBe(false);
    const self = loadConfig({
      MARKETPLACE_PAY_TO: PAY_TO,
      SETTLEMENT_RPC_URL: "https://rpc.example.com",
      SETTLER_PRIVATE_KEY: KEY,
    });
    expect(self.payments).toMatchObject({
      mode: "self",
      settlementRpcUrl: "https://rpc.example.com",
      settlerPrivateKey: KEY,
      chainRpcUrl: "https://rpc.example.com",
    });
  });

  it("refuses to start in production with an incomplete payment configuration, naming what is missing", () => {
    const problems = problemsOf({ NODE_ENV: "production" });
    expect(problems).toContain("MARKETPLACE_PAY_TO is required in production (NODE_ENV=production)");
    expect(problems.some((problem) => problem.startsWith("a facilitator is required in production"))).toBe(true);

    expect(
      problemsOf({
        NODE_ENV: "production",
        MARKETPLACE_PAY_TO: PAY_TO,
        FACILITATOR_URL: "http://facilitator.example.com",
      }),
    ).toEqual([
      "FACILITATOR_URL must be https in production",
      expect.stringContaining("CHAIN_RPC_URL is required in production"),
    ]);
    // Activation rests on the chain's evidence: turning the reconciler off does not remove the need for a node.
    expect(
      problemsOf({
        NODE_ENV: "production",
        MARKETPLACE_PAY_TO: PAY_TO,
        FACILITATOR_URL: "https://f.example.com",
        RECONCILE_INTERVAL_SECONDS: "0",
      }),
    ).toEqual([expect.stringContaining("CHAIN_RPC_URL is required in production")]);
    expect(
      problemsOf({
        NODE_ENV: "production",
        MARKETPLACE_PAY_TO: PAY_TO,
        FACILITATOR_URL: "https://f.example.com",
        CHAIN_RPC_URL: "https://rpc.example.com",
      }),
    ).toEqual([]);
    expect(
      problemsOf({
        NODE_ENV: "production",
        MARKETPLACE_PAY_TO: PAY_TO,
        SETTLEMENT_RPC_URL: "https://rpc.example.com",
        SETTLER_PRIVATE_KEY: KEY,
      }),
    ).toEqual([]);
    expect(
      problemsOf({
        NODE_ENV: "production",
        MARKETPLACE_PAY_TO: PAY_TO,
        SETTLEMENT_RPC_URL: "https://rpc.example.com",
        SETTLER_PRIVATE_KEY: KEY,
        ASSET_ADDRESS: PAY_TO,
      }),
    ).toEqual([expect.stringContaining("TOKEN_NAME and TOKEN_VERSION are required in production")]);
  });

  it("never allows loopback sellers in production", () => {
    const problems = problemsOf({
      NODE_ENV: "production",
      MARKETPLACE_PAY_TO: PAY_TO,
      SETTLEMENT_RPC_URL: "https://rpc.example.com",
      SETTLER_PRIVATE_KEY: KEY,
      ALLOW_LOOPBACK_SELLERS: "true",
    });
    expect(problems).toEqual([expect.stringContaining("ALLOW_LOOPBACK_SELLERS must not be true in production")]);
  });

  it("reports every bad payment variable, never echoing the key", () => {
    const problems = problemsOf({
      FACILITATOR_URL: "https://f.example.com",
      SETTLEMENT_RPC_URL: "rpc",
      SETTLER_PRIVATE_KEY: "0xsecret",
      FACILITATOR_AUTH_HEADERS: '["Bearer"]',
      PROBE_TIMEOUT_MS: "10",
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining("SETTLEMENT_RPC_URL must be an absolute http(s) URL"),
        "SETTLER_PRIVATE_KEY must be 0x and 64 hex digits (the value is not shown)",
        expect.stringContaining("FACILITATOR_AUTH_HEADERS must be a JSON object"),
        expect.stringContaining("choose one facilitator"),
        expect.stringContaining("PROBE_TIMEOUT_MS must be a whole number"),
      ]),
    );
    expect(problems.join("\n")).not.toContain("0xsecret");
    expect(problemsOf({ SETTLER_PRIVATE_KEY: KEY, MARKETPLACE_PAY_TO: PAY_TO })).toEqual([
      "SETTLEMENT_RPC_URL is required with SETTLER_PRIVATE_KEY (self-settlement)",
    ]);
    expect(problemsOf({ FACILITATOR_URL: "https://f.example.com" })).toEqual([
      expect.stringContaining("MARKETPLACE_PAY_TO is required with FACILITATOR_URL"),
    ]);
  });
});
