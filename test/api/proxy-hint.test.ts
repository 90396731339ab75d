import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

const HINT = "and PAYINTAKE_TRUST_PROXY is not set";

async function signInFrom(server: TestServer, forwardedFor?: string) {
  const res = await request(`${server.url}/ops/api/login`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
    },
    body: JSON.stringify({ email: "nobody@example.com", password: "wrong-password" }),
  });
  await res.body.dump();
  return res.statusCode;
}

describe.each(STORES)("a reverse proxy PAYINTAKE_TRUST_PROXY does not name (%s)", (kind) => {
  let server: TestServer;
  let trusting: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    trusting = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_TRUST_PROXY: "127.0.0.1" });
  });
  afterAll(async () => {
    await server?.close();
    await trusting?.close();
  });

  it("is named in the log once, with what to set, when a forwarded request reaches a per-address limit", async () => {
    // Without X-Forwarded-For there is nothing to say.
    expect(await signInFrom(server)).toBe(401);
    expect(server.logs.filter((l) => l.includes(HINT))).toEqual([]);
    for (const client of ["198.51.100.23", "198.51.100.24"])
      expect(await signInFrom(server, client)).toBe(401);
    const hints = server.logs.filter((l) => l.includes(HINT));
    expect(hints).toHaveLength(1);
    expect(hints[0]).toContain("X-Forwarded-For from 127.0.0.1 and");
    // The clients' addresses are not logged, only the proxy's.
    expect(hints[0]).not.toContain("198.51.100.");
  });

  it("says nothing when the proxy is trusted", async () => {
    expect(await signInFrom(trusting, "198.51.100.23")).toBe(401);
    expect(trusting.logs.filter((l) => l.includes(HINT))).toEqual([]);
  });
});
