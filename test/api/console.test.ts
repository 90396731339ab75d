import pg from "pg";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleCall, consoleLogin, sessionCookieOf } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  pendingDeposit,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";
import { eventually } from "../support/receiver.js";

describe.each(STORES)("operator console API: sessions, CSRF, roles, audit (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server);
    for (const role of ["admin", "operator", "viewer"]) {
      const res = await server.admin("POST", "/admin/v1/operators", {
        email: `${role}@ops.example`,
        role,
        password: `${role}-password-123`,
      });
      expect(res.status).toBe(201);
      expect(res.json).not.toHaveProperty("password");
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (method: string, path: string, opts: Parameters<typeof consoleCall>[3] = {}) =>
    consoleCall(server, method, path, opts);
  const login = (email: string, password: string) => consoleLogin(server, email, password);
  const deposit = () => pendingDeposit(server, firm);

  /** A search the server cannot read: 400 with the one message that says what to check. */
  async function refusedSearch(filter: string, value: string, cookie: string) {
    const refused = await call("GET", `/ops/api/transactions?${filter}=${encodeURIComponent(value)}`, {
      cookie,
    });
    expect([value, refused.status, refused.json.message]).toEqual([
      value,
      400,
      "bad search: check ids, statuses, amounts, names and ISO 8601 dates",
    ]);
  }

  it("creating an operator without a password shows a one-time password once", async () => {
    const res = await server.admin("POST", "/admin/v1/operators", {
      email: "New@Ops.example",
      role: "viewer",
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ email: "new@ops.example", role: "viewer" });
    expect(res.json.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await login("new@ops.example", res.json.password)).res.status).toBe(200);
    const again = await server.admin("POST", "/admin/v1/operators", {
      email: "new@ops.example",
      role: "admin",
    });
    expect(again.status).toBe(400);
  });

  it("login sets an HttpOnly, SameSite=Strict session cookie; wrong passwords are refused alike", async () => {
    const ok = await login("operator@ops.example", "operator-password-123");
    expect(ok.res.status).toBe(200);
    expect(ok.setCookie).toMatch(
      /^payintake_ops=[A-Za-z0-9_-]{43}; Path=\/ops; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    expect(ok.res.json.operator).toEqual({
      id: expect.any(Number),
      email: "operator@ops.example",
      role: "operator",
      second_factor: false,
    });
    const wrong = await login("operator@ops.example", "nope");
    const unknown = await login("nobody@ops.example", "nope");
    expect(wrong.res.status).toBe(401);
    expect(unknown.res.json).toEqual(wrong.res.json);
    expect((await call("GET", "/ops/api/me", { cookie: ok.cookie })).json.operator.email).toBe(
      "operator@ops.example",
    );
  });

  it("every route needs a session; every change needs the CSRF token; roles are enforced", async () => {
    const id = await deposit();
    expect((await call("GET", "/ops/api/queue")).status).toBe(401);
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    expect((await call("GET", "/ops/api/queue", { cookie: viewer.cookie })).status).toBe(200);
    const denied = await call("POST", `/ops/api/transactions/${id}/approve`, {
      cookie: viewer.cookie,
      csrf: viewer.csrf,
      body: {},
    });
    expect(denied.status).toBe(403);
    expect(denied.json.message).toBe("Not allowed for your role");

    const op = await login("operator@ops.example", "operator-password-123");
    const noCsrf = await call("POST", `/ops/api/transactions/${id}/approve`, { cookie: op.cookie, body: {} });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.json.message).toBe("CSRF token missing or wrong");
    const wrongCsrf = await call("POST", `/ops/api/transactions/${id}/approve`, {
      cookie: op.cookie,
      csrf: viewer.csrf,
      body: {},
    });
    expect(wrongCsrf.status).toBe(403);
    expect((await server.admin("GET", `/admin/v1/transactions/${id}`)).json.status).toBe("pending");
  });

  it("the queue lists pending deposits oldest first; a decision is recorded with who made it, audited, and made once", async () => {
    const first = await deposit();
    const second = await deposit();
    const op = await login("operator@ops.example", "operator-password-123");
    const q = await call("GET", "/ops/api/queue?type=deposit&order=oldest", { cookie: op.cookie });
    const ids = q.json.map((t: { id: number }) => t.id);
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));
    const approved = await call("POST", `/ops/api/transactions/${first}/approve`, {
      cookie: op.cookie,
      csrf: op.csrf,
      body: { amount: "149.00", note: "short" },
    });
    expect(approved.status).toBe(200);
    expect(approved.json.transaction).toMatchObject({
      status: "approved",
      amount: "149.00",
      original_amount: "150.00",
      decided_by: "operator:operator@ops.example",
    });
    const twice = await call("POST", `/ops/api/transactions/${first}/reject`, {
      cookie: op.cookie,
      csrf: op.csrf,
      body: {},
    });
    expect(twice.status).toBe(409);
    const audit = await call("GET", `/ops/api/audit?entity_type=transaction&entity_id=${first}`, {
      cookie: op.cookie,
    });
    expect(audit.json).toEqual([
      {
        id: expect.any(Number),
        actor: "operator:operator@ops.example",
        action: "transaction.approve",
        entity_type: "transaction",
        entity_id: String(first),
        before: { status: "pending", amount: 15_000 },
        after: { status: "approved", amount: 14_900, note: "short" },
        at: expect.stringMatching(/Z$/),
      },
    ]);
    // More than asked for: an operator is refused (found by review: any sum up to 999999999.99 went
    // through, on one operator's word), an admin may, and so may the admin API's token.
    const third = await deposit();
    const more = await call("POST", `/ops/api/transactions/${third}/approve`, {
      cookie: op.cookie,
      csrf: op.csrf,
      body: { amount: "150.01" },
    });
    expect(more.status).toBe(403);
    expect(more.json).toEqual({
      success: false,
      code: "above_asked_needs_admin",
      message: "approving more than the amount asked for needs an admin",
    });
    expect((await server.admin("GET", `/admin/v1/transactions/${third}`)).json.status).toBe("pending");
    const admin = await login("admin@ops.example", "admin-password-123");
    const byAdmin = await call("POST", `/ops/api/transactions/${third}/approve`, {
      cookie: admin.cookie,
      csrf: admin.csrf,
      body: { amount: "150.01" },
    });
    expect(byAdmin.json.transaction).toMatchObject({ amount: "150.01", original_amount: "150.00" });
    const fourth = await deposit();
    const viaToken = await server.admin("POST", `/admin/v1/transactions/${fourth}/approve`, {
      actor: "ayse",
      amount: "200.00",
    });
    expect(viaToken.json.transaction).toMatchObject({ amount: "200.00", decided_by: "admin-api:ayse" });

    // A decision through the admin token names whoever its holder says, and is recorded as such:
    // never as a signed-in operator's (found by review: it could name a viewer, who decides nothing).
    const claimed = await server.admin("POST", `/admin/v1/transactions/${second}/reject`, {
      actor: "operator:viewer@ops.example",
    });
    expect(claimed.json.transaction.decided_by).toBe("admin-api:operator:viewer@ops.example");
    const claimedAudit = await call("GET", `/ops/api/audit?entity_type=transaction&entity_id=${second}`, {
      cookie: op.cookie,
    });
    expect(claimedAudit.json.map((e: { actor: string }) => e.actor)).toEqual([
      "admin-api:operator:viewer@ops.example",
    ]);
    const after = await call("GET", "/ops/api/queue?type=deposit", { cookie: op.cookie });
    expect(after.json.map((t: { id: number }) => t.id)).not.toContain(first);
  });

  it("search, detail (routing, history, deliveries; full national id for admins only), CSV export, redeliver", async () => {
    const id = await deposit();
    const op = await login("operator@ops.example", "operator-password-123");
    const admin = await login("admin@ops.example", "admin-password-123");
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const tx = (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;
    for (const query of [
      `reference=${tx.reference}`,
      `user_id=${tx.user_id}`,
      `id=${id}`,
      "status=pending&type=deposit",
    ]) {
      const found = await call("GET", `/ops/api/transactions?${query}`, { cookie: viewer.cookie });
      expect(found.status, query).toBe(200);
      expect(
        found.json.map((t: { id: number }) => t.id),
        query,
      ).toContain(id);
    }
    const byIban = await call(
      "GET",
      `/ops/api/transactions?iban=${encodeURIComponent("tr33 0006 1005 1978 6457 8413 26")}`,
      { cookie: viewer.cookie },
    );
    expect(byIban.json.map((t: { id: number }) => t.id)).toContain(id);
    const future = new Date(server.clock.now() + 3_600_000).toISOString();
    expect(
      (await call("GET", `/ops/api/transactions?from=${future}`, { cookie: viewer.cookie })).json,
    ).toEqual([]);
    expect(
      (await call("GET", "/ops/api/transactions?from=yesterday", { cookie: viewer.cookie })).status,
    ).toBe(400);

    await call("POST", `/ops/api/transactions/${id}/reject`, {
      cookie: op.cookie,
      csrf: op.csrf,
      body: { note: "no money" },
    });
    const detail = await call("GET", `/ops/api/transactions/${id}`, { cookie: viewer.cookie });
    expect(detail.json).toMatchObject({ id, status: "rejected", national_id: "12***01" });
    expect(detail.json).not.toHaveProperty("national_id_full");
    expect(detail.json.routing).toEqual([expect.objectContaining({ outcome: "accepted" })]);
    expect(detail.json.history).toEqual([
      expect.objectContaining({ actor: "operator:operator@ops.example", action: "transaction.reject" }),
    ]);
    expect(detail.json.callbacks).toHaveLength(1);
    // The full national id is asked for, by an admin only, and each time logged (before it is sent).
    const asAdmin = await call("GET", `/ops/api/transactions/${id}`, { cookie: admin.cookie });
    expect(asAdmin.json).toMatchObject({ national_id: "12***01" });
    expect(JSON.stringify(asAdmin.json)).not.toContain("12345678901");
    const reveal = (s: { cookie: string; csrf: string }) =>
      call("POST", `/ops/api/transactions/${id}/national-id`, { cookie: s.cookie, csrf: s.csrf });
    expect((await reveal(viewer)).status).toBe(403);
    expect((await reveal(op)).status).toBe(403);
    expect((await reveal({ cookie: admin.cookie, csrf: "" })).status).toBe(403);
    expect((await reveal(admin)).json).toEqual({ national_id_full: "12345678901" });
    const viewed = (await call("GET", `/ops/api/transactions/${id}`, { cookie: admin.cookie })).json.history;
    expect(viewed).toContainEqual(
      expect.objectContaining({
        actor: "operator:admin@ops.example",
        action: "transaction.national_id_viewed",
      }),
    );

    const csv = await request(`${server.url}/ops/api/transactions.csv?id=${id}`, {
      headers: { cookie: viewer.cookie },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["content-disposition"]).toBe('attachment; filename="transactions.csv"');
    const lines = (await csv.body.text()).split("\r\n");
    expect(lines[0]).toBe(
      "id,created_at,type,status,firm_id,reference,amount,original_amount,method,user_id,username,first_name,last_name,assigned_bank_name,assigned_iban,iban,decided_at,decided_by,firm_name,middle_name,iban_valid,decision_note",
    );
    expect(lines[1]).toContain(`${id},`);
    expect(lines[1]).toContain(",rejected,");
    // The firm by name and the operator's note, last, for reconciling against a bank statement.
    const firmName = (await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json.name;
    expect(lines[1]?.endsWith(`,${firmName},,,no money`), lines[1]).toBe(true);
    // Who exported what is logged: the filter (an IBAN masked) and the rows it carried.
    const iban = "TR330006100519786457841326";
    await request(`${server.url}/ops/api/transactions.csv?iban=${iban}&format=excel`, {
      headers: { cookie: viewer.cookie },
    }).then((r) => r.body.dump());
    const exports = await server.admin("GET", "/admin/v1/audit?action=transactions.exported");
    expect(exports.json.slice(0, 2)).toEqual([
      expect.objectContaining({
        actor: "operator:viewer@ops.example",
        entity_type: "export",
        after: {
          filter: { iban: expect.not.stringContaining(iban.slice(4, 20)), format: "excel" },
          rows: expect.any(Number),
          format: "excel",
        },
      }),
      expect.objectContaining({
        actor: "operator:viewer@ops.example",
        after: { filter: { id }, rows: 1, format: "csv" },
      }),
    ]);

    const cb = detail.json.callbacks[0].id;
    expect(
      (await call("POST", `/ops/api/callbacks/${cb}/redeliver`, { cookie: viewer.cookie, csrf: viewer.csrf }))
        .status,
    ).toBe(403);
    const redo = await call("POST", `/ops/api/callbacks/${cb}/redeliver`, {
      cookie: op.cookie,
      csrf: op.csrf,
    });
    expect(redo.status).toBe(200);
    expect(redo.json.status).toBe("pending");
  });

  it("the dashboard counts today's deposits and withdrawals, approval rate, time to decision, callbacks, channels", async () => {
    // Run a few minutes before Türkiye's midnight (21:00 UTC), the day would turn between these
    // deposits and the count (with the 90 s below): the test starts in the new day instead.
    const toMidnight = 86_400_000 - ((server.clock.now() + 3 * 3_600_000) % 86_400_000);
    if (toMidnight < 300_000) server.clock.advance(toMidnight + 1_000);
    const a = await deposit();
    const b = await deposit();
    const op = await login("operator@ops.example", "operator-password-123");
    server.clock.advance(90_000);
    await call("POST", `/ops/api/transactions/${a}/approve`, { cookie: op.cookie, csrf: op.csrf, body: {} });
    await call("POST", `/ops/api/transactions/${b}/reject`, { cookie: op.cookie, csrf: op.csrf, body: {} });
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const d = await call("GET", "/ops/api/dashboard", { cookie: viewer.cookie });
    expect(d.status).toBe(200);
    // Today's: the file's earlier tests may have made theirs yesterday (see above).
    const all = (await server.admin("GET", "/admin/v1/transactions?limit=1000")).json.filter(
      (t: { type: string; created_at: string }) =>
        t.type === "deposit" && Date.parse(t.created_at) >= Date.parse(d.json.since),
    );
    expect(d.json.deposits.count).toBe(all.length);
    // Every deposit of today falls in the hour (Türkiye's) it was created in.
    const hour = (server.clock.now() - Date.parse(d.json.since)) / 3_600_000;
    expect(d.json.deposits.hourly).toHaveLength(24);
    const h = Math.floor(hour);
    expect(d.json.deposits.hourly[h] + (h > 0 ? d.json.deposits.hourly[h - 1] : 0)).toBeGreaterThanOrEqual(2);
    expect(d.json.deposits.hourly.reduce((a: number, b: number) => a + b, 0)).toBe(all.length);
    expect(d.json.deposits.approved).toBe(
      all.filter((t: { status: string }) => t.status === "approved").length,
    );
    expect(d.json.deposits.rejected).toBe(
      all.filter((t: { status: string }) => t.status === "rejected").length,
    );
    expect(d.json.deposits.approval_rate).toBeGreaterThan(0);
    expect(d.json.deposits.approval_rate).toBeLessThan(1);
    expect(d.json.median_seconds_to_decision).toBeGreaterThanOrEqual(0);
    expect(d.json.callbacks).toEqual({
      pending: expect.any(Number),
      delivered: expect.any(Number),
      failed: expect.any(Number),
      failed_more: false,
      retrying: expect.any(Number),
      // Slow receivers or ones with a request hanging: none here (port 9 refuses at once).
      receivers: [],
    });
    // The firms' webhook (port 9) refuses every callback: the decisions' callbacks are retried,
    // and the dashboard says so while they are still pending.
    const retrying = await eventually(async () => {
      const { callbacks } = (await call("GET", "/ops/api/dashboard", { cookie: viewer.cookie })).json;
      return callbacks.retrying >= 2 ? callbacks : undefined;
    }, 10_000);
    expect(retrying.retrying).toBeLessThanOrEqual(retrying.pending);
    expect(d.json.withdrawals).toMatchObject({ count: 0, approval_rate: null });
    expect((await call("GET", "/ops/api/dashboard")).status).toBe(401);
  });

  it("admins rotate a firm's secret and deactivate an account; both are in the audit log; operators may not", async () => {
    const admin = await login("admin@ops.example", "admin-password-123");
    const op = await login("operator@ops.example", "operator-password-123");
    const account = (await call("GET", "/ops/api/accounts", { cookie: op.cookie })).json[0];
    expect(
      (await call("POST", `/ops/api/firms/${firm.id}/rotate-secret`, { cookie: op.cookie, csrf: op.csrf }))
        .status,
    ).toBe(403);
    const rotated = await call("POST", `/ops/api/firms/${firm.id}/rotate-secret`, {
      cookie: admin.cookie,
      csrf: admin.csrf,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret_key).toMatch(/^sk_/);
    // The merchant's old secret stops working at once.
    const refused = await send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() });
    expect(refused.status).toBe(401);
    firm = { ...firm, secret: rotated.json.secret_key };
    const off = await call("PATCH", `/ops/api/accounts/${account.id}`, {
      cookie: admin.cookie,
      csrf: admin.csrf,
      body: { active: false },
    });
    expect(off.json.active).toBe(false);
    await call("PATCH", `/ops/api/accounts/${account.id}`, {
      cookie: admin.cookie,
      csrf: admin.csrf,
      body: { active: true },
    });
    const audit = (await call("GET", "/ops/api/audit", { cookie: op.cookie })).json;
    const rotation = audit.find((a: { action: string }) => a.action === "firm.rotate_secret");
    expect(rotation).toMatchObject({
      actor: "operator:admin@ops.example",
      entity_id: String(firm.id),
      after: { secret: "rotated" },
    });
    expect(JSON.stringify(audit)).not.toContain(rotated.json.secret_key);
    expect(
      audit.find(
        (a: { action: string; after: { active?: number } }) =>
          a.action === "account.update" && a.after.active === 0,
      ),
    ).toMatchObject({
      before: { active: 1 },
      entity_id: String(account.id),
    });
  });

  it("five wrong passwords lock the account for 15 minutes (injected clock)", async () => {
    await server.admin("POST", "/admin/v1/operators", {
      email: "lock@ops.example",
      role: "viewer",
      password: "lock-password-123",
    });
    for (let i = 0; i < 5; i++) expect((await login("lock@ops.example", "wrong")).res.status).toBe(401);
    const locked = await login("lock@ops.example", "lock-password-123");
    expect(locked.res.status).toBe(423);
    server.clock.advance(15 * 60_000 + 1);
    expect((await login("lock@ops.example", "lock-password-123")).res.status).toBe(200);
  });

  it("guesses sent at once still lock the account after five: no more than five passwords are checked", async () => {
    await server.admin("POST", "/admin/v1/operators", {
      email: "burst@ops.example",
      role: "viewer",
      password: "burst-password-123",
    });
    const answers = await Promise.all(Array.from({ length: 12 }, () => login("burst@ops.example", "wrong")));
    const statuses = answers.map((a) => a.res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 423)).toHaveLength(7);
    // Locked now, for the right password too; the clock moves past it for the tests after this one.
    expect((await login("burst@ops.example", "burst-password-123")).res.status).toBe(423);
    server.clock.advance(15 * 60_000 + 1);
    expect((await login("burst@ops.example", "burst-password-123")).res.status).toBe(200);
  });

  it("twenty failed logins from one address stop it for 15 minutes, whatever the emails (injected clock)", async () => {
    // A fresh window: the clock moves past whatever earlier tests failed.
    server.clock.advance(15 * 60_000);
    for (let i = 0; i < 20; i++) {
      expect((await login(`spray${i}@ops.example`, "Password123!")).res.status).toBe(401);
    }
    const refused = await login("viewer@ops.example", "viewer-password-123");
    expect(refused.res.status).toBe(429);
    expect(refused.res.json.message).toBe("Too many failed logins from your address; try again later");
    expect(Number(refused.res.headers["retry-after"])).toBeGreaterThan(800);
    server.clock.advance(15 * 60_000);
    expect((await login("viewer@ops.example", "viewer-password-123")).res.status).toBe(200);
  });

  it("a concurrent burst of failed logins from one address cannot slip past the count: at most twenty are even tried", async () => {
    server.clock.advance(15 * 60_000);
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login(`burst${i}@ops.example`, "Password123!")),
    );
    const statuses = burst.map((b) => b.res.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    server.clock.advance(15 * 60_000);
  });

  it("logout ends the session; a password change ends the others and the old password stops working", async () => {
    await server.admin("POST", "/admin/v1/operators", {
      email: "pw@ops.example",
      role: "viewer",
      password: "first-password-123",
    });
    const a = await login("pw@ops.example", "first-password-123");
    const b = await login("pw@ops.example", "first-password-123");
    const bad = await call("POST", "/ops/api/password", {
      cookie: a.cookie,
      csrf: a.csrf,
      body: { current: "x", next: "second-password-123" },
    });
    expect(bad.status).toBe(400);
    const changed = await call("POST", "/ops/api/password", {
      cookie: a.cookie,
      csrf: a.csrf,
      body: { current: "first-password-123", next: "second-password-123" },
    });
    expect(changed.status).toBe(200);
    expect((await call("GET", "/ops/api/me", { cookie: b.cookie })).status).toBe(401);
    // The session it was made in goes on under a new token: a copy of the old cookie opens nothing.
    const renewed = sessionCookieOf(changed);
    expect(renewed).toMatch(/^payintake_ops=.{40,}/);
    expect(renewed).not.toBe(a.cookie);
    expect((await call("GET", "/ops/api/me", { cookie: a.cookie })).status).toBe(401);
    const me = await call("GET", "/ops/api/me", { cookie: renewed });
    expect([me.status, me.json.csrf_token]).toEqual([200, changed.json.csrf_token]);
    expect((await login("pw@ops.example", "first-password-123")).res.status).toBe(401);
    const c = await login("pw@ops.example", "second-password-123");
    expect((await call("POST", "/ops/api/logout", { cookie: c.cookie, csrf: c.csrf })).status).toBe(200);
    expect((await call("GET", "/ops/api/me", { cookie: c.cookie })).status).toBe(401);
  });

  it("a search shows a page of 200; the CSV export has every row the filter finds", async () => {
    const other = await createFirm(server);
    for (let i = 0; i < 21; i++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          send(server, other, {
            path: "/paymentapi/v1/deposits",
            body: depositBody({ user_id: `csv-${i}-${j}` }),
          }),
        ),
      );
    }
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const page = await call("GET", `/ops/api/transactions?firm=${other.id}`, { cookie: viewer.cookie });
    expect(page.json).toHaveLength(200);
    const csv = await request(`${server.url}/ops/api/transactions.csv?firm=${other.id}`, {
      headers: { cookie: viewer.cookie },
    });
    // Before: the export stopped at the search's 200 rows without a word.
    const rows = (await csv.body.text()).split("\r\n").filter((l) => l !== "");
    expect(rows).toHaveLength(1 + 210);
    expect(csv.headers["x-rows-limited"]).toBe("false");
  });

  it("an export longer than the rows it reads at a time comes whole, newest first, each row once, as the audit row counts it", async () => {
    // Unbounded: its 1,050 deposits stay pending, past a firm's default bound of 1,000 (ADR 0013).
    const other = await createFirm(server, { max_pending_count: null });
    // Past one page of the store's reads (1,000), so the walk from the newest goes on to a second.
    for (let i = 0; i < 21; i++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          send(server, other, {
            path: "/paymentapi/v1/deposits",
            body: depositBody({ user_id: `page-${i}-${j}` }),
          }),
        ),
      );
    }
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const csv = await request(`${server.url}/ops/api/transactions.csv?firm=${other.id}`, {
      headers: { cookie: viewer.cookie },
    });
    expect(csv.headers["x-rows-limited"]).toBe("false");
    const ids = (await csv.body.text())
      .split("\r\n")
      .slice(1)
      .filter((l) => l !== "")
      .map((l) => Number(l.split(",")[0]));
    expect(ids).toHaveLength(1_050);
    expect(new Set(ids).size).toBe(1_050);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const exports = await server.admin("GET", "/admin/v1/audit?action=transactions.exported");
    const mine = exports.json.find(
      (e: { after: { filter: { firm?: number } } }) => e.after?.filter?.firm === other.id,
    );
    expect(mine?.after?.rows).toBe(1_050);
  });

  it("the CSV export for Excel (format=excel): ';', a UTF-8 BOM, CRLF, decimal commas; the plain one unchanged", async () => {
    const excelFirm = await createFirm(server);
    const sent = [
      depositBody({ amount: "1234.50", first_name: "Ayşe", reference: "=SUM(1;2)" }),
      depositBody({ amount: "12.10", first_name: "Şükrü", reference: `R,${Date.now()}` }),
      // A reference of digits only, as many merchants' order numbers are: Excel would drop its zeros.
      depositBody({ amount: "5.00", first_name: "Can", reference: `000${Date.now()}` }),
    ];
    for (const body of sent)
      expect((await send(server, excelFirm, { path: "/paymentapi/v1/deposits", body })).json.message).toBe(
        "Yatırım talebiniz alındı",
      );
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const download = async (query: string) => {
      const res = await request(`${server.url}/ops/api/transactions.csv?${query}`, {
        headers: { cookie: viewer.cookie },
      });
      return { res, bytes: Buffer.from(await res.body.arrayBuffer()) };
    };

    const plain = await download(`firm=${excelFirm.id}`);
    expect(plain.res.headers["content-disposition"]).toBe('attachment; filename="transactions.csv"');
    expect(plain.bytes.subarray(0, 3).toString("utf8")).toBe("id,");
    const plainText = plain.bytes.toString("utf8");
    expect(plainText).toContain(",deposit,pending,");
    expect(plainText).toContain(",'=SUM(1;2),1234.50,");
    expect(plainText).toContain(`,"${sent[1]?.reference}",12.10,`);

    const excel = await download(`firm=${excelFirm.id}&format=excel`);
    expect(excel.res.statusCode).toBe(200);
    expect(excel.res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(excel.res.headers["content-disposition"]).toBe('attachment; filename="transactions-excel.csv"');
    expect([...excel.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = excel.bytes.subarray(3).toString("utf8").split("\r\n");
    expect(lines[0]).toBe(
      "id;created_at;type;status;firm_id;reference;amount;original_amount;method;user_id;username;first_name;last_name;assigned_bank_name;assigned_iban;iban;decided_at;decided_by;firm_name;middle_name;iban_valid;decision_note",
    );
    expect(lines).toHaveLength(3 + 1 + 1); // header, three rows, the last line's end
    expect(lines[4]).toBe("");
    const row = (reference: string) => lines.find((l) => l.includes(reference)) ?? "";
    // Still no formula; quoted for its ';'; amounts with a decimal comma (Excel-TR reads them as numbers).
    expect(row("SUM")).toContain(`;deposit;pending;${excelFirm.id};"'=SUM(1;2)";1234,50;;`);
    expect(row("SUM")).toContain(";Ayşe;Yılmaz;");
    // A comma is no separator here: unquoted.
    expect(row(sent[1]?.reference as string)).toContain(`;${sent[1]?.reference};12,10;;`);
    expect(row(sent[1]?.reference as string)).toContain(";Şükrü;Yılmaz;");
    // Digits only: written as a formula of that text, so Excel keeps the zeros; the plain file as is.
    expect(row(sent[2]?.reference as string)).toContain(`;"=""${sent[2]?.reference}""";5,00;;`);
    expect(plainText).toContain(`,${sent[2]?.reference},5.00,`);

    // Any other variant is a bad search, as the search itself would say.
    const other = await download(`firm=${excelFirm.id}&format=xlsx`);
    expect(other.res.statusCode).toBe(400);
  });

  it("firm names for the screens that list transactions: id and name, nothing else of a firm", async () => {
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const names = await call("GET", "/ops/api/firm-names", { cookie: viewer.cookie });
    expect(names.status).toBe(200);
    const all = (await server.admin("GET", "/admin/v1/firms")).json as { id: number; name: string }[];
    expect(names.json).toEqual(all.map((f) => ({ id: f.id, name: f.name })));
    expect(JSON.stringify(names.json)).not.toContain("pk_");
    expect((await call("GET", "/ops/api/firm-names")).status).toBe(401);
  });

  it("a search by amount finds exactly that amount (a bank statement's line); a bad amount is refused", async () => {
    const other = await createFirm(server);
    for (const amount of ["1250.50", "1250.5", "1250.05", "125.05"])
      await send(server, other, { path: "/paymentapi/v1/deposits", body: depositBody({ amount }) });
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const found = await call("GET", `/ops/api/transactions?firm=${other.id}&amount=1250.50`, {
      cookie: viewer.cookie,
    });
    expect(found.json.map((t: { amount: string }) => t.amount)).toEqual(["1250.50", "1250.50"]);
    // Also by the amount asked for, once an operator approved another one (the sum actually sent).
    const asked = found.json[0].id as number;
    const op = await login("operator@ops.example", "operator-password-123");
    await call("POST", `/ops/api/transactions/${asked}/approve`, {
      cookie: op.cookie,
      csrf: op.csrf,
      body: { amount: "1200.00" },
    });
    const byEither = async (amount: string) =>
      (
        await call("GET", `/ops/api/transactions?firm=${other.id}&amount=${amount}`, {
          cookie: viewer.cookie,
        })
      ).json.map((t: { id: number }) => t.id);
    expect(await byEither("1200.00")).toEqual([asked]);
    expect(await byEither("1250.50")).toContain(asked);
    for (const bad of ["1.250,50", "0", "12.345", "abc"]) await refusedSearch("amount", bad, viewer.cookie);
  });

  it("a search by payer name finds the name as a bank statement writes it, words in any order", async () => {
    const other = await createFirm(server);
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const made = async (body: Record<string, unknown>, path = "/paymentapi/v1/deposits") => {
      const sent = await send(server, other, { path, body });
      expect(sent.status).toBe(200);
      return (
        await call("GET", `/ops/api/transactions?firm=${other.id}&reference=${body.reference}`, {
          cookie: viewer.cookie,
        })
      ).json[0].id as number;
    };
    const sukru = await made(depositBody({ first_name: "Şükrü", last_name: "Öztürk" }));
    const nur = await made(depositBody({ first_name: "Ayşe", middle_name: "Nur", last_name: "Işık" }));
    const payout = await made(
      withdrawalBody({ first_name: "İsmail", last_name: "Öztürk" }),
      "/paymentapi/v1/withdrawals",
    );
    const byName = async (name: string) =>
      (
        await call("GET", `/ops/api/transactions?firm=${other.id}&name=${encodeURIComponent(name)}`, {
          cookie: viewer.cookie,
        })
      ).json.map((t: { id: number }) => t.id);
    expect(await byName("SUKRU OZTURK")).toEqual([sukru]);
    expect(await byName("öztürk")).toEqual([payout, sukru]);
    expect(await byName("OZT")).toEqual([payout, sukru]);
    expect(await byName("ISMAIL")).toEqual([payout]);
    expect(await byName("nur isik")).toEqual([nur]);
    expect(await byName("ayse isik")).toEqual([nur]);
    expect(await byName("urk")).toEqual([]);
    // With the other filters, as a statement line gives a name and a sum.
    const withAmount = await call(
      "GET",
      `/ops/api/transactions?firm=${other.id}&name=ozturk&type=deposit&amount=150.00`,
      { cookie: viewer.cookie },
    );
    expect(withAmount.json.map((t: { id: number }) => t.id)).toEqual([sukru]);
    // A row an older version wrote has no key: the next instance to start fills it in, in the
    // background (PostgreSQL, where a second instance can start beside this one).
    if (kind === "postgres") {
      const client = new pg.Client({ connectionString: server.env.DATABASE_URL });
      await client.connect();
      await client.query("UPDATE transactions SET payer_name_key = NULL WHERE id = $1", [sukru]);
      await client.end();
      expect(await byName("sukru")).toEqual([]);
      const second = await startTestServer(kind, { LOG_LEVEL: "warn" }, { shareStoreOf: server });
      try {
        await eventually(async () => ((await byName("sukru")).length === 1 ? true : undefined));
      } finally {
        await second.close();
      }
    }
    for (const bad of ["", " - . ", "a b c d e f", "x".repeat(101)])
      await refusedSearch("name", bad, viewer.cookie);
  });

  it("sign-ins, failed sign-ins, the lockout and sign-outs of operators are in the audit log", async () => {
    const created = await server.admin("POST", "/admin/v1/operators", {
      email: "audit@ops.example",
      role: "viewer",
      password: "audit-password-123",
    });
    const id = created.json.id as number;
    for (let i = 0; i < 5; i++) await login("audit@ops.example", `wrong-${i}-password`);
    server.clock.advance(15 * 60_000 + 1);
    const s = await login("audit@ops.example", "audit-password-123");
    expect((await call("POST", "/ops/api/logout", { cookie: s.cookie, csrf: s.csrf })).status).toBe(200);
    // Unknown emails leave nothing (they would only be noise).
    await login("nobody@ops.example", "whatever-password");
    const log = (await server.admin("GET", `/admin/v1/audit?entity_type=operator&entity_id=${id}`)).json;
    const actions = log.map((e: { action: string }) => e.action).reverse();
    expect(actions).toEqual([
      "operator.create",
      "operator.login_failed",
      "operator.login_failed",
      "operator.login_failed",
      "operator.login_failed",
      "operator.locked",
      "operator.login",
      "operator.logout",
    ]);
    expect(log.find((e: { action: string }) => e.action === "operator.login").actor).toBe(
      "operator:audit@ops.example",
    );
    expect(JSON.stringify(log)).not.toContain("audit-password-123");
  });

  it("wrong current passwords count like wrong logins: at the lockout the session ends", async () => {
    await server.admin("POST", "/admin/v1/operators", {
      email: "guess@ops.example",
      role: "viewer",
      password: "guess-password-123",
    });
    const s = await login("guess@ops.example", "guess-password-123");
    const tries = [];
    for (let i = 0; i < 5; i++) {
      tries.push(
        (
          await call("POST", "/ops/api/password", {
            cookie: s.cookie,
            csrf: s.csrf,
            body: { current: `guess-${i}-password`, next: "stolen-password-123" },
          })
        ).status,
      );
    }
    // Five guesses checked; the fifth locks the session's browser (ADR 0007) and ends every session
    // at once.
    expect(tries).toEqual([400, 400, 400, 400, 423]);
    expect((await call("GET", "/ops/api/me", { cookie: s.cookie })).status).toBe(401);
    // From that browser, sign-in guesses now count on the account's lock: five more, then 423.
    for (let i = 0; i < 5; i++)
      expect(
        (await consoleLogin(server, "guess@ops.example", `more-${i}`, undefined, s.device)).res.status,
      ).toBe(401);
    expect(
      (await consoleLogin(server, "guess@ops.example", "guess-password-123", undefined, s.device)).res.status,
    ).toBe(423);
    expect((await login("guess@ops.example", "guess-password-123")).res.status).toBe(423);
    server.clock.advance(15 * 60_000 + 1);
    expect((await login("guess@ops.example", "guess-password-123")).res.status).toBe(200);
  });

  // Withdrawals last: the dashboard test above counts none.
  it("the withdrawal queue narrows to one transfer method (FAST now, EFT within the banks' hours)", async () => {
    const firmOwn = await createFirm(server);
    const byMethod: Record<string, number> = {};
    for (const method of ["fast", "eft", "havale"]) {
      const body = withdrawalBody({ method });
      expect((await send(server, firmOwn, { path: "/paymentapi/v1/withdrawals", body })).status).toBe(200);
      const q = await send(server, firmOwn, {
        path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
      });
      byMethod[method] = q.json.data.id;
    }
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    for (const method of ["fast", "eft", "havale"]) {
      const res = await call("GET", `/ops/api/queue?type=withdrawal&firm=${firmOwn.id}&method=${method}`, {
        cookie: viewer.cookie,
      });
      expect([method, res.status, res.json.map((t: { id: number }) => t.id)]).toEqual([
        method,
        200,
        [byMethod[method]],
      ]);
      expect(res.headers["x-total-count"]).toBe("1");
    }
    const refused = await call("GET", "/ops/api/queue?type=withdrawal&method=wire", {
      cookie: viewer.cookie,
    });
    expect(refused.status).toBe(400);
  });

  it("an operator paying out a withdrawal marks it: a colleague is told whose it is, the queue shows it, both are audited", async () => {
    const body = withdrawalBody();
    expect((await send(server, firm, { path: "/paymentapi/v1/withdrawals", body })).status).toBe(200);
    const id = (
      await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` })
    ).json.data.id as number;
    const op = await login("operator@ops.example", "operator-password-123");
    const admin = await login("admin@ops.example", "admin-password-123");
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    const paying = (who: { cookie: string; csrf: string }, value: unknown) =>
      call("POST", `/ops/api/transactions/${id}/paying`, {
        cookie: who.cookie,
        csrf: who.csrf,
        body: { paying: value },
      });
    // At the same moment, from two operators: one gets it, the other is told whose it is.
    const [first, second] = await Promise.all([paying(op, true), paying(admin, true)]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 409]);
    const [won, lost] = first.status === 200 ? [op, admin] : [admin, op];
    const winner = won === op ? "operator@ops.example" : "admin@ops.example";
    const refused = first.status === 409 ? first : second;
    expect(refused.json).toMatchObject({
      success: false,
      code: "paid_out_elsewhere",
      paying_by: winner,
      paying_since: expect.stringMatching(/Z$/),
    });
    expect(refused.json.message).toMatch(new RegExp(`^being paid out by ${winner} since \\d{4}-`));
    // Asked again by its holder: still theirs, nothing new in the log.
    expect((await paying(won, true)).status).toBe(200);
    const queue = await call("GET", "/ops/api/queue?type=withdrawal", { cookie: viewer.cookie });
    const row = queue.json.find((t: { id: number }) => t.id === id);
    expect(row).toMatchObject({ paying_by: winner, paying_since: expect.stringMatching(/Z$/) });
    // A viewer cannot; a deposit cannot be marked; a body it cannot read is refused.
    expect((await paying({ cookie: viewer.cookie, csrf: viewer.csrf }, true)).status).toBe(403);
    expect((await paying(won, "yes")).status).toBe(400);
    const dep = await deposit();
    const onDeposit = await call("POST", `/ops/api/transactions/${dep}/paying`, {
      cookie: op.cookie,
      csrf: op.csrf,
      body: { paying: true },
    });
    expect([onDeposit.status, onDeposit.json.message]).toEqual([
      409,
      "only a pending withdrawal can be marked as being paid",
    ]);
    // The detail names the holder too (deciding from there asks first).
    const detail = await call("GET", `/ops/api/transactions/${id}`, { cookie: viewer.cookie });
    expect(detail.json).toMatchObject({ paying_by: winner, paying_since: expect.stringMatching(/Z$/) });
    // Letting go names the holder the operator was shown: a mark someone else holds by now stays.
    const release = (who: { cookie: string; csrf: string }, holder?: string) =>
      call("POST", `/ops/api/transactions/${id}/paying`, {
        cookie: who.cookie,
        csrf: who.csrf,
        body: holder === undefined ? { paying: false } : { paying: false, holder },
      });
    const stale = await release(lost, "someone-else@ops.example");
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ paying_by: winner });
    expect((await call("GET", `/ops/api/transactions/${id}`, { cookie: viewer.cookie })).json.paying_by).toBe(
      winner,
    );
    // Let go of (by anyone: the holder may have gone home), then the other may take it.
    expect((await release(lost, winner)).status).toBe(200);
    expect((await paying(lost, true)).status).toBe(200);
    // No such transaction: 404 either way.
    for (const paying of [true, false]) {
      const none = await call("POST", "/ops/api/transactions/99999999/paying", {
        cookie: op.cookie,
        csrf: op.csrf,
        body: { paying },
      });
      expect([paying, none.status, none.json.message]).toEqual([paying, 404, "transaction not found"]);
    }
    // Without a holder, whoever holds it (the API's older form).
    expect((await release(won)).status).toBe(200);
    expect((await paying(lost, true)).status).toBe(200);
    const log = await call("GET", `/ops/api/audit?entity_type=transaction&entity_id=${id}`, {
      cookie: admin.cookie,
    });
    expect(log.json.map((e: { action: string; actor: string }) => e.action).sort()).toEqual([
      "transaction.paying",
      "transaction.paying",
      "transaction.paying",
      "transaction.paying_released",
      "transaction.paying_released",
    ]);
    // Decided, it leaves the queue, and so does its mark.
    await call("POST", `/ops/api/transactions/${id}/approve`, { cookie: op.cookie, csrf: op.csrf, body: {} });
    const after = await call("GET", "/ops/api/queue?type=withdrawal", { cookie: viewer.cookie });
    expect(after.json.map((t: { id: number }) => t.id)).not.toContain(id);
    expect((await paying(op, true)).status).toBe(409);
  });

  it("a withdrawal is found by its IBAN however either side writes it: grouped, dashed, lower case, as stored", async () => {
    // Stored as the merchant sent it (the contract never refuses an IBAN); the console shows it
    // grouped, and an operator pastes it from there, from the merchant's ticket or plain.
    const ids: number[] = [];
    // The third with narrow no-break spaces, as a PDF statement's text gives them.
    for (const iban of [
      "tr33 0006 1005 1978 6457 8413 26",
      "TR33-0006-1005-1978-6457-8413-26",
      "TR33\u202f0006\u202f1005\u202f1978\u202f6457\u202f8413\u202f26",
    ]) {
      const body = withdrawalBody({ iban });
      expect((await send(server, firm, { path: "/paymentapi/v1/withdrawals", body })).status).toBe(200);
      const q = await send(server, firm, {
        path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
      });
      ids.push(q.json.data.id);
    }
    const viewer = await login("viewer@ops.example", "viewer-password-123");
    for (const typed of [
      "TR330006100519786457841326",
      "TR33 0006 1005 1978 6457 8413 26",
      "tr33 0006 1005 1978 6457 8413 26",
      "TR33\u00a00006\u00a01005\u00a01978\u00a06457\u00a08413\u00a026",
      "TR33-0006-1005-1978-6457-8413-26",
      "TR33\u20090006\u20091005\u20091978\u20096457\u20098413\u200926",
      "TR33\u200b0006\u200b1005\u200b1978\u200b6457\u200b8413\u200b26",
    ]) {
      const found = await call(
        "GET",
        `/ops/api/transactions?type=withdrawal&iban=${encodeURIComponent(typed)}`,
        { cookie: viewer.cookie },
      );
      expect([typed, found.status]).toEqual([typed, 200]);
      const foundIds = found.json.map((t: { id: number }) => t.id);
      expect([typed, ids.every((id) => foundIds.includes(id))]).toEqual([typed, true]);
    }
    // Another IBAN is not found by it.
    const other = await call("GET", "/ops/api/transactions?type=withdrawal&iban=TR330006100519786457841327", {
      cookie: viewer.cookie,
    });
    expect(other.json.map((t: { id: number }) => t.id)).not.toContain(ids[0]);
  });
});

describe("console cookie behind a TLS proxy", () => {
  it("is Secure when a trusted proxy says https, and only then", async () => {
    const trusted = await startTestServer("sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_TRUST_PROXY: "127.0.0.1",
    });
    const plain = await startTestServer("sqlite", { LOG_LEVEL: "warn" });
    try {
      for (const server of [trusted, plain]) {
        await server.admin("POST", "/admin/v1/operators", {
          email: "tls@ops.example",
          role: "viewer",
          password: "tls-password-123",
        });
      }
      const viaProxy = (server: TestServer) =>
        request(`${server.url}/ops/api/login`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-proto": "https" },
          body: JSON.stringify({ email: "tls@ops.example", password: "tls-password-123" }),
        });
      const secure = await viaProxy(trusted);
      await secure.body.dump();
      expect(secure.statusCode).toBe(200);
      expect(String(secure.headers["set-cookie"])).toMatch(/; Secure$/);
      // An untrusted sender cannot claim https (nor anything else) through headers.
      const untrusted = await viaProxy(plain);
      await untrusted.body.dump();
      expect(untrusted.statusCode).toBe(200);
      expect(String(untrusted.headers["set-cookie"])).not.toContain("Secure");
    } finally {
      await trusted.close();
      await plain.close();
    }
  });
});
