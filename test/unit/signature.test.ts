import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  callbackHashcode,
  type SignedParts,
  signRequest,
  verifyRequestSignature,
} from "../../src/crypto/signature.js";
import { nonceExpiresAt, timestampAccepted } from "../../src/intake/http/authenticate.js";

const SECRET = "sk_test_secret";
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, "utf8"));

function parts(overrides: Partial<SignedParts> = {}): SignedParts {
  return {
    method: "POST",
    path: "/paymentapi/v1/deposits",
    body: utf8('{"amount":"150.00"}'),
    timestamp: "1700000000",
    nonce: "nonce-12345",
    ...overrides,
  };
}

describe("signRequest", () => {
  it("matches known vectors computed independently (openssl) over METHOD\\nPATH\\nBODY\\nTS\\nNONCE", () => {
    expect(signRequest(SECRET, parts())).toBe(
      "9b6085565e9aba28da5b52a652a31dfb1af4c3002712203d0981fee5777ac4b5",
    );
    expect(
      signRequest(
        SECRET,
        parts({ method: "GET", path: "/paymentapi/v1/transactions/42", body: new Uint8Array() }),
      ),
    ).toBe("ce20fb95080fddba4ec84a80da2c88b8a1ef82713b255fce3483b1fb5e226f23");
  });

  it("equals an HMAC-SHA256 over the five values joined by LF, keyed with the secret's UTF-8 bytes", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.stringMatching(/^\d{10}$/),
        fc.stringMatching(/^[A-Za-z0-9-]{8,64}$/),
        (secret, body, timestamp, nonce) => {
          const p = parts({ body, timestamp, nonce });
          const expected = createHmac("sha256", Buffer.from(secret, "utf8"))
            .update(
              Buffer.concat([
                Buffer.from(`POST\n/paymentapi/v1/deposits\n`),
                body,
                Buffer.from(`\n${timestamp}\n${nonce}`),
              ]),
            )
            .digest("hex");
          expect(signRequest(secret, p)).toBe(expected);
        },
      ),
    );
  });

  it("is lowercase hex of 32 bytes", () => {
    expect(signRequest(SECRET, parts())).toMatch(/^[0-9a-f]{64}$/);
  });

  it("upper-cases the method", () => {
    expect(signRequest(SECRET, parts({ method: "post" }))).toBe(
      signRequest(SECRET, parts({ method: "POST" })),
    );
  });

  it("signs the raw body bytes, never a decoded and re-encoded copy", () => {
    const raw = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]); // not valid UTF-8
    const reencoded = utf8(Buffer.from(raw).toString("utf8"));
    expect(signRequest(SECRET, parts({ body: raw }))).not.toBe(
      signRequest(SECRET, parts({ body: reencoded })),
    );
    const expected = createHmac("sha256", SECRET)
      .update(
        Buffer.concat([
          Buffer.from("POST\n/paymentapi/v1/deposits\n"),
          raw,
          Buffer.from("\n1700000000\nnonce-12345"),
        ]),
      )
      .digest("hex");
    expect(signRequest(SECRET, parts({ body: raw }))).toBe(expected);
  });

  it("does not treat a hex- or base64-looking secret as encoded", () => {
    const secret = "deadbeef";
    const expected = createHmac("sha256", Buffer.from(secret, "utf8"))
      .update("GET\n/p\n\n1\nn")
      .digest("hex");
    expect(
      signRequest(secret, { method: "GET", path: "/p", body: new Uint8Array(), timestamp: "1", nonce: "n" }),
    ).toBe(expected);
  });

  it("a signature over the unprefixed path differs from the versioned one", () => {
    expect(signRequest(SECRET, parts({ path: "/deposits" }))).not.toBe(signRequest(SECRET, parts()));
  });
});

describe("verifyRequestSignature", () => {
  const body = fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.string({ unit: "grapheme", maxLength: 100 }).map(utf8),
    fc.string({ unit: "binary", maxLength: 100 }).map(utf8),
  );

  it("accepts what signRequest produces, for any body (multibyte and binary)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), body, (secret, b) => {
        const p = parts({ body: b });
        expect(verifyRequestSignature(secret, p, signRequest(secret, p))).toBe(true);
      }),
    );
  });

  it("refuses a one-byte change anywhere in the body", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (b, i, mask) => {
          const sig = signRequest(SECRET, parts({ body: b }));
          const tampered = Uint8Array.from(b);
          const index = i % tampered.length;
          tampered[index] = (tampered[index] ?? 0) ^ mask;
          expect(verifyRequestSignature(SECRET, parts({ body: tampered }), sig)).toBe(false);
        },
      ),
    );
  });

  it("refuses an added or removed byte in the body", () => {
    const b = utf8('{"amount":"150.00"}');
    const sig = signRequest(SECRET, parts({ body: b }));
    expect(verifyRequestSignature(SECRET, parts({ body: utf8('{"amount":"150.00"} ') }), sig)).toBe(false);
    expect(verifyRequestSignature(SECRET, parts({ body: b.subarray(1) }), sig)).toBe(false);
    expect(verifyRequestSignature(SECRET, parts({ body: new Uint8Array() }), sig)).toBe(false);
  });

  it("refuses a one-character change in any signed value or the secret", () => {
    const sig = signRequest(SECRET, parts());
    const changes: [string, Partial<SignedParts>][] = [
      ["method", { method: "GET" }],
      ["path", { path: "/paymentapi/v1/withdrawals" }],
      ["path prefix", { path: "/deposits" }],
      ["path trailing slash", { path: "/paymentapi/v1/deposits/" }],
      ["path query", { path: "/paymentapi/v1/deposits?x=1" }],
      ["timestamp", { timestamp: "1700000001" }],
      ["nonce", { nonce: "nonce-12346" }],
    ];
    for (const [, change] of changes) expect(verifyRequestSignature(SECRET, parts(change), sig)).toBe(false);
    expect(verifyRequestSignature(`${SECRET}x`, parts(), sig)).toBe(false);
    expect(verifyRequestSignature("sk_test_secreT", parts(), sig)).toBe(false);
  });

  it("refuses moving bytes between fields (the LF separators are signed)", () => {
    const a = parts({ timestamp: "1700000000", nonce: "nonce-12345" });
    const sig = signRequest(SECRET, a);
    expect(
      verifyRequestSignature(SECRET, parts({ timestamp: "170000000", nonce: "0nonce-12345" }), sig),
    ).toBe(false);
  });

  it("refuses a one-character change anywhere in the signature", () => {
    const sig = signRequest(SECRET, parts());
    for (let i = 0; i < sig.length; i++) {
      const c = sig[i] === "0" ? "1" : "0";
      const bad = sig.slice(0, i) + c + sig.slice(i + 1);
      expect(verifyRequestSignature(SECRET, parts(), bad)).toBe(false);
    }
  });

  it("refuses the upper-case form (the contract says lowercase hex)", () => {
    const sig = signRequest(SECRET, parts());
    expect(sig).toMatch(/[a-f]/);
    expect(verifyRequestSignature(SECRET, parts(), sig.toUpperCase())).toBe(false);
  });

  it.each([
    ["empty", ""],
    ["odd length", "abc"],
    ["63 hex chars", "a".repeat(63)],
    ["65 hex chars", "a".repeat(65)],
    ["non-hex of the right length", "g".repeat(64)],
    ["upper-case hex", "A".repeat(64)],
    ["multibyte", "ş".repeat(64)],
    ["emoji", "😀".repeat(32)],
    ["1000 chars", "a".repeat(1000)],
    ["spaces", " ".repeat(64)],
    ["base64", Buffer.alloc(32, 7).toString("base64")],
    ["NUL", "\u0000".repeat(64)],
  ])("never throws on a %s signature, and refuses it", (_label, signature) => {
    expect(() => verifyRequestSignature(SECRET, parts(), signature)).not.toThrow();
    expect(verifyRequestSignature(SECRET, parts(), signature)).toBe(false);
  });

  it("never throws on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (signature) => {
        expect(typeof verifyRequestSignature(SECRET, parts(), signature)).toBe("boolean");
      }),
    );
  });

  it("refuses the correct signature with surrounding whitespace", () => {
    const sig = signRequest(SECRET, parts());
    expect(verifyRequestSignature(SECRET, parts(), ` ${sig}`)).toBe(false);
    expect(verifyRequestSignature(SECRET, parts(), `${sig}\n`)).toBe(false);
  });
});

describe("callbackHashcode", () => {
  it("is HMAC-SHA256 over reference|type|status|amount, computed independently", () => {
    const fields = { reference: "ORD-1", type: "deposit", status: "approved", amount: "150.00" };
    const expected = createHmac("sha256", Buffer.from(SECRET, "utf8"))
      .update("ORD-1|deposit|approved|150.00", "utf8")
      .digest("hex");
    expect(callbackHashcode(SECRET, fields)).toBe(expected);
    // Golden value from: printf 'ORD-1|deposit|approved|150.00' | openssl dgst -sha256 -hmac sk_test_secret
    expect(callbackHashcode(SECRET, fields)).toBe(
      "d9f83019a3f986895fa9b9085eeb25ae83268816b440d166aefa5bf196427d67",
    );
  });

  it("keys with the UTF-8 bytes of a non-ASCII secret", () => {
    expect(
      callbackHashcode("gizli-anahtar-ş", {
        reference: "ORD-1",
        type: "deposit",
        status: "approved",
        amount: "150.00",
      }),
    ).toBe("434def17032be056f1f63c932b3f2f22575d80ed41c5a511a0d4d99eb3e84dc6");
  });

  it("changes when any field changes", () => {
    const base = { reference: "ORD-1", type: "deposit", status: "approved", amount: "150.00" };
    const h = callbackHashcode(SECRET, base);
    expect(callbackHashcode(SECRET, { ...base, reference: "ORD-2" })).not.toBe(h);
    expect(callbackHashcode(SECRET, { ...base, type: "withdrawal" })).not.toBe(h);
    expect(callbackHashcode(SECRET, { ...base, status: "rejected" })).not.toBe(h);
    expect(callbackHashcode(SECRET, { ...base, amount: "150" })).not.toBe(h);
    expect(callbackHashcode("other", base)).not.toBe(h);
  });

  it("is lowercase hex", () => {
    expect(
      callbackHashcode(SECRET, { reference: "R", type: "withdrawal", status: "rejected", amount: "0.01" }),
    ).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("nonce lifetime", () => {
  it("a nonce is kept for as long as its timestamp is accepted, to the millisecond", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }),
        fc.integer({ min: -400_000, max: 400_000 }),
        (ts, offsetMs) => {
          const now = ts * 1000 + offsetMs;
          // A purge drops rows with expires_at < now: any request still accepted finds its nonce.
          if (timestampAccepted(ts, now)) expect(nonceExpiresAt(ts)).toBeGreaterThan(now);
        },
      ),
    );
    // The second after ts + 300 s is still accepted; the nonce outlives it.
    expect(timestampAccepted(1_800_000_000, 1_800_000_300_999)).toBe(true);
    expect(nonceExpiresAt(1_800_000_000)).toBe(1_800_000_301_000);
    expect(timestampAccepted(1_800_000_000, 1_800_000_301_000)).toBe(false);
  });
});
