// Which addresses the seller probe may connect to: public unicast only. Everything else (loopback,
// private, link-local and cloud metadata, CGNAT, multicast, unspecified, reserved, IPv6 ULA, and
// IPv4 hidden in IPv6 forms) is refused, so a listing cannot make the marketplace reach inside.
import ipaddr from "ipaddr.js";

export type AddressVerdict =
  { allowed: true; address: string; family: 4 | 6; range: string } | { allowed: false; address: string; range: string };

/** Addresses of cloud metadata services that sit outside the ranges refused anyway. */
const METADATA_ADDRESSES = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "100.100.100.200",
  "192.0.0.192",
  "fd00:ec2::254",
]);

/**
 * IPv6 forms that carry an IPv4 address: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d),
 * NAT64 (64:ff9b::/96) and 6to4 (2002::/16). They are judged by the IPv4 address they carry.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const parts = address.parts;
  const ipv4From = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const range = address.range();
  if (range === "rfc6052") return ipv4From(parts[6]!, parts[7]!);
  if (range === "6to4") return ipv4From(parts[1]!, parts[2]!);
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1))
    return ipv4From(parts[6]!, parts[7]!);
  return null;
}

/**
 * Judges one IP address. `allowLoopback` (tests and local development only) lets loopback through,
 * in every form (127/8, ::1, ::ffff:127.0.0.1).
 */
export function judgeAddress(raw: string, allowLoopback = false): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(raw.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return { allowed: false, address: raw, range: "invalid" };
  }
  const address = parsed.toString();
  const judged = parsed.kind() === "ipv6" ? (embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed) : parsed;
  const range = judged.range();
  if (METADATA_ADDRESSES.has(judged.toString()) || METADATA_ADDRESSES.has(address))
    return { allowed: false, address, range: "metadata" };
  if (range === "unicast" || (allowLoopback && range === "loopback")) {
    return { allowed: true, address, family: parsed.kind() === "ipv4" ? 4 : 6, range };
  }
  return {
    allowed: false,
    address,
    range: judged === parsed ? range : `${range} (${judged.toString()} inside ${parsed.range()})`,
  };
}
