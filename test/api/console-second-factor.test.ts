import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADDRESS_FAILURES, ADDRESS_WINDOW_MS, LOCK_MS } from "../../src/operators/service.js";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import { consoleCall, consoleLogin, sessionCookieOf } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

/** A second factor for console sign-in (docs/console.md), through the real server on both stores. */
describe.each(STORES)("console second factor (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function operator(email: string, role = "operator") {
    const res = await server.admin("POST", "/admin/v1/operators", {
      email,
      role,
      password: "a-long-password-1",
    });
    expect(res.status).toBe(201);
    return res.json.id as number;
  }
  const login = (email: string, code?: string, password = "a-long-password-1") =>
    consoleLogin(server, email, password, code);
  /** The code an authenticator app shows now, for the server's clock. */
  const codeOf = (secret: string, offsetSteps = 0) =>
    totpCode(fromBase32(secret), totpStep(server.clock.now()) + offsetSteps);
  /** Moves the server's clock to the next 30-second step: each code is taken once. */
  const nextStep = () => server.clock.advance(30_000);
  async function setUp(email: string) {
    const s = await login(email);
    const started = await consoleCall(server, "POST", "/ops/api/second-factor", {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(started.status).toBe(200);
    const secret = started.json.secret as string;
    const confirmed = await consoleCall(server, "POST", "/ops/api/second-factor/confirm", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { password: "a-long-password-1", code: codeOf(secret) },
    });
    expect(confirmed.status).toBe(200);
    nextStep();
    return { secret, cookie: sessionCookieOf(confirmed), csrf: confirmed.json.csrf_token as string };
  }
  async function audit(id: number) {
    const rows = (await server.admin("GET", `/admin/v1/audit?entity_type=operator&entity_id=${id}`)).json;
    return rows as { action: string; after: Record<string, unknown> | null }[];
  }

  it("set up with the password and a code from the new secret; other sessions end; audited without the secret", async () => {
    const id = await operator("setup@ops.example");
    const other = await login("setup@ops.example");
    const s = await login("setup@ops.example");
    const started = await consoleCall(server, "POST", "/ops/api/second-factor", {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(started.json.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.json.uri).toBe(
      `otpauth://totp/payintake:setup%40ops.example?secret=${started.json.secret}&issuer=payintake&algorithm=SHA1&digits=6&period=30`,
    );
    // The QR code: a square of modules, as many rows as columns.
    const qr = started.json.qr as string[];
    expect(qr.length).toBeGreaterThanOrEqual(21);
    expect(qr.every((row) => row.length === qr.length && /^[01]+$/.test(row))).toBe(true);
    // Not yet on: sign-in still takes the password alone.
    expect(
      (await consoleCall(server, "GET", "/ops/api/me", { cookie: s.cookie })).json.operator.second_factor,
    ).toBe(false);
    const confirm = (body: unknown) =>
      consoleCall(server, "POST", "/ops/api/second-factor/confirm", { cookie: s.cookie, csrf: s.csrf, body });
    const secret = started.json.secret as string;
    // A stolen session without the password cannot set one up; nor can a wrong code.
    expect(await confirm({ password: "wrong-password-1", code: codeOf(secret) })).toMatchObject({
      status: 400,
      json: { message: "password or code is wrong" },
    });
    expect((await confirm({ password: "a-long-password-1", code: codeOf(secret, 3) })).status).toBe(400);
    expect((await confirm({ password: "a-long-password-1" })).status).toBe(400);
    const done = await confirm({ password: "a-long-password-1", code: codeOf(secret) });
    expect(done.status).toBe(200);
    expect(done.json.second_factor).toBe(true);
    // This session goes on under a new token and CSRF token: its old cookie, opened with the
    // password alone, is not raised to a full session; the other one ended.
    expect((await consoleCall(server, "GET", "/ops/api/me", { cookie: s.cookie })).status).toBe(401);
    const me = await consoleCall(server, "GET", "/ops/api/me", { cookie: sessionCookieOf(done) });
    expect(me.json.operator.second_factor).toBe(true);
    expect(me.json.csrf_token).toBe(done.json.csrf_token);
    expect((await consoleCall(server, "GET", "/ops/api/me", { cookie: other.cookie })).status).toBe(401);
    const entries = await audit(id);
    const set = entries.find((e) => e.action === "operator.second_factor");
    expect(set?.after).toEqual({ second_factor: "set" });
    expect(JSON.stringify(entries)).not.toContain(secret);
  });

  it("sign-in asks for the code once the password is right; a wrong or used code is refused", async () => {
    await operator("signin@ops.example");
    const { secret } = await setUp("signin@ops.example");
    const asked = await login("signin@ops.example");
    expect(asked.res.status).toBe(401);
    expect(asked.res.json).toEqual({
      success: false,
      code: "second_factor_code_needed",
      message: "Enter the code from your authenticator app",
      second_factor: "totp",
    });
    expect(asked.setCookie).toBe("");
    // A wrong password never gets as far as the code.
    expect((await login("signin@ops.example", codeOf(secret), "wrong-password-1")).res.json).toEqual({
      success: false,
      code: "wrong_login",
      message: "Wrong email or password",
    });
    const wrong = await login("signin@ops.example", "000000" === codeOf(secret) ? "111111" : "000000");
    expect(wrong.res.status).toBe(401);
    expect(wrong.res.json).toMatchObject({
      code: "wrong_second_factor_code",
      message: "Wrong or already used code",
      second_factor: "totp",
    });
    const code = codeOf(secret);
    const ok = await login("signin@ops.example", code);
    expect(ok.res.status).toBe(200);
    expect(ok.res.json.operator.second_factor).toBe(true);
    // The same code again, even a moment later, is refused: read over a shoulder it is worth nothing.
    expect((await login("signin@ops.example", code)).res.json.message).toBe("Wrong or already used code");
    nextStep();
    expect((await login("signin@ops.example", codeOf(secret))).res.status).toBe(200);
  });

  it("a code that is not a short string is named as the fault, not the email and password", async () => {
    await operator("badcode@ops.example");
    for (const code of [123456, "1".repeat(21), ["123456"], null]) {
      const res = await consoleCall(server, "POST", "/ops/api/login", {
        body: { email: "badcode@ops.example", password: "a-long-password-1", code },
      });
      expect(res.status, JSON.stringify(code)).toBe(400);
      expect(res.json).toEqual({
        success: false,
        code: "invalid_input",
        message: "code must be the 6 digits from the authenticator app or a recovery code",
      });
    }
    // A missing password is still that.
    const res = await consoleCall(server, "POST", "/ops/api/login", {
      body: { email: "badcode@ops.example", code: 123456 },
    });
    expect(res.json.message).toBe("email and password are required");
  });

  it("two sign-ins sending one code at once: one session", async () => {
    await operator("twice@ops.example");
    const { secret } = await setUp("twice@ops.example");
    const code = codeOf(secret);
    const answers = await Promise.all(Array.from({ length: 6 }, () => login("twice@ops.example", code)));
    expect(answers.filter((a) => a.res.status === 200)).toHaveLength(1);
    nextStep();
  });

  it.runIf(kind === "postgres")("one code sent at once through two instances: one session", async () => {
    await operator("two-instances@ops.example");
    const { secret } = await setUp("two-instances@ops.example");
    const second = await startTestServer(kind, { LOG_LEVEL: "warn" }, { shareStoreOf: server });
    try {
      second.clock.offsetMs = server.clock.offsetMs;
      const code = codeOf(secret);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          consoleLogin(i % 2 ? second : server, "two-instances@ops.example", "a-long-password-1", code),
        ),
      );
      expect(answers.filter((a) => a.res.status === 200)).toHaveLength(1);
      // The others: the code already used, or (six attempts counted at once) the lockout.
      expect(answers.filter((a) => a.res.status === 401 || a.res.status === 423)).toHaveLength(5);
      expect(answers.every((a) => a.res.status === 200 || a.setCookie === "")).toBe(true);
    } finally {
      await second.close();
    }
    nextStep();
  });

  it("wrong codes count against the lockout like wrong passwords", async () => {
    await operator("guess@ops.example");
    const { secret } = await setUp("guess@ops.example");
    const wrongCode = codeOf(secret) === "123456" ? "654321" : "123456";
    for (let i = 0; i < 4; i++) expect((await login("guess@ops.example", wrongCode)).res.status).toBe(401);
    // The fifth locks the account, and says so: the password was right, so "Wrong email or password"
    // (what it answered) sent the operator to retype a right password.
    expect((await login("guess@ops.example", wrongCode)).res).toMatchObject({
      status: 423,
      json: { success: false, code: "login_locked", message: "Too many failed logins; try again later" },
    });
    expect((await login("guess@ops.example", codeOf(secret))).res.status).toBe(423);
    server.clock.advance(15 * 60_000 + 1);
  });

  it("as the page signs in (the password, then the code): asking for the code is no failed guess", async () => {
    await operator("steps@ops.example");
    const { secret } = await setUp("steps@ops.example");
    server.clock.advance(ADDRESS_WINDOW_MS); // a fresh count for this address
    const asked = async () =>
      expect((await login("steps@ops.example")).res.json).toMatchObject({ second_factor: "totp" });
    const wrongCode = () => {
      const near = [-1, 0, 1].map((o) => codeOf(secret, o));
      return ["000000", "111111", "222222", "333333"].find((c) => !near.includes(c)) as string;
    };
    // Four mistyped codes, each after the password step: not locked (two of them locked it, the
    // password steps counting as failures).
    for (let i = 0; i < 4; i++) {
      await asked();
      expect((await login("steps@ops.example", wrongCode())).res.json.message).toBe(
        "Wrong or already used code",
      );
    }
    await asked();
    // The fifth wrong code locks the account.
    expect((await login("steps@ops.example", wrongCode())).res.status).toBe(423);
    expect((await login("steps@ops.example")).res.status).toBe(423);
    // Once the lock runs out, the page's password step asks for the code and the code signs in (the
    // password step locked the account again, every time, for good).
    server.clock.advance(LOCK_MS + 1);
    await asked();
    expect((await login("steps@ops.example", codeOf(secret))).res.status).toBe(200);
    nextStep();
  });

  it("an office behind one address: more two-step sign-ins than the address's failure allowance", async () => {
    await operator("office@ops.example");
    const { secret } = await setUp("office@ops.example");
    server.clock.advance(ADDRESS_WINDOW_MS); // a fresh count for this address
    // Each sign-in as the page makes it: the password, then the code. The password steps were left
    // counted as failures, so the twenty-first sign-in in 15 minutes was a 429 for the whole office.
    for (let i = 0; i <= ADDRESS_FAILURES; i++) {
      expect((await login("office@ops.example")).res.json).toMatchObject({ second_factor: "totp" });
      expect((await login("office@ops.example", codeOf(secret))).res.status).toBe(200);
      nextStep();
    }
  });

  it("while on, a new secret is refused: a session and the password cannot swap in another authenticator", async () => {
    const id = await operator("swap@ops.example");
    const { secret, cookie, csrf } = await setUp("swap@ops.example");
    // Someone with the session and the password, but not the phone, tries to move the second factor
    // to their own authenticator (it was accepted: start, then confirm with a code from the new one).
    const started = await consoleCall(server, "POST", "/ops/api/second-factor", { cookie, csrf });
    expect(started).toMatchObject({
      status: 409,
      json: {
        success: false,
        code: "second_factor_on_already",
        message: "two-step sign-in is on already: turn it off first",
      },
    });
    expect(started.json.secret).toBeUndefined();
    // The authenticator set up first is still the one sign-in asks for.
    expect((await login("swap@ops.example", codeOf(secret))).res.status).toBe(200);
    expect(
      (await audit(id)).filter((e) => e.action === "operator.second_factor").map((e) => e.after),
    ).toEqual([{ second_factor: "set" }]);
    nextStep();
  });

  it("removed with the password and a code, ending the other sessions; then the password alone signs in", async () => {
    const id = await operator("remove@ops.example");
    const { secret, cookie, csrf } = await setUp("remove@ops.example");
    const other = await login("remove@ops.example", codeOf(secret));
    expect(other.res.status).toBe(200);
    nextStep();
    const remove = (body: unknown, token = csrf) =>
      consoleCall(server, "POST", "/ops/api/second-factor/remove", { cookie, csrf: token, body });
    expect((await remove({ password: "a-long-password-1", code: "12345" })).status).toBe(400);
    const removed = await remove({ password: "a-long-password-1", code: codeOf(secret) });
    expect(removed.json).toEqual({ second_factor: false, csrf_token: expect.any(String) });
    // As a password change: the other sessions end, this one goes on under a new token.
    expect((await consoleCall(server, "GET", "/ops/api/me", { cookie: other.cookie })).status).toBe(401);
    expect((await consoleCall(server, "GET", "/ops/api/me", { cookie })).status).toBe(401);
    const renewed = sessionCookieOf(removed);
    const me = await consoleCall(server, "GET", "/ops/api/me", { cookie: renewed });
    expect(me.json).toMatchObject({
      operator: { second_factor: false },
      csrf_token: removed.json.csrf_token,
    });
    expect(
      (
        await consoleCall(server, "POST", "/ops/api/second-factor/remove", {
          cookie: renewed,
          csrf: removed.json.csrf_token,
          body: { password: "a-long-password-1", code: codeOf(secret) },
        })
      ).json.message,
    ).toBe("there is no second factor to remove");
    expect((await login("remove@ops.example")).res.status).toBe(200);
    expect(
      (await audit(id)).filter((e) => e.action === "operator.second_factor").map((e) => e.after),
    ).toEqual([{ second_factor: "removed" }, { second_factor: "set" }]);
  });

  it("an admin resets an operator's second factor (lost phone), in the console or by the admin API; their sessions end; audited", async () => {
    await operator("chief@ops.example", "admin");
    const chief = await login("chief@ops.example");
    const id = await operator("lost@ops.example");
    // The lost phone may be signed in to the console: the reset ends the operator's sessions.
    const onLostPhone = await setUp("lost@ops.example");
    const listed = await consoleCall(server, "GET", "/ops/api/operators", { cookie: chief.cookie });
    expect(listed.json.find((o: { id: number }) => o.id === id).second_factor).toBe(true);
    const reset = await consoleCall(server, "PATCH", `/ops/api/operators/${id}`, {
      cookie: chief.cookie,
      csrf: chief.csrf,
      body: { reset_second_factor: true },
    });
    expect(reset.status).toBe(200);
    expect(reset.json.second_factor).toBe(false);
    expect((await consoleCall(server, "GET", "/ops/api/me", { cookie: onLostPhone.cookie })).status).toBe(
      401,
    );
    expect((await login("lost@ops.example")).res.status).toBe(200);
    expect((await audit(id)).find((e) => e.action === "operator.update")?.after).toEqual({
      second_factor: "removed",
    });
    // Break glass, for the last admin: the admin API (the CLI's `operator reset-2fa`).
    const again = await setUp("lost@ops.example");
    expect((await login("lost@ops.example")).res.status).toBe(401);
    const api = await server.admin("POST", "/admin/v1/operators/reset-second-factor", {
      email: "LOST@ops.example",
    });
    expect(api.status).toBe(200);
    expect(api.json.second_factor).toBe(false);
    expect((await consoleCall(server, "GET", "/ops/api/me", { cookie: again.cookie })).status).toBe(401);
    expect((await login("lost@ops.example")).res.status).toBe(200);
    expect(
      (await server.admin("POST", "/admin/v1/operators/reset-second-factor", { email: "nobody@x.example" }))
        .status,
    ).toBe(404);
  });
});
