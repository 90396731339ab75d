import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config/config.js";

describe("config: PAYINTAKE_TRUST_PROXY", () => {
  it("is empty by default and takes addresses and CIDR ranges", () => {
    expect(parseConfig({}).trustProxy).toEqual([]);
    expect(parseConfig({ PAYINTAKE_TRUST_PROXY: "10.0.0.1, 10.1.0.0/16,::1,fd00::/8" }).trustProxy).toEqual([
      "10.0.0.1",
      "10.1.0.0/16",
      "::1",
      "fd00::/8",
    ]);
  });
  it.each(["true", "10.0.0.1/33", "proxy.internal", "10.0.0.0/8/1", "::1/129"])(
    "refuses %s naming the variable",
    (v) => {
      expect(() => parseConfig({ PAYINTAKE_TRUST_PROXY: v })).toThrow(ConfigError);
      expect(() => parseConfig({ PAYINTAKE_TRUST_PROXY: v })).toThrow(
        /PAYINTAKE_TRUST_PROXY: must be IP addresses/,
      );
    },
  );
});
