import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import { consoleCall, consoleLogin, sessionCookieOf } from "../support/console.js";
import { STORES, startTestServer, storeEnv, type TestServer } from "../support/harness.js";
import { withStore } from "../support/stored.js";

/** Recovery codes for two-step sign-in (docs/console.md), through the real server on both stores. */
describe.each(STORES)("console recovery codes (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
  });
  afterAll(async () => {
    await server?.close();
  });

  const PASSWORD = "a-long-password-1";
  async function operator(on: TestServer, email: string, role = "operator") {
    const res = await on.admin("POST", "/admin/v1/operators", { email, role, password: PASSWORD });
    expect(res.status).toBe(201);
    return res.json.id as number;
  }
  const login = (email: string, code?: string, on = server) => consoleLogin(on, email, PASSWORD, code);
  const codeOf = (secret: string, on = server) => totpCode(fromBase32(secret), totpStep(on.clock.now()));
  const nextStep = (on = server) => on.clock.advance(30_000);
  /** Two-step sign-in turned on; the recovery codes from the confirmation's answer. */
  async function setUp(email: string, on = server) {
    const s = await login(email, undefined, on);
    const started = await consoleCall(on, "POST", "/ops/api/second-factor", {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    const secret = started.json.secret as string;
    const confirmed = await consoleCall(on, "POST", "/ops/api/second-factor/confirm", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { password: PASSWORD, code: codeOf(secret, on) },
    });
    expect(confirmed.status).toBe(200);
    nextStep(on);
    const codes = confirmed.json.recovery_codes as string[];
    return { secret, codes, cookie: sessionCookieOf(confirmed), csrf: confirmed.json.csrf_token as string };
  }
  const left = async (cookie: string) =>
    (await consoleCall(server, "GET", "/ops/api/me", { cookie })).json.recovery_codes_left;
  async function audit(id: number, on = server) {
    const rows = (await on.admin("GET", `/admin/v1/audit?entity_type=operator&entity_id=${id}`)).json;
    return rows as { action: string; after: Record<string, unknown> | null }[];
  }

  it("confirming gives ten codes, shown once; each signs in once in place of the code, however typed", async () => {
    const id = await operator(server, "codes@ops.example");
    const { codes, cookie } = await setUp("codes@ops.example");
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(await left(cookie)).toBe(10);
    // Nowhere else: not in /me, and the second factor's routes never show them again.
    const me = await consoleCall(server, "GET", "/ops/api/me", { cookie });
    expect(JSON.stringify(me.json)).not.toContain(codes[0]);

    const [first, second, third] = codes as [string, string, string];
    const ok = await login("codes@ops.example", first);
    expect(ok.res.status).toBe(200);
    expect(await left(ok.cookie)).toBe(9);
    // Used once: refused after, as an already used authenticator code is.
    expect((await login("codes@ops.example", first)).res.json).toMatchObject({
      message: "Wrong or already used code",
      second_factor: "totp",
    });
    // Upper case, without the dash, with spaces: the same code.
    expect((await login("codes@ops.example", second.toUpperCase().replace("-", ""))).res.status).toBe(200);
    expect((await login("codes@ops.example", ` ${third.replace("-", " ")} `)).res.status).toBe(200);
    expect(await left(cookie)).toBe(7);
    // Audited, without the code.
    const entries = await audit(id);
    const used = entries.filter((e) => e.action === "operator.recovery_code_used");
    expect(used).toHaveLength(3);
    expect(used[0]?.after).toMatchObject({ recovery_codes_left: 7 });
    const text = JSON.stringify(entries).toLowerCase();
    for (const c of codes) {
      expect(text).not.toContain(c);
      expect(text).not.toContain(c.replace("-", ""));
    }
  });

  it("two sign-ins sending one recovery code at once: one session", async () => {
    await operator(server, "at-once@ops.example");
    const { codes } = await setUp("at-once@ops.example");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => login("at-once@ops.example", codes[0])),
    );
    expect(answers.filter((a) => a.res.status === 200)).toHaveLength(1);
    expect(answers.every((a) => a.res.status === 200 || a.setCookie === "")).toBe(true);
  });

  it.runIf(kind === "postgres")(
    "one recovery code sent at once through two instances: one session",
    async () => {
      await operator(server, "at-once-two@ops.example");
      const { codes } = await setUp("at-once-two@ops.example");
      const second = await startTestServer(kind, { LOG_LEVEL: "warn" }, { shareStoreOf: server });
      try {
        second.clock.offsetMs = server.clock.offsetMs;
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            consoleLogin(i % 2 ? second : server, "at-once-two@ops.example", PASSWORD, codes[1]),
          ),
        );
        expect(answers.filter((a) => a.res.status === 200)).toHaveLength(1);
        expect(answers.every((a) => a.res.status === 200 || a.setCookie === "")).toBe(true);
      } finally {
        await second.close();
      }
    },
  );

  it("wrong recovery codes count against the lockout like wrong codes", async () => {
    await operator(server, "guess-rc@ops.example");
    const { codes } = await setUp("guess-rc@ops.example");
    for (let i = 0; i < 4; i++) {
      const wrong = await login("guess-rc@ops.example", `aaaaa-aaaa${"abcd"[i]}`);
      expect(wrong.res.json.message).toBe("Wrong or already used code");
    }
    expect((await login("guess-rc@ops.example", "bbbbb-bbbbb")).res.status).toBe(423);
    // Locked: a right one is not even looked at (and stays unused).
    expect((await login("guess-rc@ops.example", codes[0])).res.status).toBe(423);
    server.clock.advance(15 * 60_000 + 1);
    expect((await login("guess-rc@ops.example", codes[0])).res.status).toBe(200);
  });

  it("new codes with the password and a code replace the old ones; a stolen session alone gets none", async () => {
    const id = await operator(server, "regen@ops.example");
    const { secret, codes, cookie, csrf } = await setUp("regen@ops.example");
    const regenerate = (body: unknown) =>
      consoleCall(server, "POST", "/ops/api/second-factor/recovery-codes", { cookie, csrf, body });
    expect((await regenerate({ password: "wrong-password-1", code: codeOf(secret) })).status).toBe(400);
    expect((await regenerate({ password: PASSWORD })).status).toBe(400);
    const fresh = await regenerate({ password: PASSWORD, code: codeOf(secret) });
    expect(fresh.status).toBe(200);
    const next = fresh.json.recovery_codes as string[];
    expect(next).toHaveLength(10);
    expect(next.some((c) => codes.includes(c))).toBe(false);
    // The session goes on: how the operator signs in did not change.
    expect(await left(cookie)).toBe(10);
    expect((await login("regen@ops.example", codes[0])).res.json.message).toBe("Wrong or already used code");
    expect((await login("regen@ops.example", next[0])).res.status).toBe(200);
    const replaced = (await audit(id)).filter((e) => e.action === "operator.recovery_codes");
    expect(replaced.map((e) => e.after)).toEqual([{ recovery_codes: "replaced" }]);
    nextStep();
    // Off: nothing to replace.
    await consoleCall(server, "POST", "/ops/api/second-factor/remove", {
      cookie,
      csrf,
      body: { password: PASSWORD, code: codeOf(secret) },
    });
  });

  it("a lost phone: a recovery code signs in, then turns two-step sign-in off; the codes go with it", async () => {
    await operator(server, "lost-phone@ops.example");
    const { codes } = await setUp("lost-phone@ops.example");
    const s = await login("lost-phone@ops.example", codes[0]);
    expect(s.res.status).toBe(200);
    const removed = await consoleCall(server, "POST", "/ops/api/second-factor/remove", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { password: PASSWORD, code: codes[1] },
    });
    expect(removed.status).toBe(200);
    expect(await left(sessionCookieOf(removed))).toBe(0);
    // Set up again (on the new phone): new codes, the old ones are gone.
    const again = await setUp("lost-phone@ops.example");
    expect(again.codes.some((c) => codes.includes(c))).toBe(false);
    expect((await login("lost-phone@ops.example", codes[2])).res.json.message).toBe(
      "Wrong or already used code",
    );
    expect((await login("lost-phone@ops.example", again.codes[0])).res.status).toBe(200);
  });

  it("an admin's reset deletes the codes", async () => {
    await operator(server, "chief-rc@ops.example", "admin");
    const chief = await login("chief-rc@ops.example");
    const id = await operator(server, "reset-rc@ops.example");
    const first = await setUp("reset-rc@ops.example");
    const reset = await consoleCall(server, "PATCH", `/ops/api/operators/${id}`, {
      cookie: chief.cookie,
      csrf: chief.csrf,
      body: { reset_second_factor: true },
    });
    expect(reset.status).toBe(200);
    const after = await login("reset-rc@ops.example");
    expect(after.res.status).toBe(200);
    expect(await left(after.cookie)).toBe(0);
    // Turned on again, the codes from before the reset do not sign in.
    const second = await setUp("reset-rc@ops.example");
    expect((await login("reset-rc@ops.example", first.codes[0])).res.status).toBe(401);
    // The admin API's reset (the CLI's `operator reset-2fa`) deletes them too.
    expect(
      (
        await server.admin("POST", "/admin/v1/operators/reset-second-factor", {
          email: "reset-rc@ops.example",
        })
      ).status,
    ).toBe(200);
    await setUp("reset-rc@ops.example");
    expect((await login("reset-rc@ops.example", second.codes[0])).res.status).toBe(401);
  });

  it("the store keeps the codes' hashes, never the codes", async () => {
    const own = await storeEnv(kind);
    const alone = await startTestServer(kind, { ...own.env, LOG_LEVEL: "warn" });
    try {
      const id = await operator(alone, "stored@ops.example");
      const { codes } = await setUp("stored@ops.example", alone);
      expect((await login("stored@ops.example", codes[3], alone)).res.status).toBe(200);
      await alone.close();
      const rows = await withStore(own.env, (s) =>
        s.db.selectFrom("operator_recovery_codes").selectAll().orderBy("id").execute(),
      );
      expect(rows).toHaveLength(10);
      const sha = (c: string) => createHash("sha256").update(c.replace("-", "").toUpperCase()).digest("hex");
      expect(rows.map((r) => r.code_hash).sort()).toEqual(codes.map(sha).sort());
      expect(rows.every((r) => Number(r.operator_id) === id)).toBe(true);
      expect(rows.filter((r) => r.used_at !== null).map((r) => r.code_hash)).toEqual([
        sha(codes[3] as string),
      ]);
      const text = JSON.stringify(rows).toLowerCase();
      for (const c of codes) expect(text).not.toContain(c.replace("-", "").toLowerCase());
    } finally {
      await alone.close().catch(() => {});
      await own.cleanup();
    }
  });
});
