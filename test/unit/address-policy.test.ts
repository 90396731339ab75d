import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isLocalName, isPublicAddress } from "../../src/net/address-policy.js";

describe("isPublicAddress", () => {
  it.each([
    ["loopback", "127.0.0.1"],
    ["loopback range", "127.255.255.254"],
    ["private 10/8", "10.0.0.1"],
    ["private 10/8 top", "10.255.255.255"],
    ["private 172.16/12", "172.16.0.1"],
    ["private 172.31", "172.31.255.255"],
    ["private 192.168/16", "192.168.1.1"],
    ["cloud metadata", "169.254.169.254"],
    ["link-local", "169.254.0.1"],
    ["carrier NAT 100.64/10", "100.64.0.1"],
    ["carrier NAT top", "100.127.255.255"],
    ["this network", "0.0.0.0"],
    ["this network 0/8", "0.1.2.3"],
    ["multicast", "224.0.0.1"],
    ["broadcast", "255.255.255.255"],
    ["reserved 240/4", "240.0.0.1"],
    ["documentation", "192.0.2.1"],
    ["benchmarking", "198.18.0.1"],
    ["IPv6 loopback", "::1"],
    ["IPv6 unspecified", "::"],
    ["IPv4-mapped loopback (dotted)", "::ffff:127.0.0.1"],
    ["IPv4-mapped loopback (upper case)", "::FFFF:127.0.0.1"],
    ["IPv4-mapped loopback (hex)", "::ffff:7f00:1"],
    ["IPv4-mapped loopback (long form)", "0:0:0:0:0:ffff:127.0.0.1"],
    ["IPv4-mapped metadata (hex)", "::ffff:a9fe:a9fe"],
    ["IPv4-mapped private", "::ffff:10.0.0.1"],
    ["IPv6 link-local", "fe80::1"],
    ["IPv6 unique local fc00", "fc00::1"],
    ["IPv6 unique local fd00", "fd12:3456::1"],
    ["IPv4-compatible loopback", "::7f00:1"],
    ["IPv4-compatible loopback (dotted)", "::127.0.0.1"],
    ["IPv4-compatible public (deprecated range)", "::808:808"],
    ["SIIT loopback", "::ffff:0:7f00:1"],
    ["SIIT metadata", "::ffff:0:a9fe:a9fe"],
    ["6to4 of metadata", "2002:a9fe:a9fe::"],
    ["6to4 of loopback", "2002:7f00:1::1"],
    ["NAT64 of metadata", "64:ff9b::a9fe:a9fe"],
    ["NAT64 of loopback (dotted)", "64:ff9b::127.0.0.1"],
    ["Teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    ["IPv6 documentation", "2001:db8::1"],
    ["IPv6 multicast", "ff02::1"],
    ["bracketed IPv6 loopback", "[::1]"],
    ["bracketed IPv4-mapped", "[::ffff:7f00:1]"],
  ])("refuses %s (%s)", (_label, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ["Google DNS", "8.8.8.8"],
    ["Cloudflare DNS", "1.1.1.1"],
    ["public just above 172.16/12", "172.32.0.1"],
    ["public just below 100.64/10", "100.63.255.255"],
    ["public just above 100.64/10", "100.128.0.1"],
    ["Cloudflare IPv6", "2606:4700:4700::1111"],
    ["bracketed public IPv6", "[2606:4700:4700::1111]"],
    ["IPv4-mapped public", "::ffff:8.8.8.8"],
  ])("allows %s (%s)", (_label, address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it("agrees with an independent range table for every IPv4 address", () => {
    // IANA special-purpose ranges that are not globally reachable, plus multicast and reserved.
    const ranges: [string, number][] = [
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
    ];
    const toInt = (ip: string) => ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
    const inRange = (ip: number, [net, prefix]: [string, number]) =>
      Math.floor(ip / 2 ** (32 - prefix)) === Math.floor(toInt(net) / 2 ** (32 - prefix));
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        const expected = !ranges.some((r) => inRange(toInt(ip), r));
        expect(isPublicAddress(ip)).toBe(expected);
        expect(isPublicAddress(`::ffff:${ip}`)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses whatever is not an IP literal", () => {
    for (const value of [
      "",
      "localhost",
      "example.com",
      "127.1",
      "0x7f000001",
      "2130706433",
      "::1::",
      "[::1",
      "1.2.3",
    ]) {
      expect(isPublicAddress(value)).toBe(false);
    }
  });

  it("refuses loopback written in the shorthand forms URL parsing normalises", () => {
    const short = new URL("http://127.1/").hostname;
    const hex = new URL("http://0x7f000001/").hostname;
    const decimal = new URL("http://2130706433/").hostname;
    const octal = new URL("http://0177.0.0.1/").hostname;
    expect([short, hex, decimal, octal]).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1"]);
    for (const h of [short, hex, decimal, octal]) expect(isPublicAddress(h)).toBe(false);
  });

  it("refuses IPv6 hostnames as URL parsing yields them (with brackets)", () => {
    for (const url of [
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[fe80::1]/",
      "http://[64:ff9b::a9fe:a9fe]/",
    ]) {
      const host = new URL(url).hostname;
      expect(host.startsWith("[")).toBe(true);
      expect(isPublicAddress(host)).toBe(false);
    }
    expect(isPublicAddress(new URL("http://[2606:4700:4700::1111]/").hostname)).toBe(true);
  });

  it("metadata via URL shorthand is refused", () => {
    expect(isPublicAddress(new URL("http://169.254.43518/").hostname)).toBe(false);
    expect(isPublicAddress(new URL("http://0xa9fea9fe/").hostname)).toBe(false);
  });
});

describe("isLocalName", () => {
  it.each(["localhost", "LOCALHOST", "localhost.", "api.localhost", "localhost.localdomain"])(
    "%s is local",
    (h) => {
      expect(isLocalName(h)).toBe(true);
    },
  );

  it.each(["example.com", "localhost.example.com", "mylocalhost", "127.0.0.1"])(
    "%s is not a local name",
    (h) => {
      expect(isLocalName(h)).toBe(false);
    },
  );
});
