import { describe, expect, it } from "vitest";
import { judgeAddress } from "../../src/probe/address-policy.js";

describe("which addresses the seller probe may reach", () => {
  const refused: Array<[string, string]> = [
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "carrierGradeNat"],
    ["169.254.1.1", "linkLocal"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["100.100.100.200", "metadata"],
    ["192.0.0.192", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["192.0.2.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd00:ec2::254", "metadata"],
    ["ff02::1", "multicast"],
    ["2001::1", "teredo"],
    // IPv4 inside IPv6: mapped, compatible, NAT64 and 6to4 forms are judged by the IPv4 address.
    ["::ffff:127.0.0.1", "loopback (127.0.0.1 inside ipv4Mapped)"],
    ["::ffff:7f00:1", "loopback (127.0.0.1 inside ipv4Mapped)"],
    ["::ffff:10.0.0.1", "private (10.0.0.1 inside ipv4Mapped)"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback (127.0.0.1 inside rfc6052)"],
    ["64:ff9b::a00:1", "private (10.0.0.1 inside rfc6052)"],
    ["2002:7f00:1::1", "loopback (127.0.0.1 inside 6to4)"],
    ["2002:c0a8:101::1", "private (192.168.1.1 inside 6to4)"],
    ["not-an-ip", "invalid"],
  ];
  for (const [address, range] of refused) {
    it(`refuses ${address}: ${range}`, () => {
      const verdict = judgeAddress(address);
      expect(verdict.allowed).toBe(false);
      expect(verdict.range).toContain(range);
    });
  }

  const allowed: Array<[string, 4 | 6]> = [
    ["8.8.8.8", 4],
    ["93.184.216.34", 4],
    ["2001:4860:4860::8888", 6],
    ["::ffff:8.8.8.8", 6],
    ["64:ff9b::808:808", 6],
  ];
  for (const [address, family] of allowed) {
    it(`allows public ${address}`, () => {
      expect(judgeAddress(address)).toMatchObject({ allowed: true, family, range: "unicast" });
    });
  }

  it("allows loopback in every form only with the test setting, and nothing else it refuses", () => {
    for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "64:ff9b::7f00:1"]) {
      expect(judgeAddress(address, true)).toMatchObject({ allowed: true, range: "loopback" });
    }
    for (const address of ["10.0.0.1", "169.254.169.254", "fd00::1", "::ffff:192.168.0.1"])
      expect(judgeAddress(address, true).allowed).toBe(false);
  });
});
