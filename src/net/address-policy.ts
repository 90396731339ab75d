import { BlockList, isIP } from "node:net";

/**
 * Which IP addresses a callback may never reach: loopback, private, link-local (cloud metadata),
 * carrier NAT, multicast, reserved and documentation ranges, and the IPv6 transition prefixes that
 * embed an IPv4 address (IPv4-compatible, SIIT, 6to4, Teredo, NAT64), which would otherwise smuggle
 * a private v4 target.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  // The deprecated IPv4-compatible range (::a.b.c.d, with :: and ::1 in it) and the SIIT one
  // (::ffff:0:a.b.c.d): networks that translate them would reach the embedded IPv4 address.
  ["::", 96],
  ["::ffff:0:0:0", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 32],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(net, prefix, "ipv6");
}

// IPv4-mapped IPv6 is judged by its IPv4 address. (Not a ::ffff:0:0/96 rule: Node's BlockList
// also applies IPv6 rules to IPv4 lookups through that mapping, which would refuse every IPv4.)
const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** True when the address is a public unicast address a callback may be sent to. */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 4) return !blocked.check(bare, "ipv4");
  if (family === 6) {
    const mapped = MAPPED_V4.exec(bare);
    if (mapped?.[1]) return !blocked.check(mapped[1], "ipv4");
    return !blocked.check(bare, "ipv6");
  }
  return false;
}

/** A hostname that names this machine without DNS. */
export function isLocalName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "localhost.localdomain";
}
