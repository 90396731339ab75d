import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  type FirmOptions,
  send,
  type TestFirm,
} from "../support/merchant.js";
import { eventually } from "../support/receiver.js";

const NO_ACCOUNT = '{"success":false,"message":"Bu tutar icin uygun hesap yok"}';
const MINUTE = 60_000;

/**
 * Bounds of a firm's pending deposits (issue 36, docs/adr/0013-firm-pending-bounds.md): a firm past
 * its bound is answered as when no account can take the deposit, and cannot use up the shared
 * accounts' daily caps for the other firms.
 */
describe.each(STORES)("bounds of a firm's pending deposits (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, {
      LOG_LEVEL: "warn",
      PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "25",
      PAYINTAKE_CALLBACK_POLL_MS: "25",
    });
    // The shared pool: one account, 500.00 TL a day.
    await addAccount(server, { daily_cap: "500.00" });
  });
  afterAll(async () => {
    await server?.close();
  });

  const deposit = (firm: TestFirm, overrides: Record<string, unknown> = {}) =>
    send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody(overrides) });
  const idOf = async (firm: TestFirm, reference: string) =>
    (await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${reference}` })).json.data
      .id as number;
  const bounded = (bounds: FirmOptions, extra: FirmOptions = {}) =>
    createFirm(server, { ...bounds, ...extra });
  /** Gives the pool its day back: every deposit so far rejected, so no cap counts them. */
  async function clearPool() {
    const pending = (await server.admin("GET", "/admin/v1/transactions?status=pending&limit=1000")).json;
    for (const tx of pending) {
      await server.admin("POST", `/admin/v1/transactions/${tx.id}/reject`, { actor: "operator:t" });
    }
  }

  it("keeps one firm from using up the shared accounts: its deposit past the bound is 'no account', another firm's goes through", async () => {
    await clearPool();
    // The whole cap for A (not the default share of it, 250.00 here): the bound alone stops it.
    const a = await bounded({ max_pending_amount: "300.00" }, { max_cap_share: 100 });
    const b = await createFirm(server);
    expect((await deposit(a)).status).toBe(200);
    expect((await deposit(a)).status).toBe(200);
    // 300.00 TL pending: the account still has 200.00 TL of its day, but not for firm A.
    const third = await deposit(a);
    expect(third.status).toBe(422);
    expect(third.text).toBe(NO_ACCOUNT);
    const other = await deposit(b, { amount: "10.00" });
    expect(other.status).toBe(200);
    expect(other.json.assigned_iban).toBeDefined();
  });

  it("bounds the count, answers a legacy firm 200 with the same body, and keeps the other checks' answers", async () => {
    await clearPool();
    const legacy = await bounded({ max_pending_count: 1 }, { legacy_http: true });
    const first = depositBody({ amount: "10.00" });
    expect((await send(server, legacy, { path: "/paymentapi/v1/deposits", body: first })).status).toBe(200);
    const refused = await deposit(legacy, { amount: "10.00" });
    expect(refused.status).toBe(200);
    expect(refused.text).toBe(NO_ACCOUNT);

    const firm = await bounded({ max_pending_count: 1 });
    const held = depositBody({ amount: "10.00" });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: held })).status).toBe(200);
    // At its bound, a reused reference, the same user's second deposit and a bad field answer as ever.
    const dup = await deposit(firm, { amount: "10.00", reference: held.reference });
    expect(dup.status).toBe(409);
    expect(dup.json.message).toBe("Bu islem numarasi zaten kullanilmis");
    const same = await deposit(firm, { amount: "10.00", user_id: held.user_id });
    expect(same.status).toBe(409);
    expect(same.json.message).toBe("Halihazirda bekleyen talebiniz var");
    expect((await deposit(firm, { amount: "abc" })).status).toBe(400);
    expect((await deposit(firm, { amount: "10.00" })).text).toBe(NO_ACCOUNT);
  });

  it("lets exactly the bound's number of concurrent deposits through", async () => {
    await clearPool();
    const firm = await bounded({ max_pending_count: 5 });
    const answers = await Promise.all(Array.from({ length: 12 }, () => deposit(firm, { amount: "10.00" })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = answers.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(7);
    for (const r of refused) expect(r.text).toBe(NO_ACCOUNT);
    const listed = (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&status=pending`)).json;
    expect(listed).toHaveLength(5);
  });

  it("frees a place when a pending deposit is rejected, approved or auto-cancelled", async () => {
    await clearPool();
    const provider = await server.admin("POST", "/admin/v1/providers", {
      name: "P1",
      auto_cancel_minutes: 1,
    });
    const firm = await bounded({ max_pending_count: 1 }, { provider_id: provider.json.id });
    const place = async (decide: (id: number) => Promise<unknown>) => {
      const body = depositBody({ amount: "10.00" });
      expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
      expect((await deposit(firm, { amount: "10.00" })).text).toBe(NO_ACCOUNT);
      await decide(await idOf(firm, body.reference as string));
    };
    await place((id) => server.admin("POST", `/admin/v1/transactions/${id}/reject`, { actor: "operator:t" }));
    await place((id) =>
      server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:t" }),
    );
    await place(async (id) => {
      server.clock.advance(MINUTE + 1_000);
      await eventually(async () => {
        const tx = (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;
        return tx.status === "pending" ? undefined : tx;
      });
    });
    expect((await deposit(firm, { amount: "10.00" })).status).toBe(200);
  });

  it("frees the amount the deposit was counted with when it is approved for another amount", async () => {
    await clearPool();
    const firm = await bounded({ max_pending_amount: "20.00" });
    const body = depositBody({ amount: "20.00" });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    expect((await deposit(firm, { amount: "0.01" })).text).toBe(NO_ACCOUNT);
    const id = await idOf(firm, body.reference as string);
    const approved = await server.admin("POST", `/admin/v1/transactions/${id}/approve`, {
      actor: "operator:t",
      amount: "15.00",
    });
    expect(approved.status).toBe(200);
    // Counted with 20.00 and freed by 20.00: the whole bound is free again, not 15.00 of it.
    expect((await deposit(firm, { amount: "20.00" })).status).toBe(200);
  });

  it("tells operators once: one audit entry however many deposits are refused, and a metric per refusal", async () => {
    await clearPool();
    const firm = await bounded({ max_pending_count: 1 });
    expect((await deposit(firm, { amount: "10.00" })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await deposit(firm, { amount: "10.00" })).text).toBe(NO_ACCOUNT);
    const entries = await eventually(async () => {
      const log = (
        await server.admin(
          "GET",
          `/admin/v1/audit?action=firm.pending_bound_reached&entity_type=firm&entity_id=${firm.id}`,
        )
      ).json;
      return log.length > 0 ? log : undefined;
    });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: "service:intake",
      after: { pending_count: 1, pending_amount: 1000, max_pending_count: 1 },
    });
    const metrics = await (await request(`${server.url}/metrics`)).body.text();
    expect(metrics).toMatch(/payintake_deposits_total\{outcome="pending_bound"\} [1-9]/);
    const rows = (await server.admin("GET", `/admin/v1/audit?action=firm.pending_bound_reached`)).json;
    expect(rows.filter((e: { entity_id: string }) => e.entity_id === String(firm.id))).toHaveLength(1);
  });

  it("holds a firm to its share of each account's daily cap, also for concurrent deposits; other firms keep the rest", async () => {
    await clearPool();
    // Half of the account's 500.00 TL day: 250.00 TL.
    const firm = await bounded({ max_cap_share: 50 });
    const other = await createFirm(server);
    const answers = await Promise.all(Array.from({ length: 8 }, () => deposit(firm, { amount: "50.00" })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of answers.filter((a) => a.status !== 200)) expect(r.text).toBe(NO_ACCOUNT);
    // The rest of the account's day is there for the other firms (approvals above took 25.00 of it).
    expect((await deposit(other, { amount: "200.00" })).status).toBe(200);
    expect((await deposit(firm, { amount: "0.01" })).text).toBe(NO_ACCOUNT);
  });

  it("sets the bounds through the admin API: defaults, changes, none, and bad values refused", async () => {
    const created = await server.admin("POST", "/admin/v1/firms", { name: "Bounds default" });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      max_pending_count: 1000,
      max_pending_amount: "2000000.00",
      max_cap_share: null,
    });
    const id = created.json.id as number;
    const changed = await server.admin("PATCH", `/admin/v1/firms/${id}`, {
      max_pending_count: 20,
      max_pending_amount: "5000.00",
      max_cap_share: 30,
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      max_pending_count: 20,
      max_pending_amount: "5000.00",
      max_cap_share: 30,
    });
    const cleared = await server.admin("PATCH", `/admin/v1/firms/${id}`, {
      max_pending_count: null,
      max_pending_amount: null,
    });
    expect(cleared.json).toMatchObject({ max_pending_count: null, max_pending_amount: null });
    for (const bad of [
      { max_pending_count: 0 },
      { max_pending_count: 1.5 },
      { max_pending_amount: "-1" },
      { max_cap_share: 0 },
      { max_cap_share: 101 },
    ]) {
      const res = await server.admin("PATCH", `/admin/v1/firms/${id}`, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.success).toBe(false);
    }
    const shown = await server.admin("GET", `/admin/v1/firms/${id}`);
    expect(shown.json).toMatchObject({ max_pending_count: null, max_pending_amount: null });
  });
});
