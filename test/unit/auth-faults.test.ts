import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { signatureHint, signatureShapeFault } from "../../src/intake/auth-faults.js";
import { AUTH_REFUSALS } from "../../src/intake/http/auth-refusals.js";

const digest = createHmac("sha256", "secret").update("message").digest();

describe("a signature's shape", () => {
  it("tells the usual mistakes apart", () => {
    expect(signatureShapeFault(digest.toString("hex"))).toBeNull();
    expect(signatureShapeFault(digest.toString("hex").toUpperCase())).toBe("uppercase_hex");
    expect(signatureShapeFault(digest.toString("base64"))).toBe("base64");
    expect(signatureShapeFault(digest.toString("base64url"))).toBe("base64");
    expect(signatureShapeFault(digest.toString("hex").slice(0, 40))).toBe("wrong_length");
    expect(signatureShapeFault(`sha256=${digest.toString("hex")}`)).toBe("not_hex");
    expect(signatureShapeFault("ğ".repeat(64))).toBe("not_hex");
    expect(signatureShapeFault("")).toBe("not_hex");
  });
});

describe("the hint header", () => {
  it("is one line of visible ASCII whatever the request held", () => {
    const hint = signatureHint({
      reason: "signature_mismatch",
      facts: { path: "/paymentapi/v1/deposits", nonce: "a; b=c\r\nğ\uD800", body_bytes: 3 },
    });
    expect(hint).toMatch(/^[\x21-\x7e ]+$/);
    expect(hint).toBe(
      "reason=signature_mismatch; path=/paymentapi/v1/deposits; nonce=a%3B%20b%3Dc%0D%0A%C4%9F%EF%BF%BD; body_bytes=3",
    );
  });
});

describe("the hint's documentation", () => {
  const hinted = Object.keys(AUTH_REFUSALS).filter((r) => !r.startsWith("api_key_"));
  it.each(["sandbox.md", "test-ortami.md"])("%s lists every reason a test firm is told", (page) => {
    const text = readFileSync(new URL(`../../docs/${page}`, import.meta.url), "utf8");
    const listed = [...text.matchAll(/^\| `([a-z0-9_]+)` \| `/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(hinted.sort());
  });
});
