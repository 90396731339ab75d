import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import { consoleCall, consoleLogin, sessionCookieOf } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

const DAY_MS = 24 * 3_600_000;
const LOCK_MS = 15 * 60_000;

/**
 * Sign-in lockouts a stranger cannot turn against an operator (ADR 0007): five wrong passwords from
 * anywhere lock the account for browsers the operator never signed in from, while a browser that
 * signed them in before counts its own failures; and an email that is no operator's locks as an
 * operator's does, so the lockout tells no one which emails are operators'.
 */
describe.each(STORES)("console sign-in from known browsers (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addOperator("admin@devices.example", "admin");
  });
  afterAll(async () => {
    await server?.close();
  });

  const password = (email: string) => `${email}-password`;
  async function addOperator(email: string, role = "viewer") {
    const res = await server.admin("POST", "/admin/v1/operators", { email, role, password: password(email) });
    expect(res.status).toBe(201);
    return res.json.id as number;
  }
  const signIn = (email: string, pass: string, device?: string) =>
    consoleLogin(server, email, pass, undefined, device);
  /** Five wrong passwords from a browser that never signed in: the stranger. */
  async function lockOut(email: string) {
    for (let i = 0; i < 5; i++) expect((await signIn(email, `wrong-${i}`)).res.status).toBe(401);
    expect((await signIn(email, password(email))).res.status).toBe(423);
  }
  /** A new admin session each time: the tests move the clock past sessions' 12 hours. */
  const asAdmin = async (method: string, path: string, body?: unknown) => {
    const admin = await signIn("admin@devices.example", password("admin@devices.example"));
    expect(admin.res.status).toBe(200);
    return consoleCall(server, method, path, { cookie: admin.cookie, csrf: admin.csrf, body });
  };
  const operatorRow = async (email: string) =>
    (await asAdmin("GET", "/ops/api/operators")).json.find((o: { email: string }) => o.email === email);
  // Each test begins with every earlier lock run out and failures forgotten.
  const freshDay = () => server.clock.advance(DAY_MS + 1);

  it("a sign-in leaves a known-browser cookie sent back to the sign-in only; the browser keeps it", async () => {
    freshDay();
    await addOperator("cookie@devices.example");
    const first = await signIn("cookie@devices.example", password("cookie@devices.example"));
    expect(first.res.status).toBe(200);
    expect(first.setDeviceCookie).toMatch(
      /^payintake_device=[A-Za-z0-9_-]{43}; Path=\/ops\/api\/login; HttpOnly; SameSite=Strict; Max-Age=15552000$/,
    );
    const again = await signIn("cookie@devices.example", password("cookie@devices.example"), first.device);
    expect(again.device).toBe(first.device);
    // A wrong password sets none.
    expect((await signIn("cookie@devices.example", "wrong")).setDeviceCookie).toBe("");
  });

  it("a stranger's five wrong passwords lock out every browser but those the operator signed in from", async () => {
    freshDay();
    const id = await addOperator("ayse@devices.example");
    const pass = password("ayse@devices.example");
    const desk = await signIn("ayse@devices.example", pass);
    const phone = await signIn("ayse@devices.example", pass);
    expect(phone.device).not.toBe(desk.device);

    await lockOut("ayse@devices.example");
    expect((await operatorRow("ayse@devices.example")).locked).toBe(true);
    // Her browsers go on signing her in, while the lock holds for every other.
    const back = await signIn("ayse@devices.example", pass, desk.device);
    expect(back.res.status).toBe(200);
    expect((await consoleCall(server, "GET", "/ops/api/me", back)).json.operator.email).toBe(
      "ayse@devices.example",
    );
    expect((await signIn("ayse@devices.example", pass, phone.device)).res.status).toBe(200);
    expect((await signIn("ayse@devices.example", pass)).res.status).toBe(423);
    expect((await operatorRow("ayse@devices.example")).locked).toBe(true);

    // The audit log tells the stranger's failures from her own sign-ins.
    const log = (await server.admin("GET", `/admin/v1/audit?entity_type=operator&entity_id=${id}`)).json;
    const trail = log
      .reverse()
      .filter((e: { action: string }) => e.action !== "operator.create")
      .map((e: { action: string; after: unknown }) => [e.action, e.after]);
    expect(trail).toEqual([
      ["operator.login", { address: "127.0.0.1" }],
      ["operator.login", { address: "127.0.0.1" }],
      ...Array(4).fill(["operator.login_failed", { address: "127.0.0.1" }]),
      ["operator.locked", { address: "127.0.0.1" }],
      ["operator.login", { address: "127.0.0.1", known_device: true }],
      ["operator.login", { address: "127.0.0.1", known_device: true }],
    ]);
  });

  it("a known browser's wrong guesses lock that browser alone, then count against the account", async () => {
    freshDay();
    await addOperator("mehmet@devices.example");
    const pass = password("mehmet@devices.example");
    const desk = (await signIn("mehmet@devices.example", pass)).device;
    const laptop = (await signIn("mehmet@devices.example", pass)).device;

    for (let i = 0; i < 5; i++)
      expect((await signIn("mehmet@devices.example", `wrong-${i}`, desk)).res.status).toBe(401);
    // Only that browser's own count: the account is not locked, for any browser.
    expect((await operatorRow("mehmet@devices.example")).locked).toBe(false);
    expect((await signIn("mehmet@devices.example", pass, laptop)).res.status).toBe(200);
    // The locked browser falls back to the account's count, as a browser never seen: five more.
    for (let i = 0; i < 5; i++)
      expect((await signIn("mehmet@devices.example", `again-${i}`, desk)).res.status).toBe(401);
    expect((await signIn("mehmet@devices.example", pass, desk)).res.status).toBe(423);
    expect((await signIn("mehmet@devices.example", pass)).res.status).toBe(423);
    expect((await signIn("mehmet@devices.example", pass, laptop)).res.status).toBe(200);

    server.clock.advance(LOCK_MS + 1);
    expect((await signIn("mehmet@devices.example", pass, desk)).res.status).toBe(200);
  });

  it("inside a session from a known browser, a stranger's lock does not stop the password page or two-step settings", async () => {
    freshDay();
    await addOperator("inside@devices.example");
    const pass = password("inside@devices.example");
    const desk = await signIn("inside@devices.example", pass);
    await lockOut("inside@devices.example");
    const s = await signIn("inside@devices.example", pass, desk.device);
    expect(s.res.status).toBe(200);
    // Setting up two-step sign-in takes the password and a code: counted on her browser, not refused.
    const started = await consoleCall(server, "POST", "/ops/api/second-factor", s);
    expect(started.status).toBe(200);
    const confirmed = await consoleCall(server, "POST", "/ops/api/second-factor/confirm", {
      ...s,
      body: { password: pass, code: totpCode(fromBase32(started.json.secret), totpStep(server.clock.now())) },
    });
    expect(confirmed.status).toBe(200);
    const changed = await consoleCall(server, "POST", "/ops/api/password", {
      cookie: sessionCookieOf(confirmed),
      csrf: confirmed.json.csrf_token,
      body: { current: pass, next: "inside-new-password" },
    });
    expect(changed.status).toBe(200);
    expect(
      (await consoleCall(server, "GET", "/ops/api/me", { cookie: sessionCookieOf(changed) })).status,
    ).toBe(200);
  });

  it("a success through the account's count forgets the browser's own failures too", async () => {
    freshDay();
    await addOperator("typo@devices.example");
    const pass = password("typo@devices.example");
    const desk = (await signIn("typo@devices.example", pass)).device;
    for (let i = 0; i < 5; i++)
      expect((await signIn("typo@devices.example", `typo-${i}`, desk)).res.status).toBe(401);
    // Her browser's lock is set: this right password is counted on the account, and clears both.
    expect((await signIn("typo@devices.example", pass, desk)).res.status).toBe(200);
    server.clock.advance(LOCK_MS + 1);
    await lockOut("typo@devices.example");
    // One typo is one failure of five on her browser again, not a lock.
    expect((await signIn("typo@devices.example", "one-typo", desk)).res.status).toBe(401);
    expect((await signIn("typo@devices.example", pass, desk)).res.status).toBe(200);
  });

  it("a password change forgets the operator's other browsers; switching the operator off or a reset forgets all", async () => {
    freshDay();
    const id = await addOperator("moved@devices.example");
    const pass = password("moved@devices.example");
    const desk = await signIn("moved@devices.example", pass);
    const phished = (await signIn("moved@devices.example", pass)).device;
    const changed = await consoleCall(server, "POST", "/ops/api/password", {
      ...desk,
      body: { current: pass, next: "moved-new-password" },
    });
    expect(changed.status).toBe(200);
    await lockOut("moved@devices.example");
    expect((await signIn("moved@devices.example", "moved-new-password", phished)).res.status).toBe(423);
    expect((await signIn("moved@devices.example", "moved-new-password", desk.device)).res.status).toBe(200);

    expect((await asAdmin("PATCH", `/ops/api/operators/${id}`, { active: false })).status).toBe(200);
    expect((await asAdmin("PATCH", `/ops/api/operators/${id}`, { active: true, unlock: true })).status).toBe(
      200,
    );
    await lockOut("moved@devices.example");
    expect((await signIn("moved@devices.example", "moved-new-password", desk.device)).res.status).toBe(423);

    // The admin API's break-glass reset of two-step sign-in (the CLI's too) forgets them as well.
    server.clock.advance(LOCK_MS + 1);
    const again = (await signIn("moved@devices.example", "moved-new-password", desk.device)).device;
    const reset = await server.admin("POST", "/admin/v1/operators/reset-second-factor", {
      email: "moved@devices.example",
    });
    expect(reset.status).toBe(200);
    await lockOut("moved@devices.example");
    expect((await signIn("moved@devices.example", "moved-new-password", again)).res.status).toBe(423);
  });

  it("guesses sent at once from a known browser get five checked on it and five on the account", async () => {
    freshDay();
    await addOperator("burst@devices.example");
    const pass = password("burst@devices.example");
    const desk = (await signIn("burst@devices.example", pass)).device;
    const answers = await Promise.all(
      Array.from({ length: 14 }, () => signIn("burst@devices.example", "wrong", desk)),
    );
    const statuses = answers.map((a) => a.res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 423)).toHaveLength(4);
  });

  it("one browser shared by two operators is known to each; a token made up or of another operator is not", async () => {
    freshDay();
    await addOperator("shift1@devices.example");
    await addOperator("shift2@devices.example");
    await addOperator("other@devices.example");
    const first = (await signIn("shift1@devices.example", password("shift1@devices.example"))).device;
    // The second operator's sign-in adds a token of their own, first; the browser keeps both.
    const shared = (await signIn("shift2@devices.example", password("shift2@devices.example"), first)).device;
    const [ownToken, firstToken] = (shared.split("=")[1] ?? "").split(".");
    expect(`payintake_device=${firstToken}`).toBe(first);
    expect(ownToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await lockOut("shift1@devices.example");
    await lockOut("shift2@devices.example");
    for (const email of ["shift1@devices.example", "shift2@devices.example"]) {
      const back = await signIn(email, password(email), shared);
      expect(back.res.status).toBe(200);
      // Known already: the cookie stays as it was.
      expect(back.device).toBe(shared);
    }
    // Past the address's allowance of twenty failures in 15 minutes (the locks above run out too).
    server.clock.advance(LOCK_MS + 1);
    await lockOut("other@devices.example");
    // Known to the two shift operators, not to a third; nor is a token no sign-in ever left.
    const asOther = (cookie: string) =>
      signIn("other@devices.example", password("other@devices.example"), cookie);
    expect((await asOther(shared)).res.status).toBe(423);
    expect((await asOther(`payintake_device=${randomBytes(32).toString("base64url")}`)).res.status).toBe(423);
    expect((await asOther("payintake_device=x")).res.status).toBe(423);
  });

  it("a token planted in a colleague's browser does not make the planter's own browser known to them", async () => {
    freshDay();
    await addOperator("planter@devices.example");
    await addOperator("victim@devices.example");
    // The planter's own browser token, set into the victim's browser (a sibling site's cookie, say).
    const planted = (await signIn("planter@devices.example", password("planter@devices.example"))).device;
    const victim = await signIn("victim@devices.example", password("victim@devices.example"), planted);
    expect(victim.res.status).toBe(200);
    expect(victim.device).not.toBe(planted);
    expect(victim.device.endsWith(`.${planted.split("=")[1]}`)).toBe(true);
    // With the planted token alone, the planter is a stranger to the victim's account.
    await lockOut("victim@devices.example");
    expect(
      (await signIn("victim@devices.example", password("victim@devices.example"), planted)).res.status,
    ).toBe(423);
    expect(
      (await signIn("victim@devices.example", password("victim@devices.example"), victim.device)).res.status,
    ).toBe(200);
  });

  it("a browser no one signed in from for 180 days is unknown again", async () => {
    freshDay();
    await addOperator("away@devices.example");
    const pass = password("away@devices.example");
    const desk = (await signIn("away@devices.example", pass)).device;
    server.clock.advance(179 * DAY_MS);
    // Still known after 179 days; signing in starts its 180 days again.
    await lockOut("away@devices.example");
    expect((await signIn("away@devices.example", pass, desk)).res.status).toBe(200);
    server.clock.advance(180 * DAY_MS + 1);
    await lockOut("away@devices.example");
    expect((await signIn("away@devices.example", pass, desk)).res.status).toBe(423);
  });

  it("an email that is no operator's answers exactly as an operator's: 401 five times, then 423 for 15 minutes", async () => {
    freshDay();
    await addOperator("real@devices.example");
    const off = await addOperator("switched-off@devices.example");
    expect((await asAdmin("PATCH", `/ops/api/operators/${off}`, { active: false })).status).toBe(200);
    const answersFor = async (email: string) => {
      // Time stands still but for the test's own moves: a second before the lock ends is a second
      // before it, however long the password checks take on a busy machine (under a full run, the
      // real seconds of the attempts after the fifth had ended the lock early).
      server.clock.frozenAtMs = Date.now();
      try {
        const seen: Array<[number, string]> = [];
        for (let i = 0; i < 7; i++) {
          const r = await signIn(email, `wrong-${i}`);
          seen.push([r.res.status, r.res.json.message]);
        }
        server.clock.advance(LOCK_MS - 1000);
        const r = await signIn(email, "wrong-again");
        seen.push([r.res.status, r.res.json.message]);
        server.clock.advance(1001);
        const after = await signIn(email, "wrong-after");
        seen.push([after.res.status, after.res.json.message]);
        return seen;
      } finally {
        server.clock.frozenAtMs = undefined;
      }
    };
    const real = await answersFor("real@devices.example");
    freshDay();
    expect(real).toEqual([
      ...Array(5).fill([401, "Wrong email or password"]),
      [423, "Too many failed logins; try again later"],
      [423, "Too many failed logins; try again later"],
      [423, "Too many failed logins; try again later"],
      // After a lock the next wrong password locks again: the failures were in a row.
      [401, "Wrong email or password"],
    ]);
    expect(await answersFor("nobody@devices.example")).toEqual(real);
    freshDay();
    expect(await answersFor("switched-off@devices.example")).toEqual(real);
  });

  it("failures a day old are forgotten, on an operator's account as on an unknown email", async () => {
    freshDay();
    await addOperator("slow@devices.example");
    for (const email of ["slow@devices.example", "slow-nobody@devices.example"]) {
      for (let i = 0; i < 4; i++) expect((await signIn(email, `wrong-${i}`)).res.status).toBe(401);
      server.clock.advance(DAY_MS + 1);
      // The fifth, a day later, is the first of a new count.
      for (let i = 0; i < 4; i++) expect((await signIn(email, `later-${i}`)).res.status).toBe(401);
      expect((await signIn(email, "later-4")).res.status).toBe(401);
      expect((await signIn(email, "later-5")).res.status).toBe(423);
    }
  });

  it("an admin's unlock lets every browser in again", async () => {
    freshDay();
    const id = await addOperator("unlock@devices.example");
    await lockOut("unlock@devices.example");
    const unlocked = await asAdmin("PATCH", `/ops/api/operators/${id}`, { unlock: true });
    expect(unlocked.status).toBe(200);
    expect((await signIn("unlock@devices.example", password("unlock@devices.example"))).res.status).toBe(200);
  });
});
