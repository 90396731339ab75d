import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import { ADDRESS_FAILURES, createConsoleService } from "../../src/operators/service.js";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories } from "../../src/store/index.js";
import { createOperatorRepository } from "../../src/store/operators/operators.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { pauseAfterStatement, pausePoint } from "../support/pause.js";
import { freshStore } from "../support/store.js";

/** Operator sign-in against a password change running at the same moment, on a real store of each kind. */
describe.each(STORES)("console sessions and password changes (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
  });
  afterAll(async () => {
    await close?.();
  });

  /**
   * A console service whose next sign-in (once armed) stops between checking the password and
   * opening its session (recordSuccess runs in between), until `pause` lets it go.
   */
  function pausingSignIns() {
    let armed = false;
    const pause = pausePoint();
    const repos = createRepositories(store);
    const operators = repos.operators;
    repos.operators = {
      ...operators,
      async recordSuccess(id) {
        if (armed) {
          armed = false;
          await pause.stop();
        }
        return operators.recordSuccess(id);
      },
    };
    const service = createConsoleService({
      repos,
      box: createSecretBox(randomBytes(32)),
      now: () => Date.now(),
    });
    return {
      service,
      pause,
      pauseNextSignIn: () => {
        armed = true;
      },
    };
  }

  it("a sign-in that checked the old password while it was being changed opens no session", async () => {
    // The sign-in stops between checking the password and opening its session (recordSuccess runs
    // in between); meanwhile the operator changes the password.
    const { service, pause, pauseNextSignIn } = pausingSignIns();
    const created = await service.createOperator("ayse@ops.example", "admin", "old-password-123");
    if (!created.ok) throw new Error("operator not created");

    pauseNextSignIn();
    const stale = service.login("ayse@ops.example", "old-password-123", "10.0.0.1");
    await pause.reached;
    const changed = await service.changePassword(created.value, "old-password-123", "new-password-456", {
      token: "kept",
      deviceHash: null,
    });
    expect(changed.ok).toBe(true);
    pause.go();
    // Before: it opened a session, valid for 12 hours, with a password that no longer worked.
    expect(await stale).toEqual({ ok: false, reason: "invalid" });
    expect((await store.db.selectFrom("operator_sessions").select("token_hash").execute()).length).toBe(1);
    // Nor is its browser known: it is recorded with the session, in the same transaction.
    expect(await store.db.selectFrom("operator_devices").selectAll().execute()).toEqual([]);
    // The change's own session goes on, under a new token (operators/console-sessions.ts renewSession).
    if (!changed.ok) throw new Error("not changed");
    expect(await service.session("kept")).toBeUndefined();
    expect(await service.session(changed.token ?? "none")).toBeDefined();
    // It failed like any wrong password: in the audit log, and counted against its address.
    const audit = await store.db
      .selectFrom("audit_log")
      .select("action")
      .where("entity_type", "=", "operator")
      .where("entity_id", "=", String(created.value.id))
      .where("action", "like", "operator.login%")
      .execute();
    expect(audit.map((a) => a.action)).toEqual(["operator.login_failed"]);
    // Other emails each time: one email's own lock would answer first (after five).
    for (let i = 1; i < ADDRESS_FAILURES; i++)
      expect(await service.login(`nobody${i}@ops.example`, "wrong-password", "10.0.0.1")).toEqual({
        ok: false,
        reason: "invalid",
      });
    expect(await service.login("nobody@ops.example", "wrong-password", "10.0.0.1")).toMatchObject({
      ok: false,
      reason: "throttled",
    });
    // The new password signs in as usual.
    expect((await service.login("ayse@ops.example", "new-password-456", "10.0.0.2")).ok).toBe(true);
    // Twenty-odd password hashes, each slow on purpose: 6 s alone, several times that when the suite's
    // other files share the two cores.
  }, 120_000);

  it("a sign-in with the password alone that overlapped turning on the second factor opens no session", async () => {
    // The sign-in read the operator (no second factor yet) and checked the password; it stops before
    // opening its session, and meanwhile the operator turns the second factor on.
    const { service, pause, pauseNextSignIn } = pausingSignIns();
    const created = await service.createOperator("zeynep@ops.example", "operator", "the-password-123");
    if (!created.ok) throw new Error("operator not created");
    pauseNextSignIn();
    const passwordOnly = service.login("zeynep@ops.example", "the-password-123", "10.0.0.4");
    await pause.reached;
    const started = await service.secondFactor.start(created.value.id, created.value.email);
    if (!started.ok) throw new Error("not started");
    const code = totpCode(fromBase32(started.value.secret), totpStep(Date.now()));
    const on = await service.secondFactor.confirm(created.value.id, "the-password-123", code, {
      token: "kept-3",
      deviceHash: null,
    });
    expect(on.ok).toBe(true);
    pause.go();
    // Before: it opened a session, valid for 12 hours, with the password alone, after turning the
    // second factor on had ended every such session.
    expect(await passwordOnly).toEqual({ ok: false, reason: "invalid" });
    const sessions = await store.db
      .selectFrom("operator_sessions")
      .select("token_hash")
      .where("operator_id", "=", created.value.id)
      .execute();
    expect(sessions.length).toBe(1);
    if (!on.ok) throw new Error("not on");
    expect(await service.session("kept-3")).toBeUndefined();
    expect(await service.session(on.token ?? "none")).toBeDefined();
  });

  it("a password change that comes while a sign-in opens its session ends that session", async () => {
    // The sign-in stops inside the opening of its session, after reading the operator's hash.
    let pauseNextSession = false;
    let armed = false;
    const pause = pauseAfterStatement({ when: () => armed });
    const repos = createRepositories(store);
    const slow = createOperatorRepository(store.db.withPlugin(pause.plugin), store.dialect);
    repos.operators = {
      ...repos.operators,
      createSession(values, checked) {
        armed = pauseNextSession;
        pauseNextSession = false;
        return slow.createSession(values, checked);
      },
    };
    const service = createConsoleService({
      repos,
      box: createSecretBox(randomBytes(32)),
      now: () => Date.now(),
    });
    const created = await service.createOperator("mehmet@ops.example", "admin", "old-password-123");
    if (!created.ok) throw new Error("operator not created");
    pauseNextSession = true;
    const signIn = service.login("mehmet@ops.example", "old-password-123", "10.0.0.3");
    await pause.reached;
    const change = service.changePassword(created.value, "old-password-123", "new-password-456", {
      token: "kept-2",
      deviceHash: null,
    });
    // The change runs as far as it can while the session is being opened: on PostgreSQL, until it
    // waits for the sign-in's share lock; the embedded store's one writer keeps no lock to see, and
    // there it is given time.
    if (kind === "postgres") {
      await expect
        .poll(async () => {
          const { rows } = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE NOT l.granted AND a.datname = current_database()`.execute(store.db);
          return rows[0]?.n;
        })
        .toBeGreaterThan(0);
    } else await new Promise((r) => setTimeout(r, 300));
    pause.go();
    const [signedIn, changed] = await Promise.all([signIn, change]);
    expect(changed.ok).toBe(true);
    // The sign-in may have answered 200, but its session did not outlive the change (without the
    // row share-locked on PostgreSQL, the change ended the sessions before this one was written).
    if (signedIn.ok) expect(await service.session(signedIn.token)).toBeUndefined();
    if (!changed.ok) throw new Error("not changed");
    expect(await service.session(changed.token ?? "none")).toBeDefined();
  });
});
