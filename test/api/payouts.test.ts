import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, send, type TestFirm, withdrawalBody } from "../support/merchant.js";
import {
  adminFile,
  type ConsoleOperator,
  consoleOperator,
  noticesOf,
  pendingWithdrawal,
  pendingWithdrawals,
  xmlValues,
} from "../support/payouts.js";

/**
 * Payouts through the real server (issue 47): settings, the withdrawals waiting and why some may
 * not go, batches and the two-person rule, files, sent and cancelled, and the refusals of everything
 * else while a withdrawal is in a live batch. Payouts are turned on for the whole service in the
 * first test; each later one works on firms of its own and batches by firm.
 */
describe.each(STORES)("payouts (%s)", (kind) => {
  let server: TestServer;
  let account: number;
  let op1: ConsoleOperator;
  let op2: ConsoleOperator;
  let consoleAdmin: ConsoleOperator;
  let viewer: ConsoleOperator;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = (await addAccount(server)).id;
    [op1, op2, consoleAdmin, viewer] = await Promise.all([
      consoleOperator(server, "operator", "op1"),
      consoleOperator(server, "operator", "op2"),
      consoleOperator(server, "admin", "boss"),
      consoleOperator(server, "viewer", "watcher"),
    ]);
  });
  afterAll(() => server?.close());

  const P = "/admin/v1/payouts";
  const C = "/ops/api/payouts";
  const batchOf = (firm: TestFirm, actor = "tests", extra: Record<string, unknown> = {}) =>
    server.admin("POST", `${P}/batches`, { account, firm: firm.id, actor, ...extra });
  const waitingOf = async (firm: TestFirm) =>
    (await server.admin("GET", `${P}/waiting?firm=${firm.id}`)).json.waiting as any[];
  const shown = async (batch: number) => (await server.admin("GET", `${P}/batches/${batch}`)).json;
  const settings = (body: Record<string, unknown>) =>
    server.admin("PATCH", `${P}/settings`, { actor: "settings-admin", ...body });

  it("is off by default; once on, the waiting withdrawals show their method and why some may not go", async () => {
    const firm = await createFirm(server);
    const idle = await createFirm(server);
    const small = await pendingWithdrawal(server, firm, { amount: "250.50" });
    expect(await waitingOf(firm)).toEqual([]);
    const off = await batchOf(firm);
    expect([off.status, off.json.code]).toEqual([422, "payout_batch_empty"]);
    expect(off.json.message).toMatch(/payouts are off/);
    const before = await server.admin("GET", `${P}/settings`);
    expect(before.json).toMatchObject({
      scope: "all",
      payouts: false,
      two_person_batch_above: "100000.00",
      two_person_payout_above: null,
      fast_limit: "100000.00",
      set_here: [],
    });

    // Only an admin changes settings; a viewer reads them.
    expect((await op1.call("PATCH", `${C}/settings`, { payouts: true })).status).toBe(403);
    expect((await viewer.call("GET", `${C}/settings`)).json.payouts).toBe(false);
    const on = await consoleAdmin.call("PATCH", `${C}/settings`, { payouts: true });
    expect([on.status, on.json.payouts, on.json.set_here]).toEqual([200, true, ["payouts"]]);
    // Firms' balances are test/api/payout-ledger.test.ts's: here payouts are not held to them.
    expect((await settings({ balance_guard: false })).status).toBe(200);

    const atLimit = await pendingWithdrawal(server, firm, { amount: "100000.00" });
    const aboveLimit = await pendingWithdrawal(server, firm, { amount: "100000.01" });
    const eft = await pendingWithdrawal(server, firm, { amount: "10.00", method: "eft" });
    const havale = await pendingWithdrawal(server, firm, { amount: "11.00", method: "havale" });
    const badIban = await pendingWithdrawal(server, firm, { iban: "TR330006100519786457841327" });
    const byHand = await pendingWithdrawal(server, firm);
    const inactive = await pendingWithdrawal(server, idle);
    expect((await server.admin("PATCH", `/admin/v1/firms/${idle.id}`, { active: false })).status).toBe(200);
    const mark = await op1.call("POST", `/ops/api/transactions/${byHand}/paying`, { paying: true });
    expect(mark.status).toBe(200);

    const waiting = new Map((await waitingOf(firm)).map((w) => [w.transaction_id, w]));
    expect([...waiting.keys()].sort((a, b) => a - b)).toEqual(
      [small, atLimit, aboveLimit, eft, havale, badIban, byHand].sort((a, b) => a - b),
    );
    const method = (id: number) => waiting.get(id)?.method;
    expect([small, atLimit, aboveLimit, eft, havale].map(method)).toEqual([
      "FAST",
      "FAST",
      "EFT",
      "EFT",
      "EFT",
    ]);
    expect(waiting.get(small)).toMatchObject({
      amount: "250.50",
      payee_name: "Mehmet Öztürk",
      method_judged_by: "service",
      not_batchable: null,
      not_batchable_code: null,
    });
    expect(waiting.get(badIban)).toMatchObject({
      not_batchable: expect.stringMatching(/IBAN/),
      not_batchable_code: "iban_invalid",
    });
    expect(waiting.get(byHand)).toMatchObject({
      not_batchable: expect.stringMatching(/by hand/),
      not_batchable_code: "paying_by_hand",
    });
    const idleWaiting = await waitingOf(idle);
    expect(idleWaiting.map((w) => [w.transaction_id, w.not_batchable, w.not_batchable_code])).toEqual([
      [inactive, "the firm is inactive", "firm_inactive"],
    ]);
    // The console shows the same.
    expect((await viewer.call("GET", `${C}/waiting?firm=${firm.id}`)).json.waiting).toHaveLength(7);

    const made = await batchOf(firm);
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    expect(made.json).toMatchObject({ payouts: 5, total: "200271.51", stage: "second_approval" });
    const items = (await shown(made.json.batch)).items as any[];
    expect(items.map((i) => [i.transaction_id, i.method]).sort((a, b) => a[0] - b[0])).toEqual(
      [
        [small, "FAST"],
        [atLimit, "FAST"],
        [aboveLimit, "EFT"],
        [eft, "EFT"],
        [havale, "EFT"],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    // The rest stay, each with its reason; a second batch finds none and says why.
    expect((await waitingOf(firm)).map((w) => w.transaction_id).sort()).toEqual([badIban, byHand].sort());
    const again = await batchOf(firm);
    expect([again.status, again.json.code]).toEqual([422, "payout_batch_empty"]);
    expect(again.json.message).toMatch(/1 the IBAN is not a valid Turkish IBAN; 1 an operator marked it/);
    expect((await batchOf(idle)).json.message).toMatch(/1 the firm is inactive/);
  });

  it("a batch over 100,000.00 TL needs a second console operator: never its maker, never the admin token", async () => {
    const firm = await createFirm(server);
    await pendingWithdrawals(server, firm, 2, { amount: "60000.00" });
    const made = await op1.call("POST", `${C}/batches`, { account, firm: firm.id });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    expect(made.json).toEqual({
      batch: made.json.batch,
      payouts: 2,
      total: "120000.00",
      stage: "second_approval",
      second_reason: "the batch's total 120000.00 is above 100000.00",
      second_rule: { code: "batch_total", amount: "120000.00", limit: "100000.00" },
    });
    const id = made.json.batch;
    expect(await shown(id)).toMatchObject({
      second_reason: "the batch's total 120000.00 is above 100000.00",
      second_rule: { code: "batch_total", amount: "120000.00", limit: "100000.00" },
      channel: null,
    });
    const file = await adminFile(server, id, "pain.001.001.09");
    expect([file.status, JSON.parse(file.bytes.toString()).code]).toEqual([
      409,
      "payout_second_approval_pending",
    ]);
    const early = await op1.call("POST", `${C}/batches/${id}/sent`);
    expect([early.status, early.json.code]).toEqual([409, "payout_second_approval_pending"]);

    const self = await op1.call("POST", `${C}/batches/${id}/approve`);
    expect([self.status, self.json.code]).toEqual([403, "payout_second_same_operator"]);
    const token = await server.admin("POST", `${P}/batches/${id}/approve`, { actor: "someone-else" });
    expect([token.status, token.json.code]).toEqual([403, "payout_second_needs_operator"]);
    expect((await viewer.call("POST", `${C}/batches/${id}/approve`)).status).toBe(403);
    const second = await op2.call("POST", `${C}/batches/${id}/approve`);
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    expect(second.json).toMatchObject({ stage: "batched", created_by: op1.actor, approved_by: op2.actor });
    expect((await shown(id)).items.map((i: any) => i.stage)).toEqual(["batched", "batched"]);
    const twice = await consoleAdmin.call("POST", `${C}/batches/${id}/approve`);
    expect([twice.status, twice.json.code]).toEqual([409, "payout_batch_stage"]);

    // The admin token may batch; a console operator is its second.
    await pendingWithdrawals(server, firm, 2, { amount: "60000.00" });
    const byToken = await batchOf(firm, "alice");
    expect(byToken.json.stage).toBe("second_approval");
    expect((await shown(byToken.json.batch)).created_by).toBe("admin-api:alice");
    expect((await op1.call("POST", `${C}/batches/${byToken.json.batch}/approve`)).json.stage).toBe("batched");
  });

  it("the rules of a single payout and of an operator's day, per firm; `none` at the service's scope", async () => {
    const single = await createFirm(server);
    expect((await settings({ firm: single.id, two_person_payout_above: "1000.00" })).status).toBe(200);
    await pendingWithdrawal(server, single, { amount: "500.00" });
    await pendingWithdrawal(server, single, { amount: "1500.00" });
    const big = await batchOf(single);
    expect(big.json).toMatchObject({
      stage: "second_approval",
      second_reason: "a payout of 1500.00 is above 1000.00",
      second_rule: { code: "payout", amount: "1500.00", limit: "1000.00" },
    });
    await pendingWithdrawals(server, single, 3, { amount: "1000.00" });
    expect((await batchOf(single)).json).toMatchObject({ stage: "batched", total: "3000.00" });

    const daily = await createFirm(server);
    const rule = await settings({ firm: daily.id, two_person_day_above: "1000.00" });
    expect(rule.json).toMatchObject({ two_person_day_above: "1000.00", set_here: ["twoPersonDayAbove"] });
    const [dayA, dayB] = await Promise.all([
      consoleOperator(server, "operator", "day-a"),
      consoleOperator(server, "operator", "day-b"),
    ]);
    const byConsole = (op: ConsoleOperator) => op.call("POST", `${C}/batches`, { account, firm: daily.id });
    await pendingWithdrawal(server, daily, { amount: "600.00" });
    expect((await byConsole(dayA)).json.stage).toBe("batched");
    await pendingWithdrawal(server, daily, { amount: "600.00" });
    expect((await byConsole(dayA)).json).toMatchObject({
      stage: "second_approval",
      second_reason: "the operator's batches today 1200.00 is above 1000.00",
      second_rule: { code: "operator_day", amount: "1200.00", limit: "1000.00" },
    });
    await pendingWithdrawal(server, daily, { amount: "600.00" });
    expect((await byConsole(dayB)).json.stage).toBe("batched");
    // The admin token's callers name themselves: their batches count as one day, whatever the name.
    await pendingWithdrawal(server, daily, { amount: "600.00" });
    expect((await batchOf(daily, "a-name-never-used")).json.second_reason).toMatch(
      /^the operator's batches today .* is above 1000.00$/,
    );

    // A firm's `none` does not loosen the service's rule; the service's `none` removes it.
    const loose = await createFirm(server);
    await settings({ firm: loose.id, two_person_batch_above: "none" });
    await pendingWithdrawals(server, loose, 2, { amount: "60000.00" });
    expect((await batchOf(loose)).json.stage).toBe("second_approval");
    const none = await settings({ two_person_batch_above: "none" });
    expect(none.json.two_person_batch_above).toBeNull();
    await pendingWithdrawals(server, loose, 2, { amount: "60000.00" });
    expect((await batchOf(loose)).json).toMatchObject({ stage: "batched", total: "120000.00" });
    const back = await settings({ two_person_batch_above: "100000.00" });
    expect(back.json.two_person_batch_above).toBe("100000.00");
  });

  it("while a withdrawal is in a live batch, no decision and no payout mark; a firm paid in batches is approved by hand only by an admin", async () => {
    const firm = await createFirm(server);
    const [held, free, other] = await pendingWithdrawals(server, firm, 3);
    const made = await batchOf(firm, "tests", { max_count: 1 });
    expect(made.json).toMatchObject({ payouts: 1, stage: "batched" });
    expect((await shown(made.json.batch)).items[0].transaction_id).toBe(held);

    const refusals = [
      await server.admin("POST", `/admin/v1/transactions/${held}/approve`, { actor: "a" }),
      await server.admin("POST", `/admin/v1/transactions/${held}/reject`, { actor: "a" }),
      await op1.call("POST", `/ops/api/transactions/${held}/approve`, {}),
      await op1.call("POST", `/ops/api/transactions/${held}/reject`, {}),
      await consoleAdmin.call("POST", `/ops/api/transactions/${held}/approve`, {}),
      await op1.call("POST", `/ops/api/transactions/${held}/paying`, { paying: true }),
    ];
    expect(refusals.map((r) => [r.status, r.json.code])).toEqual(Array(6).fill([409, "payout_in_batch"]));

    const byOperator = await op1.call("POST", `/ops/api/transactions/${free}/approve`, {});
    expect([byOperator.status, byOperator.json.code]).toEqual([409, "payout_paid_by_statement"]);
    const byAdmin = await consoleAdmin.call("POST", `/ops/api/transactions/${free}/approve`, {});
    expect([byAdmin.status, byAdmin.json.transaction?.status]).toEqual([200, "approved"]);
    const rejected = await op1.call("POST", `/ops/api/transactions/${other}/reject`, {});
    expect([rejected.status, rejected.json.transaction?.status]).toEqual([200, "rejected"]);

    // Cancelled, the batch lets go: the withdrawal is decided like any other.
    expect(
      (await server.admin("POST", `${P}/batches/${made.json.batch}/cancel`, { note: "wrong" })).status,
    ).toBe(200);
    const after = await server.admin("POST", `/admin/v1/transactions/${held}/reject`, { actor: "a" });
    expect([after.status, after.json.transaction?.status]).toEqual([200, "rejected"]);
  });

  it("a batch's file is the same bytes each time, names each attempt's payment id, and warns after sending", async () => {
    const firm = await createFirm(server);
    await pendingWithdrawal(server, firm, { amount: "1234.50", first_name: "Şükrü", last_name: "Çağlar" });
    await pendingWithdrawals(server, firm, 2, { amount: "100.25" });
    const made = await batchOf(firm);
    expect(made.json).toMatchObject({ payouts: 3, total: "1435.00", stage: "batched" });
    const id = made.json.batch;
    const ids = ((await shown(id)).items as any[]).map((i) => i.payment_id);
    expect(new Set(ids).size).toBe(3);

    for (const version of ["pain.001.001.09", "pain.001.001.03"]) {
      const first = await adminFile(server, id, version);
      const second = await adminFile(server, id, version);
      expect(first.status, first.bytes.toString()).toBe(200);
      expect(second.bytes.equals(first.bytes)).toBe(true);
      expect(first.headers["content-disposition"]).toBe(
        `attachment; filename="PAYINTAKE-B${id}.${version}.xml"`,
      );
      expect(first.headers["content-type"]).toMatch(/^application\/xml/);
      const xml = first.bytes.toString("utf8");
      expect(xml).toContain(`urn:iso:std:iso:20022:tech:xsd:${version}`);
      expect(xmlValues(xml, "EndToEndId")).toEqual(ids);
      expect(xmlValues(xml, "NbOfTxs")[0]).toBe("3");
      expect(xmlValues(xml, "CtrlSum")[0]).toBe("1435.00");
    }
    const template = await adminFile(server, id, "GARANTI");
    expect(template.status).toBe(200);
    expect((await adminFile(server, id, "GARANTI")).bytes.equals(template.bytes)).toBe(true);
    expect(template.headers["content-disposition"]).toBe(
      `attachment; filename="PAYINTAKE-B${id}.GARANTI.csv"`,
    );
    for (const paymentId of ids) expect(template.bytes.toString("latin1")).toContain(paymentId);
    expect(noticesOf(template.headers)).toEqual([]);

    const unknown = await adminFile(server, id, "pain.001.001.99");
    expect([unknown.status, JSON.parse(unknown.bytes.toString()).code]).toEqual([
      422,
      "payout_unknown_format",
    ]);
    expect((await viewer.call("GET", `${C}/batches/${id}/file?format=GARANTI`)).status).toBe(403);
    const byConsole = await op1.call("GET", `${C}/batches/${id}/file?format=GENERIC-CSV`);
    expect(byConsole.status).toBe(200);

    expect((await op2.call("POST", `${C}/batches/${id}/sent`)).json.stage).toBe("sent");
    const after = await adminFile(server, id, "GARANTI");
    expect(after.bytes.equals(template.bytes)).toBe(true);
    expect(noticesOf(after.headers)).toContainEqual({
      code: "sent_already",
      message: expect.stringMatching(/marked sent already/),
    });
  });

  it("a batch is marked sent once and cancelled only before; a cancelled one's withdrawals wait again and get new payment ids", async () => {
    const firm = await createFirm(server);
    const withdrawals = await pendingWithdrawals(server, firm, 2);
    const sent = await batchOf(firm);
    const first = await server.admin("POST", `${P}/batches/${sent.json.batch}/sent`, { actor: "s" });
    expect(first.json).toMatchObject({ stage: "sent", sent_by: "admin-api:s" });
    expect(
      ((await shown(sent.json.batch)).items as any[]).every((i) => i.stage === "sent" && i.sent_at),
    ).toBe(true);
    const again = await server.admin("POST", `${P}/batches/${sent.json.batch}/sent`, { actor: "s" });
    expect([again.status, again.json.code]).toEqual([409, "payout_batch_stage"]);
    const late = await op1.call("POST", `${C}/batches/${sent.json.batch}/cancel`, { note: "too late" });
    expect([late.status, late.json.code]).toEqual([409, "payout_batch_stage"]);
    expect(await waitingOf(firm)).toEqual([]);

    const later = await pendingWithdrawals(server, firm, 2);
    const made = await batchOf(firm);
    const before = ((await shown(made.json.batch)).items as any[]).map((i) => i.payment_id);
    const cancelled = await op1.call("POST", `${C}/batches/${made.json.batch}/cancel`, {
      note: "wrong account",
    });
    expect(cancelled.json.stage).toBe("cancelled");
    expect(((await shown(made.json.batch)).items as any[]).map((i) => i.stage)).toEqual([
      "cancelled",
      "cancelled",
    ]);
    const back = await waitingOf(firm);
    expect(back.map((w) => w.transaction_id).sort()).toEqual([...later].sort());
    expect(back.map((w) => w.last_attempt)).toEqual(Array(2).fill({ stage: "cancelled", reason: null }));
    const file = await adminFile(server, made.json.batch, "pain.001.001.09");
    expect(file.status).toBe(409);
    const twice = await op1.call("POST", `${C}/batches/${made.json.batch}/cancel`);
    expect([twice.status, twice.json.code]).toEqual([409, "payout_batch_stage"]);

    const remade = await batchOf(firm);
    const after = ((await shown(remade.json.batch)).items as any[]).map((i) => i.payment_id);
    expect(after).toHaveLength(2);
    expect(after.filter((p) => before.includes(p))).toEqual([]);
    const listed = await server.admin("GET", `${P}/batches?stage=cancelled`);
    expect(listed.json.batches.map((b: any) => b.batch)).toContain(made.json.batch);
    expect(withdrawals).toHaveLength(2);
  });

  it("audits batches made, approved, sent, cancelled, downloaded, and settings", async () => {
    const firm = await createFirm(server);
    await pendingWithdrawals(server, firm, 2, { amount: "60000.00" });
    const made = await op1.call("POST", `${C}/batches`, { account, firm: firm.id });
    const id = made.json.batch;
    await op2.call("POST", `${C}/batches/${id}/approve`);
    await adminFile(server, id, "AKBANK");
    await op2.call("POST", `${C}/batches/${id}/sent`);
    await pendingWithdrawal(server, firm);
    const cancelled = (await batchOf(firm)).json.batch;
    await server.admin("POST", `${P}/batches/${cancelled}/cancel`, { actor: "c", note: "n" });

    const audit = async (entity: string, entityId: string) =>
      (await server.admin("GET", `/admin/v1/audit?entity_type=${entity}&entity_id=${entityId}`))
        .json as any[];
    const trail = (await audit("payout_batch", String(id))).map((e) => [e.action, e.actor]).reverse();
    expect(trail).toEqual([
      ["payout_batch.create", op1.actor],
      ["payout_batch.approve", op2.actor],
      ["payout_batch.file", "admin-api:files"],
      ["payout_batch.sent", op2.actor],
    ]);
    const cancelTrail = await audit("payout_batch", String(cancelled));
    expect(cancelTrail[0]).toMatchObject({ action: "payout_batch.cancel", actor: "admin-api:c" });
    expect(JSON.stringify(cancelTrail[0])).toMatch(/batched/);
    expect(JSON.stringify(cancelTrail[0])).not.toMatch(/second_approval/);
    const changes = await audit("payout_settings", "all");
    expect(changes.map((e) => e.action)).toContain("payout.settings");
    expect(changes.some((e) => e.actor === consoleAdmin.actor)).toBe(true);
  });

  it("refuses bad input with a reason", async () => {
    const firm = await createFirm(server);
    await pendingWithdrawal(server, firm);
    for (const max_count of [0, -1, 1.5, "2", 10_001]) {
      const res = await server.admin("POST", `${P}/batches`, { account, firm: firm.id, max_count });
      expect([max_count, res.status, res.json.code]).toEqual([max_count, 400, "invalid_input"]);
    }
    const noAccount = await server.admin("POST", `${P}/batches`, { account: 999_999, firm: firm.id });
    expect([noAccount.status, noAccount.json.code]).toEqual([404, "account_not_found"]);
    const noFirm = await server.admin("POST", `${P}/batches`, { account, firm: 999_999 });
    expect([noFirm.status, noFirm.json.code]).toEqual([404, "firm_not_found"]);
    const accounts = (await server.admin("GET", "/admin/v1/accounts")).json as any[];
    const sandbox = accounts.find((a) => a.sandbox === true);
    const test = await server.admin("POST", `${P}/batches`, { account: sandbox.id, firm: firm.id });
    expect([test.status, test.json.code]).toEqual([422, "payout_account_unusable"]);
    const closed = (await addAccount(server, { iban: "TR330006100519786457841326" })).id;
    expect((await server.admin("PATCH", `/admin/v1/accounts/${closed}`, { active: false })).status).toBe(200);
    const inactive = await server.admin("POST", `${P}/batches`, { account: closed, firm: firm.id });
    expect([inactive.status, inactive.json.code]).toEqual([422, "payout_account_unusable"]);
    const off = (await addAccount(server)).id;
    const offSettings = await settings({ account: off, payouts: false });
    expect(offSettings.json).toMatchObject({
      scope: `account:${off}`,
      payouts: false,
      set_here: ["payouts"],
    });
    expect((await server.admin("GET", `${P}/settings?account=${account}`)).json.payouts).toBe(true);
    const barred = await server.admin("POST", `${P}/batches`, { account: off, firm: firm.id });
    expect([barred.status, barred.json.code]).toEqual([422, "payout_account_unusable"]);

    const both = await settings({ firm: firm.id, account, payouts: true });
    expect([both.status, both.json.code]).toEqual([400, "invalid_input"]);
    expect((await server.admin("GET", `${P}/settings?firm=${firm.id}&account=${account}`)).status).toBe(400);
    for (const amount of ["12.345", "-5.00", "abc", "0", "1e5", "", "1,000.00", 100]) {
      const res = await settings({ two_person_payout_above: amount });
      expect([amount, res.status, res.json.code]).toEqual([amount, 400, "invalid_input"]);
    }
    expect((await settings({ fast_limit: "none" })).status).toBe(400);
    // A FAST limit and a channel's say are a paying account's, never a firm's.
    for (const key of [{ fast_limit: "500.00" }, { channel_final_approves: true }]) {
      const res = await settings({ firm: firm.id, ...key });
      expect([res.status, res.json.code]).toEqual([400, "invalid_input"]);
    }
    expect((await settings({ firm: 999_999, payouts: true })).json.code).toBe("firm_not_found");
    expect((await server.admin("GET", `${P}/batches/999999`)).json.code).toBe("payout_batch_not_found");
    expect((await server.admin("GET", `${P}/batches?stage=paid`)).status).toBe(400);
    expect((await server.admin("POST", `${P}/batches`, { account, surprise: 1 })).status).toBe(400);
  });
  it("an account's FAST limit sends larger payouts from it by EFT", async () => {
    const firm = await createFirm(server);
    const small = (await addAccount(server)).id;
    const limit = await settings({ account: small, fast_limit: "500.00" });
    expect(limit.json).toMatchObject({ fast_limit: "500.00", set_here: ["fastLimit"] });
    await pendingWithdrawal(server, firm, { amount: "500.00" });
    await pendingWithdrawal(server, firm, { amount: "500.01" });
    const made = await server.admin("POST", `${P}/batches`, { account: small, firm: firm.id });
    expect(((await shown(made.json.batch)).items as any[]).map((i) => [i.amount, i.method])).toEqual([
      ["500.00", "FAST"],
      ["500.01", "EFT"],
    ]);
  });

  it("a pile of withdrawals that may not go keeps no newer one out of a batch", async () => {
    const firm = await createFirm(server);
    const bad = { iban: "TR330006100519786457841327" };
    for (let i = 0; i < 1_001; i += 100) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(100, 1_001 - i) }, () =>
          send(server, firm, { path: "/paymentapi/v1/withdrawals", body: withdrawalBody(bad) }),
        ),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    const good = await pendingWithdrawal(server, firm);
    const made = await batchOf(firm);
    expect(made.json).toMatchObject({ payouts: 1, stage: "batched" });
    expect((await shown(made.json.batch)).items.map((i: any) => i.transaction_id)).toEqual([good]);
    const none = await batchOf(firm);
    expect(none.json.message).toBe("1001 the IBAN is not a valid Turkish IBAN");
  });
  it("an EFT file made outside EFT hours says so; one made within them does not", async () => {
    const firm = await createFirm(server);
    await pendingWithdrawal(server, firm, { amount: "20.00", method: "eft" });
    const id = (await batchOf(firm)).json.batch;
    // Sunday 2026-12-06 12:00 and Monday 2026-12-07 10:00 in Türkiye (UTC+3).
    const at = (iso: string) => {
      server.clock.frozenAtMs = Date.parse(iso) - server.clock.offsetMs;
    };
    try {
      at("2026-12-06T09:00:00Z");
      const sunday = await adminFile(server, id, "pain.001.001.09");
      expect(noticesOf(sunday.headers)).toEqual([
        { code: "outside_eft_hours", message: expect.stringMatching(/outside EFT hours/) },
      ]);
      at("2026-12-07T07:00:00Z");
      const monday = await adminFile(server, id, "pain.001.001.09");
      expect(noticesOf(monday.headers)).toEqual([]);
      // The same bytes whenever downloaded: the batch's own time, not the clock's.
      expect(monday.bytes.equals(sunday.bytes)).toBe(true);
    } finally {
      server.clock.frozenAtMs = undefined;
    }
  });
});
