import { describe, expect, it } from "vitest";
import { addressKey, createLoginThrottle } from "../../src/auth/login-throttle.js";

describe("login throttle per address", () => {
  it("counts an attempt when it starts, so a concurrent burst cannot pass the check together", () => {
    const t = createLoginThrottle({ limit: 20, windowMs: 900_000 });
    const started = Array.from({ length: 30 }, () => t.attempt("10.0.0.1", 0));
    expect(started.filter((a) => a.ok)).toHaveLength(20);
    expect(started[20]).toEqual({ ok: false, retryAfterMs: 900_000 });
    expect(t.attempt("10.0.0.2", 0).ok).toBe(true);
  });

  it("a success takes its attempt back; the window ends on time", () => {
    const t = createLoginThrottle({ limit: 2, windowMs: 1_000 });
    for (let i = 0; i < 5; i++) {
      const a = t.attempt("10.0.0.1", 0);
      if (!a.ok) throw new Error("refused");
      a.succeeded();
    }
    expect(t.attempt("10.0.0.1", 0).ok).toBe(true);
    expect(t.attempt("10.0.0.1", 10).ok).toBe(true);
    expect(t.attempt("10.0.0.1", 20)).toEqual({ ok: false, retryAfterMs: 980 });
    expect(t.attempt("10.0.0.1", 1_000).ok).toBe(true);
  });

  it("counts IPv6 clients per /64", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:10.0.0.1")).toBe("::ffff:10.0.0.1");
    expect(addressKey("192.0.2.7")).toBe("192.0.2.7");
    const t = createLoginThrottle({ limit: 1, windowMs: 1_000 });
    expect(t.attempt("2001:db8:1:2::a", 0).ok).toBe(true);
    expect(t.attempt("2001:db8:1:2::b", 0).ok).toBe(false);
  });
});
