import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

const WINDOW_MS = 15 * 60_000;

/** An admin API call from `address` (the test servers trust 127.0.0.1 as their proxy). */
async function adminFrom(server: TestServer, address: string, token: string) {
  const res = await request(`${server.url}/admin/v1/firms`, {
    headers: { authorization: `Bearer ${token}`, "x-forwarded-for": address },
  });
  return {
    status: res.statusCode,
    json: (await res.body.json()) as { success?: boolean; message?: string },
    retryAfter: res.headers["retry-after"],
  };
}

describe.each(STORES)("admin API: wrong tokens per address (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_TRUST_PROXY: "127.0.0.1" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("twenty wrong tokens stop an address for 15 minutes, the right token too; other addresses go on", async () => {
    const wrong = "x".repeat(32);
    for (let i = 0; i < 20; i++) {
      expect(await adminFrom(server, "203.0.113.7", wrong)).toMatchObject({
        status: 401,
        json: { success: false, message: "Invalid admin token" },
      });
    }
    const refused = await adminFrom(server, "203.0.113.7", server.adminToken);
    expect(refused).toMatchObject({
      status: 429,
      json: { success: false, message: "Too many wrong admin tokens from your address; try again later" },
    });
    expect(Number(refused.retryAfter)).toBeGreaterThan(800);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(900);
    expect((await adminFrom(server, "203.0.113.7", wrong)).status).toBe(429);
    // Another address, and the same address's console sign-ins, are counted apart.
    expect((await adminFrom(server, "203.0.113.8", server.adminToken)).status).toBe(200);
    const login = await request(`${server.url}/ops/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.7" },
      body: JSON.stringify({ email: "nobody@ops.example", password: "Password123!" }),
    });
    await login.body.dump();
    expect(login.statusCode).toBe(401);
    // IPv6: one count per /64.
    for (let i = 0; i < 20; i++) {
      expect((await adminFrom(server, `2001:db8:1:2::${i + 1}`, wrong)).status).toBe(401);
    }
    expect((await adminFrom(server, "2001:db8:1:2:ffff::9", server.adminToken)).status).toBe(429);
    expect((await adminFrom(server, "2001:db8:1:3::1", server.adminToken)).status).toBe(200);

    server.clock.advance(WINDOW_MS);
    expect((await adminFrom(server, "203.0.113.7", server.adminToken)).status).toBe(200);
    // The logs name the address once per window (not once per refused request), never the token.
    expect(
      server.logs.filter((l) => l.includes("too many wrong tokens") && l.includes("203.0.113.7")),
    ).toHaveLength(1);
    expect(server.logs.join("\n")).not.toContain(wrong);
  });

  it("a concurrent burst of wrong tokens cannot slip past the count", async () => {
    server.clock.advance(WINDOW_MS);
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        adminFrom(server, "198.51.100.4", `wrong-token-${i}`.padEnd(32, "-")),
      ),
    );
    const statuses = burst.map((b) => b.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    expect((await adminFrom(server, "198.51.100.4", server.adminToken)).status).toBe(429);
  });

  it.runIf(kind === "postgres")("instances on one PostgreSQL share the count", async () => {
    server.clock.advance(WINDOW_MS);
    const second = await startTestServer(
      kind,
      { LOG_LEVEL: "warn", PAYINTAKE_TRUST_PROXY: "127.0.0.1" },
      { shareStoreOf: server },
    );
    try {
      second.clock.advance(server.clock.offsetMs);
      for (let i = 0; i < 20; i++) {
        const target = i % 2 === 0 ? server : second;
        expect((await adminFrom(target, "192.0.2.55", "y".repeat(40))).status).toBe(401);
      }
      expect((await adminFrom(second, "192.0.2.55", server.adminToken)).status).toBe(429);
      expect((await adminFrom(server, "192.0.2.55", server.adminToken)).status).toBe(429);
    } finally {
      await second.close();
    }
  });
});
