import { describe, expect, it } from "vitest";
import { addressKey } from "../../src/net/address-key.js";

describe("login throttle: the address it counts", () => {
  it("counts IPv6 clients per /64, IPv4 (and IPv4-mapped IPv6) as it is", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:10.0.0.1")).toBe("::ffff:10.0.0.1");
    expect(addressKey("192.0.2.7")).toBe("192.0.2.7");
  });
});
