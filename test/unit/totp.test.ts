import { describe, expect, it } from "vitest";
import { base32, fromBase32, matchTotp, otpauthUri, totpCode, totpStep } from "../../src/operators/totp.js";

describe("TOTP (RFC 6238)", () => {
  const rfcSecret = Buffer.from("12345678901234567890", "ascii");

  it("gives the RFC's SHA-1 test values", () => {
    const vectors: [number, string][] = [
      [59, "94287082"],
      [1111111109, "07081804"],
      [1111111111, "14050471"],
      [1234567890, "89005924"],
      [2000000000, "69279037"],
      [20000000000, "65353130"],
    ];
    for (const [seconds, code] of vectors)
      expect(totpCode(rfcSecret, totpStep(seconds * 1000), 8)).toBe(code);
    expect(totpCode(rfcSecret, totpStep(59_000))).toBe("287082");
  });

  it("base32 as RFC 4648 writes it (unpadded), both ways", () => {
    const cases: [string, string][] = [
      ["", ""],
      ["f", "MY"],
      ["fo", "MZXQ"],
      ["foo", "MZXW6"],
      ["foob", "MZXW6YQ"],
      ["fooba", "MZXW6YTB"],
      ["foobar", "MZXW6YTBOI"],
    ];
    for (const [plain, encoded] of cases) {
      expect(base32(Buffer.from(plain))).toBe(encoded);
      expect(fromBase32(encoded).toString()).toBe(plain);
    }
    expect(fromBase32("mzxw 6ytb oi==").toString()).toBe("foobar");
    expect(() => fromBase32("MZ1")).toThrow();
  });

  it("takes a code one step either side of now, names its step, and nothing else", () => {
    const now = 1_800_000_015_000;
    const step = totpStep(now);
    for (const s of [step - 1, step, step + 1])
      expect(matchTotp(rfcSecret, totpCode(rfcSecret, s), now)).toBe(s);
    expect(matchTotp(rfcSecret, totpCode(rfcSecret, step - 2), now)).toBeUndefined();
    expect(matchTotp(rfcSecret, totpCode(rfcSecret, step + 2), now)).toBeUndefined();
    const code = totpCode(rfcSecret, step);
    expect(matchTotp(rfcSecret, `${code.slice(0, 3)} ${code.slice(3)}`, now)).toBe(step);
    for (const odd of ["", "12345", "1234567", "abcdef", "１２３４５６", "12345\u0000"])
      expect(matchTotp(rfcSecret, odd, now)).toBeUndefined();
  });

  it("writes the otpauth URI authenticator apps scan", () => {
    expect(otpauthUri(Buffer.from("foobar"), "ayse@ops.example")).toBe(
      "otpauth://totp/payintake:ayse%40ops.example?secret=MZXW6YTBOI&issuer=payintake&algorithm=SHA1&digits=6&period=30",
    );
  });
});
