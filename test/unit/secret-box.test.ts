import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sealContext } from "../../src/crypto/seal-context.js";
import { createSecretBox, openOrUndefined, sealOnlyWhile } from "../../src/crypto/secret-box.js";
import { sealV1 } from "../support/legacy-seal.js";

const KEY = Buffer.alloc(32, 0x42);
const CTX = sealContext.firmSecret(7);

function rawOf(sealed: string, version = "v2"): Buffer {
  expect(sealed.startsWith(`${version}:`)).toBe(true);
  return Buffer.from(sealed.slice(3), "base64url");
}

describe("createSecretBox", () => {
  it("round-trips any text, including empty and multibyte, under any context", () => {
    const box = createSecretBox(KEY);
    for (const text of ["", "sk_live_abc123", "12345678901", "Ayşe Çağrı İlknur 😀", "\u0000bin\uffff"]) {
      expect(box.open(box.seal(text, CTX), CTX)).toBe(text);
    }
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 120 }),
        (text, context) => {
          expect(box.open(box.seal(text, context), context)).toBe(text);
        },
      ),
    );
  });

  it("writes v2: + base64url(iv 12 | tag 16 | ciphertext); the context is not in it", () => {
    const box = createSecretBox(KEY);
    const context = sealContext.nationalId(12, "ORDER-ctx-marker");
    const sealed = box.seal("hello", context);
    expect(sealed).toMatch(/^v2:[A-Za-z0-9_-]+$/);
    expect(rawOf(sealed)).toHaveLength(12 + 16 + 5);
    expect(rawOf(sealed).includes(Buffer.from("ORDER-ctx-marker"))).toBe(false);
  });

  it("does not contain the plaintext", () => {
    const box = createSecretBox(KEY);
    const secret = "sk_live_very_secret_value";
    const sealed = box.seal(secret, CTX);
    expect(sealed).not.toContain(secret);
    expect(rawOf(sealed).includes(Buffer.from(secret))).toBe(false);
  });

  it("uses a fresh IV for every seal, also across draws from the random source", () => {
    const box = createSecretBox(KEY);
    const seals = Array.from({ length: 1_200 }, () => box.seal("same plaintext", CTX));
    expect(new Set(seals).size).toBe(seals.length);
    const ivs = seals.map((s) => rawOf(s).subarray(0, 12).toString("hex"));
    expect(new Set(ivs).size).toBe(ivs.length);
  });

  it("refuses a value sealed for another place: another row, another purpose, or none", () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal("sk_of_firm_7", sealContext.firmSecret(7));
    for (const other of [
      sealContext.firmSecret(8),
      sealContext.firmSecret(70),
      sealContext.channelSecret(7),
      sealContext.operatorTotp(7),
      "firm-secret:7 ",
      "Firm-secret:7",
      "",
    ])
      expect(() => box.open(sealed, other), other).toThrow();
    expect(box.open(sealed, "firm-secret:7")).toBe("sk_of_firm_7");
    // A national id is bound to its firm and its reference both.
    const id = box.seal("12345678901", sealContext.nationalId(1, "R-1"));
    expect(() => box.open(id, sealContext.nationalId(2, "R-1"))).toThrow();
    expect(() => box.open(id, sealContext.nationalId(1, "R-2"))).toThrow();
    expect(box.open(id, sealContext.nationalId(1, "R-1"))).toBe("12345678901");
  });

  it("any two different contexts refuse each other's values (property)", () => {
    const box = createSecretBox(KEY);
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        (a, b, text) => {
          fc.pre(a !== b);
          expect(openOrUndefined(box, box.seal(text, a), b)).toBeUndefined();
        },
      ),
    );
  });

  it("refuses to seal with an empty context", () => {
    expect(() => createSecretBox(KEY).seal("x", "")).toThrow(/context/);
  });

  it("opens a v1 value (written before contexts) under any context; new seals are v2", () => {
    const box = createSecretBox(KEY);
    const old = sealV1(KEY, "sk_from_an_older_version");
    expect(box.open(old, CTX)).toBe("sk_from_an_older_version");
    expect(box.open(old, sealContext.channelSecret(3))).toBe("sk_from_an_older_version");
    expect(box.seal("x", CTX).startsWith("v2:")).toBe(true);
    expect(() => createSecretBox(randomBytes(32)).open(old, CTX)).toThrow();
  });

  it("a v2 value relabelled v1 (to drop its context) does not open, nor a v1 value relabelled v2", () => {
    const box = createSecretBox(KEY);
    const v2 = box.seal("secret", CTX);
    expect(() => box.open(`v1:${v2.slice(3)}`, CTX)).toThrow();
    const v1 = sealV1(KEY, "secret");
    expect(() => box.open(`v2:${v1.slice(3)}`, CTX)).toThrow();
  });

  it.each(["v1", "v2"])(
    "throws when any byte of iv, tag or ciphertext of a %s value is tampered with",
    (v) => {
      const box = createSecretBox(KEY);
      const sealed = v === "v1" ? sealV1(KEY, "12345678901") : box.seal("12345678901", CTX);
      const raw = rawOf(sealed, v);
      for (let i = 0; i < raw.length; i++) {
        const tampered = Buffer.from(raw);
        tampered[i] = (tampered[i] ?? 0) ^ 0x01;
        expect(() => box.open(`${v}:${tampered.toString("base64url")}`, CTX)).toThrow();
      }
    },
  );

  it.each(["v1", "v2"])("throws on truncated or extended %s input, and on a short tag", (v) => {
    const box = createSecretBox(KEY);
    const sealed = v === "v1" ? sealV1(KEY, "12345678901") : box.seal("12345678901", CTX);
    const raw = rawOf(sealed, v);
    const as = (b: Buffer) => `${v}:${b.toString("base64url")}`;
    expect(() => box.open(as(raw.subarray(0, raw.length - 1)), CTX)).toThrow();
    expect(() => box.open(as(Buffer.concat([raw, Buffer.from([0])])), CTX)).toThrow();
    expect(() => box.open(as(raw.subarray(0, 20)), CTX)).toThrow();
    expect(() => box.open(`${v}:`, CTX)).toThrow();
    // The empty plaintext under a 4-byte tag: GCM checks only the bytes given unless told the length.
    const short = createSecretBox(KEY).seal("", CTX);
    expect(() => box.open(`v2:${rawOf(short).subarray(0, 16).toString("base64url")}`, CTX)).toThrow();
  });

  it("throws on an unknown format prefix", () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal("x", CTX);
    expect(() => box.open(sealed.replace(/^v2:/, "v3:"), CTX)).toThrow();
    expect(() => box.open(sealed.slice(3), CTX)).toThrow();
    expect(() => box.open("", CTX)).toThrow();
  });

  it("cannot be opened with another key", () => {
    const sealed = createSecretBox(KEY).seal("secret", CTX);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, CTX)).toThrow();
  });

  it("opens with another box built from the same key", () => {
    const sealed = createSecretBox(KEY).seal("secret", CTX);
    expect(createSecretBox(Buffer.from(KEY)).open(sealed, CTX)).toBe("secret");
  });

  it("openOrUndefined: the text, or undefined for anything that does not open", () => {
    const box = createSecretBox(KEY);
    expect(openOrUndefined(box, box.seal("s", CTX), CTX)).toBe("s");
    expect(openOrUndefined(box, box.seal("s", CTX), sealContext.firmSecret(8))).toBeUndefined();
    expect(openOrUndefined(box, "v2:garbage", CTX)).toBeUndefined();
  });

  it("sealOnlyWhile passes the context through both ways", () => {
    const box = sealOnlyWhile(createSecretBox(KEY), () => true);
    const sealed = box.seal("s", CTX);
    expect(box.open(sealed, CTX)).toBe("s");
    expect(() => box.open(sealed, sealContext.firmSecret(8))).toThrow();
  });

  it.each([0, 1, 16, 24, 31, 33, 64])("refuses a master key of %i bytes", (length) => {
    expect(() => createSecretBox(Buffer.alloc(length, 1))).toThrow();
  });
});
