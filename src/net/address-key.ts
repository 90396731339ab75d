import { isIPv6 } from "node:net";

/**
 * A client address as limits count it: IPv6 per /64, the block one subscriber usually holds (a
 * client picks any address in it at will); IPv4 and IPv4-mapped IPv6 as they are.
 */
export function addressKey(address: string): string {
  if (!isIPv6(address) || address.startsWith("::ffff:")) return address;
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = address.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, "").toLowerCase())
    .join(":")}::/64`;
}
