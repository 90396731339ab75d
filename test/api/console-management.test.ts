import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleSession, consoleCall, consoleLogin, sessionCookieOf } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

type Role = "admin" | "operator" | "viewer";

describe.each(STORES)("console management API: roles, every change audited, operators (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  const as = {} as Record<Role, ConsoleSession & { id: number }>;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    firm = await createFirm(server);
    for (const role of ["admin", "operator", "viewer"] as const) {
      const email = `${role}@mgmt.example`;
      const password = `${role}-password-123`;
      expect((await server.admin("POST", "/admin/v1/operators", { email, role, password })).status).toBe(201);
      const login = await consoleLogin(server, email, password);
      as[role] = { cookie: login.cookie, csrf: login.csrf, id: login.res.json.operator.id };
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  const call = (who: Role | null, method: string, path: string, body?: unknown) =>
    consoleCall(server, method, path, who === null ? { body } : { ...as[who], body });
  const audit = async (query: string) => (await call("viewer", "GET", `/ops/api/audit?${query}`)).json;

  it("reads need a session; writes need the role: admin manages, operators ban, viewers only read", async () => {
    const provider = (
      await server.admin("POST", "/admin/v1/providers", { name: "Fixture", kind: "platform" })
    ).json;
    const account = (
      await server.admin("POST", "/admin/v1/accounts", {
        bank_name: "B",
        holder_name: "H",
        iban: "TR330006100519786457841326",
      })
    ).json;
    await server.admin("POST", "/admin/v1/channels", { code: `M${kind}`, kind: "manual" });
    const temp = (
      await server.admin("POST", "/admin/v1/operators", { email: `t-${kind}@mgmt.example`, role: "viewer" })
    ).json;
    const writes: [string, string, unknown, Role][] = [
      ["POST", "/ops/api/providers", { name: "P", kind: "platform" }, "admin"],
      ["PATCH", `/ops/api/providers/${provider.id}`, { auto_cancel_minutes: 5 }, "admin"],
      ["POST", `/ops/api/firms/${firm.id}/rotate-secret`, undefined, "admin"],
      ["PATCH", `/ops/api/accounts/${account.id}`, { max: "900.00" }, "admin"],
      ["PATCH", `/ops/api/channels/M${kind}`, { timeout_ms: 900 }, "admin"],
      ["DELETE", `/ops/api/firms/${firm.id}/bans`, { user_id: "u-roles" }, "operator"],
      ["PATCH", `/ops/api/operators/${temp.id}`, { role: "operator" }, "admin"],
      ["POST", "/ops/api/firms", { name: "F" }, "admin"],
      ["PATCH", `/ops/api/firms/${firm.id}`, { deposits: "open" }, "admin"],
      ["POST", "/ops/api/channels", { code: `C${kind}`, kind: "manual" }, "admin"],
      [
        "POST",
        "/ops/api/accounts",
        { bank_name: "B", holder_name: "H", iban: "TR330006100519786457841326" },
        "admin",
      ],
      ["PUT", `/ops/api/firms/${firm.id}/bans`, { user_id: "u-roles" }, "operator"],
      ["POST", "/ops/api/operators", { email: "x@mgmt.example", role: "viewer" }, "admin"],
    ];
    for (const [method, path, body, least] of writes) {
      expect((await call(null, method, path, body)).status, `${method} ${path} without session`).toBe(401);
      const noCsrf = await consoleCall(server, method, path, { cookie: as.admin.cookie, body });
      expect(noCsrf.status, `${method} ${path} without CSRF`).toBe(403);
      const refused: Role[] = least === "admin" ? ["viewer", "operator"] : ["viewer"];
      for (const role of refused) {
        const res = await call(role, method, path, body);
        expect(res.status, `${method} ${path} as ${role}`).toBe(403);
        expect(res.json).toEqual({
          success: false,
          code: "role_not_allowed",
          message: "Not allowed for your role",
        });
      }
      const ok = await call(least, method, path, body);
      expect([200, 201], `${method} ${path} as ${least}: ${JSON.stringify(ok.json)}`).toContain(ok.status);
    }
    for (const path of ["/ops/api/providers", "/ops/api/firms", "/ops/api/channels", "/ops/api/audit"]) {
      expect((await call(null, "GET", path)).status).toBe(401);
      expect((await call("viewer", "GET", path)).status).toBe(200);
    }
    expect((await call("operator", "GET", "/ops/api/operators")).status).toBe(403);
    expect((await call("viewer", "GET", "/ops/api/operators")).status).toBe(403);
  });

  it("bad input gets a clear 400 naming the field; unknown ids 404", async () => {
    const bad = await call("admin", "POST", "/ops/api/accounts", { bank_name: "B", holder_name: "H" });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^iban: /);
    // A payment account's IBAN is shown to payers: one a bank would refuse is refused here, whatever
    // door it comes by; a valid one typed grouped or in lower case is kept as a bank's form takes it.
    for (const iban of ["hello", "TR330006100519786457841327", "DE89370400440532013000"]) {
      for (const path of ["/ops/api/accounts", "/admin/v1/accounts"]) {
        const input = { bank_name: "B", holder_name: "H", iban };
        const res = path.startsWith("/ops")
          ? await call("admin", "POST", path, input)
          : await server.admin("POST", path, input);
        expect([iban, path, res.status, res.json.message]).toEqual([
          iban,
          path,
          400,
          "iban: must be a valid Turkish IBAN: TR and 24 digits, its check digits right",
        ]);
      }
    }
    const grouped = await server.admin("POST", "/admin/v1/accounts", {
      bank_name: "B",
      holder_name: "H",
      iban: "tr33 0006 1005 1978 6457 8413 26",
    });
    expect([grouped.status, grouped.json.iban]).toEqual([201, "TR330006100519786457841326"]);
    expect(
      (await server.admin("PATCH", `/admin/v1/accounts/${grouped.json.id}`, { active: false })).status,
    ).toBe(200);
    const range = await call("admin", "PATCH", `/ops/api/firms/${firm.id}`, {
      deposit_min: "500.00",
      deposit_max: "100.00",
    });
    expect(range.json).toEqual({
      success: false,
      code: "min_above_max",
      message: "the minimum must not exceed the maximum",
    });
    expect((await call("admin", "PATCH", "/ops/api/firms/999999", { active: false })).status).toBe(404);
    expect((await call("admin", "POST", "/ops/api/firms", "not an object")).status).toBe(400);
  });

  it("ids are decimal digits only, and text with control characters is a 400 on both stores, never a 500", async () => {
    await addAccount(server);
    const merchant = await createFirm(server);
    const body = depositBody();
    expect((await send(server, merchant, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(server, merchant, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    const id = q.json.data.id as number;
    const hex = `0x${id.toString(16)}`;

    for (const path of [
      `/admin/v1/transactions/${hex}`,
      `/admin/v1/transactions/${id}e0`,
      `/admin/v1/transactions/${id}.0`,
      `/admin/v1/transactions/%20${id}`,
    ])
      expect((await server.admin("GET", path)).status, path).toBe(400);
    expect((await server.admin("POST", `/admin/v1/transactions/${hex}/approve`, { actor: "x" })).status).toBe(
      400,
    );
    expect((await call("operator", "POST", `/ops/api/transactions/${hex}/reject`, {})).status).toBe(400);
    expect((await call("viewer", "GET", `/ops/api/transactions/${id}e0`)).status).toBe(400);

    const nul = await call("operator", "POST", `/ops/api/transactions/${id}/reject`, {
      note: "paid\u0000twice",
    });
    expect(nul.status).toBe(400);
    expect((await server.admin("GET", `/admin/v1/transactions/${id}`)).json.status).toBe("pending");

    for (const path of [
      "/admin/v1/audit?actor=%00",
      "/admin/v1/audit?entity_id=%00x",
      "/admin/v1/transactions?stauts=pending",
      "/admin/v1/transactions?limit=0x10",
    ])
      expect((await server.admin("GET", path)).status, path).toBe(400);
    for (const path of ["/ops/api/transactions?reference=%00", "/ops/api/transactions.csv?username=a%00"])
      expect((await call("viewer", "GET", path)).status, path).toBe(400);
    const login = await consoleCall(server, "POST", "/ops/api/login", {
      body: { email: "a\u0000b@x.example", password: "whatever-password" },
    });
    expect(login.status).toBe(400);

    const blank = await server.admin("PUT", `/admin/v1/firms/${firm.id}/bans`, { user_id: "   " });
    expect(blank.status).toBe(400);
  });

  it("operator text with a lone surrogate is refused like a control character; URLs and the reset email refuse both (a NUL was a 500 on PostgreSQL)", async () => {
    const CONTROL = "must not contain control characters";
    const merchant = await createFirm(server);
    await addAccount(server);
    const body = depositBody();
    expect((await send(server, merchant, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const id = (
      await send(server, merchant, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` })
    ).json.data.id as number;
    // JSON.stringify sends a lone surrogate as the escape "\ud800", as a client's JSON would.
    for (const bad of ["x\ud800", "x\udc00y", "x\u0000"]) {
      const cases: [string, string, Record<string, unknown>, string][] = [
        ["POST", "/admin/v1/firms", { name: bad }, "name"],
        ["POST", "/admin/v1/firms", { name: "F", webhook_url: `https://shop.example/${bad}` }, "webhook_url"],
        [
          "POST",
          "/admin/v1/accounts",
          { bank_name: bad, holder_name: "H", iban: "TR330006100519786457841326" },
          "bank_name",
        ],
        ["POST", "/admin/v1/accounts", { bank_name: "B", holder_name: "H", iban: `TR1${bad}` }, "iban"],
        ["PUT", `/admin/v1/firms/${merchant.id}/bans`, { user_id: bad }, "user_id"],
        ["POST", `/admin/v1/transactions/${id}/reject`, { actor: "a", note: bad }, "note"],
        ["POST", `/admin/v1/transactions/${id}/reject`, { actor: bad }, "actor"],
        [
          "POST",
          "/admin/v1/channels",
          { code: "HTTPX", kind: "http", url: `https://c.example/${bad}` },
          "url",
        ],
        ["POST", "/admin/v1/operators/reset-second-factor", { email: `a${bad}@x.example` }, "email"],
      ];
      for (const [method, path, input, field] of cases) {
        const res = await server.admin(method, path, input);
        expect([res.status, res.json], `${method} ${path} ${JSON.stringify(input)}`).toEqual([
          400,
          { success: false, code: "invalid_input", message: `${field}: ${CONTROL}` },
        ]);
      }
      const decided = await call("operator", "POST", `/ops/api/transactions/${id}/reject`, { note: bad });
      expect(decided.status).toBe(400);
    }
    expect((await server.admin("GET", `/admin/v1/transactions/${id}`)).json.status).toBe("pending");
    expect((await server.admin("GET", `/admin/v1/firms/${merchant.id}/bans`)).json).toEqual([]);
  });

  it("an id past an INTEGER column's range is an unknown id on both stores: firm filters find nothing, path ids 404, never a 500", async () => {
    const merchant = await createFirm(server);
    await addAccount(server);
    expect(
      (await send(server, merchant, { path: "/paymentapi/v1/deposits", body: depositBody() })).status,
    ).toBe(200);
    // firm_id is INTEGER: PostgreSQL refused these as out of range (a 500); the BIGINT ids just miss.
    for (const big of ["2147483648", "9999999999999", "9007199254740991"]) {
      for (const path of [`/admin/v1/transactions?firm=${big}`, `/admin/v1/callbacks?firm=${big}`]) {
        const res = await server.admin("GET", path);
        expect([res.status, res.json], path).toEqual([200, []]);
      }
      const csv = await fetch(`${server.url}/ops/api/transactions.csv?firm=${big}`, {
        headers: { cookie: as.viewer.cookie },
      });
      expect(csv.status).toBe(200);
      expect((await csv.text()).trim().split("\n")).toHaveLength(1);
      expect((await call("viewer", "GET", `/ops/api/transactions?firm=${big}`)).json).toEqual([]);
      for (const [method, path, body] of [
        ["GET", `/admin/v1/transactions/${big}`],
        ["POST", `/admin/v1/transactions/${big}/reject`, { actor: "x" }],
        ["GET", `/admin/v1/callbacks/${big}`],
        ["GET", `/admin/v1/firms/${big}`],
        ["GET", `/admin/v1/firms/${big}/bans`],
        ["PUT", `/admin/v1/firms/${big}/bans`, { user_id: "u-big" }],
        ["PATCH", `/admin/v1/accounts/${big}`, { active: true }],
        ["PATCH", `/admin/v1/providers/${big}`, { auto_cancel_minutes: 1 }],
      ] as [string, string, unknown?][])
        expect((await server.admin(method, path, body)).status, `${method} ${path}`).toBe(404);
      expect(
        (await server.admin("POST", "/admin/v1/firms", { name: "F", provider_id: Number(big) })).status,
      ).toBe(404);
      expect((await call("viewer", "GET", `/ops/api/transactions/${big}`)).status).toBe(404);
      expect((await call("admin", "PATCH", `/ops/api/operators/${big}`, { active: true })).status).toBe(404);
      const query = await send(server, merchant, { path: `/paymentapi/v1/transactions/${big}` });
      expect([query.status, query.json], big).toEqual([
        404,
        { success: false, message: "transaction not found" },
      ]);
    }
    // Past 16 digits an id is not an id at all (the operator API), and unknown to the contract's query.
    expect((await server.admin("GET", "/admin/v1/transactions?firm=99999999999999999")).status).toBe(400);
    const huge = await send(server, merchant, { path: "/paymentapi/v1/transactions/99999999999999999999" });
    expect(huge.status).toBe(404);
    // The filter still finds a firm's own rows.
    const own = (await server.admin("GET", `/admin/v1/transactions?firm=${merchant.id}`)).json;
    expect(own).toHaveLength(1);
  });

  it("callback redeliver --failed-since takes epoch milliseconds as digits or an ISO 8601 time, nothing looser", async () => {
    for (const failed_since of [1_700_000_000_000, "1700000000000", "2026-01-01T00:00:00Z"])
      expect((await server.admin("POST", "/admin/v1/callbacks/redeliver", { failed_since })).status).toBe(
        200,
      );
    for (const failed_since of ["yesterday", "2024-02-30T00:00:00Z", "2024-01-01", "1 Jan 2024", "-5"])
      expect(
        (await server.admin("POST", "/admin/v1/callbacks/redeliver", { failed_since })).status,
        failed_since,
      ).toBe(400);
  });

  it("every change is audited with actor, before and after, and never a secret", async () => {
    const actor = "operator:admin@mgmt.example";
    const provider = await call("admin", "POST", "/ops/api/providers", { name: "Prov", kind: "aggregator" });
    expect(provider.status).toBe(201);
    await call("admin", "PATCH", `/ops/api/providers/${provider.json.id}`, { auto_cancel_minutes: 30 });
    const created = await call("admin", "POST", "/ops/api/firms", {
      name: "Audited firm",
      provider_id: provider.json.id,
      deposit_max: "5000.00",
    });
    expect(created.status).toBe(201);
    const fid = created.json.id as number;
    await call("admin", "PATCH", `/ops/api/firms/${fid}`, {
      withdrawals: "closed",
      deposit_max: "7500.50",
      callback_middle_name: true,
    });
    const rotated = await call("admin", "POST", `/ops/api/firms/${fid}/rotate-secret`);
    const channel = await call("admin", "POST", "/ops/api/channels", {
      code: `H${kind}`,
      kind: "http",
      url: "http://127.0.0.1:9/ask",
    });
    await call("admin", "PATCH", `/ops/api/channels/H${kind}`, { timeout_ms: 2500, active: false });
    const account = await call("admin", "POST", "/ops/api/accounts", {
      bank_name: "Akbank",
      holder_name: "Holder",
      iban: "TR330006100519786457841326",
      daily_cap: "10000.00",
    });
    await call("admin", "PATCH", `/ops/api/accounts/${account.json.id}`, { max: "2000.00", active: false });
    await call("operator", "PUT", `/ops/api/firms/${fid}/bans`, { user_id: "u-77" });
    await call("operator", "PUT", `/ops/api/firms/${fid}/bans`, { user_id: "u-77" });
    await call("operator", "DELETE", `/ops/api/firms/${fid}/bans`, { user_id: "u-77" });

    const log = await audit(`actor=${encodeURIComponent(actor)}&limit=1000`);
    const of = (action: string, id: unknown) =>
      log.filter(
        (e: { action: string; entity_id: string }) => e.action === action && e.entity_id === String(id),
      );
    expect(of("provider.create", provider.json.id)[0]).toMatchObject({
      before: null,
      after: { name: "Prov", kind: "aggregator", auto_cancel_minutes: 0 },
    });
    expect(of("provider.update", provider.json.id)[0]).toMatchObject({
      before: { auto_cancel_minutes: 0 },
      after: { auto_cancel_minutes: 30 },
    });
    expect(of("firm.create", fid)[0].after).toMatchObject({
      name: "Audited firm",
      deposit_max: 500000,
      secret: "set",
    });
    expect(of("firm.update", fid)[0]).toMatchObject({
      before: { withdrawals_open: 1, deposit_max: 500000, callback_middle_name: 0 },
      after: { withdrawals_open: 0, deposit_max: 750050, callback_middle_name: 1 },
    });
    expect(of("firm.rotate_secret", fid)[0]).toMatchObject({ before: {}, after: { secret: "rotated" } });
    expect(of("channel.create", channel.json.id)[0].after).toMatchObject({ code: `H${kind}`, secret: "set" });
    expect(of("channel.update", channel.json.id)[0]).toMatchObject({
      before: { timeout_ms: 8000, active: 1 },
      after: { timeout_ms: 2500, active: 0 },
    });
    expect(of("account.create", account.json.id)[0].after).toMatchObject({ daily_cap: 1_000_000, active: 1 });
    expect(of("account.update", account.json.id)[0]).toMatchObject({
      before: { max_amount: null, active: 1 },
      after: { max_amount: 200_000, active: 0 },
    });
    // The second ban of the same user changed nothing and is not logged.
    const bans = await audit(`entity_type=ban&entity_id=${fid}:u-77`);
    expect(bans.map((e: { action: string; actor: string }) => `${e.action} ${e.actor}`)).toEqual([
      "ban.remove operator:operator@mgmt.example",
      "ban.add operator:operator@mgmt.example",
    ]);
    const everything = JSON.stringify(await audit("limit=1000"));
    for (const secret of [created.json.secret_key, rotated.json.secret_key, channel.json.secret]) {
      expect(secret).toMatch(/^sk_/);
      expect(everything).not.toContain(secret);
    }
    expect(everything).not.toContain("secret_sealed");
    expect(everything).not.toContain("password_hash");
  });

  it("the audit log filters by actor, action, entity and time", async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const f = await call("admin", "POST", "/ops/api/firms", { name: "Filter firm" });
    await call("admin", "PATCH", `/ops/api/firms/${f.json.id}`, { active: false });
    const after = new Date(Date.now() + 1000).toISOString();
    const byEntity = await audit(`entity_type=firm&entity_id=${f.json.id}`);
    expect(byEntity.map((e: { action: string }) => e.action)).toEqual(["firm.update", "firm.create"]);
    const byAction = await audit(`action=firm.update&entity_id=${f.json.id}`);
    expect(byAction).toHaveLength(1);
    expect(await audit(`entity_id=${f.json.id}&entity_type=firm&from=${after}`)).toEqual([]);
    expect(
      await audit(`entity_id=${f.json.id}&entity_type=firm&from=${before}&to=${encodeURIComponent(after)}`),
    ).toHaveLength(2);
    expect(await audit(`actor=operator:nobody@mgmt.example`)).toEqual([]);
    const bad = await call("viewer", "GET", "/ops/api/audit?from=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^from: /);
    expect((await call("viewer", "GET", "/ops/api/audit?colour=red")).status).toBe(400);
  });

  it("admins manage operators: create (one-time password), change a role, switch one off (sessions end), unlock; not themselves", async () => {
    const created = await call("admin", "POST", "/ops/api/operators", {
      email: "Temp@Mgmt.example",
      role: "viewer",
    });
    expect(created.status).toBe(201);
    expect(created.json.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const temp = await consoleLogin(server, "temp@mgmt.example", created.json.password);
    expect(temp.res.status).toBe(200);

    const promoted = await call("admin", "PATCH", `/ops/api/operators/${created.json.id}`, {
      role: "operator",
    });
    expect(promoted.json).toMatchObject({ email: "temp@mgmt.example", role: "operator", active: true });
    expect((await consoleCall(server, "GET", "/ops/api/me", temp)).json.operator.role).toBe("operator");

    const off = await call("admin", "PATCH", `/ops/api/operators/${created.json.id}`, { active: false });
    expect(off.json.active).toBe(false);
    expect((await consoleCall(server, "GET", "/ops/api/me", temp)).status).toBe(401);
    expect((await consoleLogin(server, "temp@mgmt.example", created.json.password)).res.status).toBe(401);

    const self = await call("admin", "PATCH", `/ops/api/operators/${as.admin.id}`, { role: "viewer" });
    expect(self.status).toBe(400);
    expect(self.json.message).toBe("you cannot change your own role or access");

    const list = (await call("admin", "GET", "/ops/api/operators")).json;
    expect(list.find((o: { email: string }) => o.email === "temp@mgmt.example")).toMatchObject({
      role: "operator",
      active: false,
      locked: false,
    });
    expect(JSON.stringify(list)).not.toContain("password");
    const trail = await audit(`entity_type=operator&entity_id=${created.json.id}`);
    expect(trail.map((e: { action: string; after: unknown }) => [e.action, e.after])).toEqual([
      ["operator.update", { active: 0 }],
      ["operator.update", { role: "operator" }],
      ["operator.login", { address: "127.0.0.1" }],
      [
        "operator.create",
        expect.objectContaining({ email: "temp@mgmt.example", role: "viewer", password: "set" }),
      ],
    ]);
  });

  it("two admins demoting each other at once leave one admin; a save that changes nothing is not logged", async () => {
    const email = `a2-${kind}@mgmt.example`;
    const other = await call("admin", "POST", "/ops/api/operators", { email, role: "admin" });
    const second = await consoleLogin(server, email, other.json.password);
    const [one, two] = await Promise.all([
      call("admin", "PATCH", `/ops/api/operators/${other.json.id}`, { role: "operator" }),
      consoleCall(server, "PATCH", `/ops/api/operators/${as.admin.id}`, {
        ...second,
        body: { role: "operator" },
      }),
    ]);
    expect([one.status, two.status].filter((s) => s === 200)).toHaveLength(1);
    // Whoever won, exactly one active admin is left and it can still manage operators.
    const winner = one.status === 200 ? as.admin : second;
    const list = (await consoleCall(server, "GET", "/ops/api/operators", winner)).json;
    expect(
      list.filter((o: { role: string; active: boolean }) => o.role === "admin" && o.active),
    ).toHaveLength(1);
    if (one.status !== 200) {
      // Restore the shared admin for the tests after this one.
      await consoleCall(server, "PATCH", `/ops/api/operators/${as.admin.id}`, {
        ...second,
        body: { role: "admin" },
      });
    }

    const before = (await audit(`entity_type=firm&entity_id=${firm.id}&limit=1000`)).length;
    expect(
      (
        await call("admin", "PATCH", `/ops/api/firms/${firm.id}`, {
          webhook_url: "http://127.0.0.1:9/callbacks",
        })
      ).status,
    ).toBe(200);
    expect((await audit(`entity_type=firm&entity_id=${firm.id}&limit=1000`)).length).toBe(before);
  });

  it("two limit changes at once that clash: one applies, the other gets a 400 and is not logged", async () => {
    const account = (
      await server.admin("POST", "/admin/v1/accounts", {
        bank_name: "B",
        holder_name: "H",
        iban: "TR330006100519786457841326",
      })
    ).json;
    for (let round = 0; round < 5; round++) {
      await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { deposit_min: null, deposit_max: null });
      await server.admin("PATCH", `/admin/v1/accounts/${account.id}`, { min: null, max: null });
      const before = (await server.admin("GET", "/admin/v1/audit?limit=1000")).json.length;
      const answers = await Promise.all([
        server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { deposit_min: "500.00" }),
        server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { deposit_max: "100.00" }),
        server.admin("PATCH", `/admin/v1/accounts/${account.id}`, { min: "500.00" }),
        server.admin("PATCH", `/admin/v1/accounts/${account.id}`, { max: "100.00" }),
      ]);
      for (const pair of [answers.slice(0, 2), answers.slice(2)]) {
        expect(pair.map((a) => a.status).sort()).toEqual([200, 400]);
        expect(pair.find((a) => a.status === 400)?.json).toEqual({
          success: false,
          code: "min_above_max",
          message: "the minimum must not exceed the maximum",
        });
      }
      const after = (await server.admin("GET", "/admin/v1/audit?limit=1000")).json.length;
      expect(after - before).toBe(2);
    }
    await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { deposit_min: null, deposit_max: null });
  });

  it("a password change is audited without the password", async () => {
    const res = await consoleCall(server, "POST", "/ops/api/password", {
      ...as.viewer,
      body: { current: "viewer-password-123", next: "viewer-password-456" },
    });
    expect(res.status).toBe(200);
    // The session goes on under a new token (operators/console-sessions.ts renewSession).
    as.viewer.cookie = sessionCookieOf(res);
    as.viewer.csrf = res.json.csrf_token;
    const entries = await audit(`action=operator.password&entity_id=${as.viewer.id}`);
    expect(entries).toEqual([
      expect.objectContaining({
        actor: "operator:viewer@mgmt.example",
        before: {},
        after: { password: "rotated" },
      }),
    ]);
    expect(JSON.stringify(entries)).not.toContain("viewer-password");
  });
});
