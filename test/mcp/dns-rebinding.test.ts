import { describe, expect, it } from "vitest";
import { rebindingRefusal, rebindingRules } from "../../src/mcp/dns-rebinding.js";

const production = rebindingRules({ publicBaseUrl: "https://market.example.com", production: true, trustProxy: false });
const development = rebindingRules({ publicBaseUrl: "http://localhost:8402", production: false, trustProxy: false });
const proxied = rebindingRules({ publicBaseUrl: "https://market.example.com", production: true, trustProxy: true });

describe("DNS-rebinding rules", () => {
  it("in production allow the public host (any port) and origin only", () => {
    expect(rebindingRefusal({ host: "market.example.com" }, production)).toBeNull();
    expect(
      rebindingRefusal({ host: "market.example.com:443", origin: "https://market.example.com" }, production),
    ).toBeNull();
    expect(rebindingRefusal({ host: "localhost:8402" }, production)).toBe("Invalid Host: localhost:8402");
    expect(rebindingRefusal({ host: "market.example.com", origin: "http://localhost:3000" }, production)).toBe(
      "Invalid Origin: http://localhost:3000",
    );
    expect(rebindingRefusal({ host: "market.example.com", origin: "null" }, production)).toBe("Invalid Origin: null");
    expect(rebindingRefusal({}, production)).toBe("Missing Host header");
  });

  it("in development also allow local hosts and local origins on any port", () => {
    for (const host of ["localhost:8402", "127.0.0.1:9999", "[::1]:8402"])
      expect(rebindingRefusal({ host }, development), host).toBeNull();
    expect(rebindingRefusal({ host: "127.0.0.1:8402", origin: "http://localhost:6274" }, development)).toBeNull();
    expect(rebindingRefusal({ host: "attacker.example:8402" }, development)).toBe(
      "Invalid Host: attacker.example:8402",
    );
    expect(rebindingRefusal({ host: "localhost:8402", origin: "https://attacker.example" }, development)).toBe(
      "Invalid Origin: https://attacker.example",
    );
  });

  it("behind a trusted proxy read the public host from X-Forwarded-Host", () => {
    const headers = { host: "10.0.0.5:8402", "x-forwarded-host": "market.example.com, 10.0.0.1" };
    expect(rebindingRefusal(headers, proxied)).toBeNull();
    expect(rebindingRefusal(headers, production)).toBe("Invalid Host: 10.0.0.5:8402");
  });
});
