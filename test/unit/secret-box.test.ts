import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSecretBox } from "../../src/crypto/secret-box.js";

const KEY = Buffer.alloc(32, 0x42);

function rawOf(sealed: string): Buffer {
  expect(sealed.startsWith("v1:")).toBe(true);
  return Buffer.from(sealed.slice(3), "base64url");
}

describe("createSecretBox", () => {
  it("round-trips any text, including empty and multibyte", () => {
    const box = createSecretBox(KEY);
    for (const text of ["", "sk_live_abc123", "12345678901", "Ayşe Çağrı İlknur 😀", "\u0000bin\uffff"]) {
      expect(box.open(box.seal(text))).toBe(text);
    }
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), (text) => {
        expect(box.open(box.seal(text))).toBe(text);
      }),
    );
  });

  it("writes v1: + base64url(iv 12 | tag 16 | ciphertext)", () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal("hello");
    expect(sealed).toMatch(/^v1:[A-Za-z0-9_-]+$/);
    expect(rawOf(sealed)).toHaveLength(12 + 16 + 5);
  });

  it("does not contain the plaintext", () => {
    const box = createSecretBox(KEY);
    const secret = "sk_live_very_secret_value";
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret);
    expect(rawOf(sealed).includes(Buffer.from(secret))).toBe(false);
  });

  it("uses a fresh IV for every seal, also across draws from the random source", () => {
    const box = createSecretBox(KEY);
    const seals = Array.from({ length: 1_200 }, () => box.seal("same plaintext"));
    expect(new Set(seals).size).toBe(seals.length);
    const ivs = seals.map((s) => rawOf(s).subarray(0, 12).toString("hex"));
    expect(new Set(ivs).size).toBe(ivs.length);
  });

  it("throws when any byte of iv, tag or ciphertext is tampered with", () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal("12345678901");
    const raw = rawOf(sealed);
    for (let i = 0; i < raw.length; i++) {
      const tampered = Buffer.from(raw);
      tampered[i] = (tampered[i] ?? 0) ^ 0x01;
      expect(() => box.open(`v1:${tampered.toString("base64url")}`)).toThrow();
    }
  });

  it("throws on truncated or extended input", () => {
    const box = createSecretBox(KEY);
    const raw = rawOf(box.seal("12345678901"));
    expect(() => box.open(`v1:${raw.subarray(0, raw.length - 1).toString("base64url")}`)).toThrow();
    expect(() => box.open(`v1:${Buffer.concat([raw, Buffer.from([0])]).toString("base64url")}`)).toThrow();
    expect(() => box.open(`v1:${raw.subarray(0, 20).toString("base64url")}`)).toThrow();
    expect(() => box.open("v1:")).toThrow();
  });

  it("throws on an unknown format prefix", () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal("x");
    expect(() => box.open(sealed.replace(/^v1:/, "v2:"))).toThrow();
    expect(() => box.open(sealed.slice(3))).toThrow();
    expect(() => box.open("")).toThrow();
  });

  it("cannot be opened with another key", () => {
    const sealed = createSecretBox(KEY).seal("secret");
    expect(() => createSecretBox(randomBytes(32)).open(sealed)).toThrow();
  });

  it("opens with another box built from the same key", () => {
    const sealed = createSecretBox(KEY).seal("secret");
    expect(createSecretBox(Buffer.from(KEY)).open(sealed)).toBe("secret");
  });

  it.each([0, 1, 16, 24, 31, 33, 64])("refuses a master key of %i bytes", (length) => {
    expect(() => createSecretBox(Buffer.alloc(length, 1))).toThrow();
  });
});
