import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleCall, setCookieLine } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

const EMAIL = "cookie@ops.example";
const PASSWORD = "cookie-password-123";
/** A token of the right shape that opens no session (one a stale or planted cookie could carry). */
const stranger = () => randomBytes(32).toString("base64url");

/**
 * The console's session cookie: `__Secure-payintake_ops` over https (a trusted proxy's
 * X-Forwarded-Proto), `payintake_ops` over plain http, Path=/ops either way; and a second cookie of
 * the same name, planted or stale, never shadows the operator's valid one.
 */
describe.each(STORES)("the console's session cookie (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_TRUST_PROXY: "127.0.0.1" });
    await server.admin("POST", "/admin/v1/operators", { email: EMAIL, role: "viewer", password: PASSWORD });
  });
  afterAll(async () => {
    await server?.close();
  });

  const https = { "x-forwarded-proto": "https" };
  async function signIn(headers: Record<string, string> = {}) {
    const res = await consoleCall(server, "POST", "/ops/api/login", {
      body: { email: EMAIL, password: PASSWORD },
      headers,
    });
    expect(res.status).toBe(200);
    return { res, csrf: res.json.csrf_token as string };
  }
  const me = (cookie: string, headers: Record<string, string> = {}) =>
    consoleCall(server, "GET", "/ops/api/me", { cookie, headers });

  it("over https the cookie is __Secure-payintake_ops, Secure, on /ops; only that name is read there", async () => {
    const { res } = await signIn(https);
    const line = setCookieLine(res.headers, "__Secure-payintake_ops");
    expect(line).toMatch(
      /^__Secure-payintake_ops=[A-Za-z0-9_-]{43}; Path=\/ops; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/,
    );
    expect(setCookieLine(res.headers, "payintake_ops")).toBe("");
    const token = line.split(";")[0]?.split("=")[1] as string;
    expect((await me(`__Secure-payintake_ops=${token}`, https)).status).toBe(200);
    // The unprefixed name is what an http answer could have planted: not read over https.
    expect((await me(`payintake_ops=${token}`, https)).status).toBe(401);
    // Signing out over https ends the prefixed cookie.
    const csrf = (await me(`__Secure-payintake_ops=${token}`, https)).json.csrf_token;
    const out = await consoleCall(server, "POST", "/ops/api/logout", {
      cookie: `__Secure-payintake_ops=${token}`,
      csrf,
      headers: https,
      body: {},
    });
    expect(out.status).toBe(200);
    expect(setCookieLine(out.headers, "__Secure-payintake_ops")).toMatch(/; Max-Age=0; Secure$/);
  });

  it("over plain http the cookie is payintake_ops, without Secure", async () => {
    const { res } = await signIn();
    const line = setCookieLine(res.headers, "payintake_ops");
    expect(line).toMatch(
      /^payintake_ops=[A-Za-z0-9_-]{43}; Path=\/ops; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    expect(setCookieLine(res.headers, "__Secure-payintake_ops")).toBe("");
  });

  it("a bogus or stale cookie of the same name, before or after the valid one, does not shadow it", async () => {
    const { res, csrf } = await signIn();
    const valid = setCookieLine(res.headers, "payintake_ops").split(";")[0] as string;
    for (const cookie of [
      `payintake_ops=bogus; ${valid}`,
      `payintake_ops=${stranger()}; ${valid}`,
      `${valid}; payintake_ops=${stranger()}`,
      `payintake_ops=; other=1; payintake_ops=${stranger()}; ${valid}`,
    ]) {
      expect([cookie, (await me(cookie)).status]).toEqual([cookie, 200]);
      const queue = await consoleCall(server, "GET", "/ops/api/queue?type=deposit", { cookie });
      expect([cookie, queue.status]).toEqual([cookie, 200]);
    }
    // A change (CSRF-checked) with the shadowing cookie in front: the valid session is the one used.
    const out = await consoleCall(server, "POST", "/ops/api/logout", {
      cookie: `payintake_ops=bogus; ${valid}`,
      csrf,
      body: {},
    });
    expect(out.status).toBe(200);
    expect((await me(valid)).status).toBe(401);
  });

  it("looks up a bounded number of tokens: a valid one behind four others is not found; malformed values do not count", async () => {
    const { res } = await signIn();
    const valid = setCookieLine(res.headers, "payintake_ops").split(";")[0] as string;
    const planted = Array.from({ length: 4 }, () => `payintake_ops=${stranger()}`).join("; ");
    expect((await me(`${planted}; ${valid}`)).status).toBe(401);
    const fewer = Array.from({ length: 3 }, () => `payintake_ops=${stranger()}`).join("; ");
    expect((await me(`${fewer}; ${valid}`)).status).toBe(200);
    const malformed = Array.from({ length: 10 }, (_, i) => `payintake_ops=bogus-${i}`).join("; ");
    expect((await me(`${malformed}; ${fewer}; ${valid}`)).status).toBe(200);
  });

  it("over https too: a planted __Secure- value does not shadow the valid one", async () => {
    const { res } = await signIn(https);
    const valid = setCookieLine(res.headers, "__Secure-payintake_ops").split(";")[0] as string;
    expect((await me(`__Secure-payintake_ops=bogus; ${valid}`, https)).status).toBe(200);
    expect((await me(`__Secure-payintake_ops=${stranger()}; ${valid}`, https)).status).toBe(200);
  });
});

describe("the console's session cookie without a trusted proxy", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await server.admin("POST", "/admin/v1/operators", { email: EMAIL, role: "viewer", password: PASSWORD });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("a client's own X-Forwarded-Proto does not make the cookie __Secure-", async () => {
    const res = await consoleCall(server, "POST", "/ops/api/login", {
      body: { email: EMAIL, password: PASSWORD },
      headers: { "x-forwarded-proto": "https" },
    });
    expect(res.status).toBe(200);
    expect(setCookieLine(res.headers, "payintake_ops")).toMatch(/^payintake_ops=[^;]+; Path=\/ops;/);
    expect(setCookieLine(res.headers, "__Secure-payintake_ops")).toBe("");
  });
});
