import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import { consoleCall, consoleLogin, sessionCookieOf } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

/**
 * PAYINTAKE_CONSOLE_REQUIRE_SECOND_FACTOR=true: an operator without a second factor signs in with
 * the password and may then only set one up (or change the password, or sign out); nobody can turn
 * theirs off; an admin's reset sends the operator back to setting one up.
 */
describe.each(STORES)("a console that requires two-step sign-in (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      LOG_LEVEL: "warn",
      PAYINTAKE_CONSOLE_REQUIRE_SECOND_FACTOR: "true",
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const PASSWORD = "a-long-password-1";
  async function operator(email: string, role = "operator") {
    const res = await server.admin("POST", "/admin/v1/operators", { email, role, password: PASSWORD });
    expect(res.status).toBe(201);
    return res.json.id as number;
  }
  const codeOf = (secret: string) => totpCode(fromBase32(secret), totpStep(server.clock.now()));
  const get = (path: string, cookie: string) => consoleCall(server, "GET", path, { cookie });

  it("without a second factor: only its setup is open; once set up, everything is", async () => {
    await operator("new@ops.example");
    const s = await consoleLogin(server, "new@ops.example", PASSWORD);
    expect(s.res.status).toBe(200);
    expect(s.res.json).toMatchObject({ operator: { second_factor: false }, second_factor_required: true });
    expect((await get("/ops/api/me", s.cookie)).json.second_factor_required).toBe(true);

    const refused = {
      success: false,
      code: "second_factor_setup_required",
      message: "Set up two-step sign-in first: this console requires it",
      second_factor_required: true,
    };
    for (const path of ["/ops/api/queue", "/ops/api/dashboard", "/ops/api/transactions", "/ops/api/firms"]) {
      const res = await get(path, s.cookie);
      expect(res.status, path).toBe(403);
      expect(res.json, path).toEqual(refused);
    }
    const decide = await consoleCall(server, "POST", "/ops/api/transactions/1/approve", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: {},
    });
    expect(decide.json).toEqual(refused);

    const started = await consoleCall(server, "POST", "/ops/api/second-factor", {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(started.status).toBe(200);
    const confirmed = await consoleCall(server, "POST", "/ops/api/second-factor/confirm", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { password: PASSWORD, code: codeOf(started.json.secret) },
    });
    expect(confirmed.status).toBe(200);
    // The setup-only session is not raised in place: it goes on under a new token.
    expect((await get("/ops/api/queue", s.cookie)).status).toBe(401);
    const full = sessionCookieOf(confirmed);
    const queue = await get("/ops/api/queue", full);
    expect(queue.status).toBe(200);

    // It cannot be turned off here, even with the password and a code.
    server.clock.advance(30_000);
    const removed = await consoleCall(server, "POST", "/ops/api/second-factor/remove", {
      cookie: full,
      csrf: confirmed.json.csrf_token,
      body: { password: PASSWORD, code: codeOf(started.json.secret) },
    });
    expect(removed.status).toBe(409);
    expect(removed.json.message).toBe(
      "this console requires two-step sign-in: it cannot be turned off (an admin can reset it)",
    );
    expect((await get("/ops/api/me", full)).json.operator.second_factor).toBe(true);
  });

  it("an operator who signs in without one can still sign out and change the password", async () => {
    await operator("plain@ops.example", "viewer");
    const s = await consoleLogin(server, "plain@ops.example", PASSWORD);
    const changed = await consoleCall(server, "POST", "/ops/api/password", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { current: PASSWORD, next: "another-long-password-2" },
    });
    expect(changed.status).toBe(200);
    expect((await get("/ops/api/me", s.cookie)).status).toBe(401);
    const out = await consoleCall(server, "POST", "/ops/api/logout", {
      cookie: sessionCookieOf(changed),
      csrf: changed.json.csrf_token,
    });
    expect(out.status).toBe(200);
    expect((await get("/ops/api/me", sessionCookieOf(changed))).status).toBe(401);
  });

  it("an admin's reset sends the operator back to setting one up", async () => {
    await operator("reset@ops.example");
    const s = await consoleLogin(server, "reset@ops.example", PASSWORD);
    const started = await consoleCall(server, "POST", "/ops/api/second-factor", {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    await consoleCall(server, "POST", "/ops/api/second-factor/confirm", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { password: PASSWORD, code: codeOf(started.json.secret) },
    });
    server.clock.advance(30_000);
    const reset = await server.admin("POST", "/admin/v1/operators/reset-second-factor", {
      email: "reset@ops.example",
    });
    expect(reset.status).toBe(200);
    const again = await consoleLogin(server, "reset@ops.example", PASSWORD);
    expect(again.res.status).toBe(200);
    expect(again.res.json.operator.second_factor).toBe(false);
    expect((await get("/ops/api/queue", again.cookie)).status).toBe(403);
  });
});
