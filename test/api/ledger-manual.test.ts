import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, type TestFirm } from "../support/merchant.js";

/**
 * What only an admin posts (docs/ledger.md, "Adjustments, settlements and opening balances"):
 * an adjustment with its reason, a settlement from a bank account, an opening balance set once;
 * each audited, each keyed so that a retry posts once, bad input refused in the envelope.
 */
describe.each(STORES)("postings made by hand (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let account: { id: number; iban: string };

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server);
    firm = await createFirm(server, { webhook_url: "http://127.0.0.1:9/cb" });
  });
  afterAll(async () => {
    await server?.close();
  });

  const balance = async () =>
    (await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`)).json.balance;
  const cash = async () =>
    (await server.admin("GET", `/admin/v1/ledger/accounts/${account.id}/balance`)).json.expected;

  it("an opening balance, an adjustment and a settlement move the firm's balance and the bank's cash, audited", async () => {
    const at = new Date(server.clock.now() - 86_400_000).toISOString();
    const opened = await server.admin("POST", "/admin/v1/ledger/openings", {
      firm_id: firm.id,
      balance: "500.00",
      at,
      actor: "ayse",
    });
    expect(opened).toMatchObject({
      status: 201,
      json: { kind: "opening_balance", key: `opening:firm:${firm.id}`, replayed: false },
    });
    const bank = await server.admin("POST", "/admin/v1/ledger/openings", {
      account_id: account.id,
      balance: "800.00",
      at,
    });
    expect(bank.status).toBe(201);
    expect(await balance()).toBe("500.00");
    expect(await cash()).toBe("800.00");

    const adjusted = { amount: "-12.50", reason: "kur farkı düzeltmesi", key: "ADJ-1", actor: "ayse" };
    expect(
      (await server.admin("POST", `/admin/v1/ledger/firms/${firm.id}/adjustments`, adjusted)).status,
    ).toBe(201);
    // The same request again: the key posted once.
    const again = await server.admin("POST", `/admin/v1/ledger/firms/${firm.id}/adjustments`, adjusted);
    expect(again).toMatchObject({ status: 200, json: { replayed: true } });
    expect(await balance()).toBe("487.50");

    const settled = { amount: "300.00", account_id: account.id, reference: "EFT-2026-0001" };
    expect(
      (await server.admin("POST", `/admin/v1/ledger/firms/${firm.id}/settlements`, settled)).status,
    ).toBe(201);
    expect(await balance()).toBe("187.50");
    expect(await cash()).toBe("500.00");

    const audit = await server.admin("GET", `/admin/v1/audit?entity_type=firm&entity_id=${firm.id}`);
    const actions = audit.json.map((a: { action: string; actor: string }) => [a.action, a.actor]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ["ledger.opening", "admin-api:ayse"],
        ["ledger.adjust", "admin-api:ayse"],
        ["ledger.settle", "admin-api:admin"],
      ]),
    );
    expect(actions.filter(([a]: string[]) => a === "ledger.adjust")).toHaveLength(1);
  });

  it("refuses a second opening balance, a reused key, a zero, a bad amount and a missing reason", async () => {
    const at = new Date(server.clock.now() - 3_600_000).toISOString();
    const second = await server.admin("POST", "/admin/v1/ledger/openings", {
      firm_id: firm.id,
      balance: "1.00",
      at,
    });
    expect(second).toMatchObject({ status: 409, json: { code: "ledger_opening_set" } });
    const reused = await server.admin("POST", `/admin/v1/ledger/firms/${firm.id}/adjustments`, {
      amount: "1.00",
      reason: "başka",
      key: "ADJ-1",
    });
    expect(reused).toMatchObject({ status: 409, json: { code: "ledger_key_reused" } });
    const post = (path: string, body: object) => server.admin("POST", `/admin/v1/ledger/${path}`, body);
    for (const [path, body] of [
      [`firms/${firm.id}/adjustments`, { amount: "0.00", reason: "x" }],
      [`firms/${firm.id}/adjustments`, { amount: "1,5", reason: "x" }],
      [`firms/${firm.id}/adjustments`, { amount: "1.00" }],
      [`firms/${firm.id}/settlements`, { amount: "-1.00", account_id: account.id, reference: "R" }],
      [`firms/${firm.id}/settlements`, { amount: "1.00", account_id: account.id, reference: "with space" }],
      ["openings", { balance: "1.00", at }],
      ["openings", { firm_id: firm.id, account_id: account.id, balance: "1.00", at }],
      [
        "openings",
        { firm_id: firm.id, balance: "1.00", at: new Date(server.clock.now() + 60_000).toISOString() },
      ],
    ] as const) {
      const res = await post(path, body);
      expect([path, res.status, res.json.code]).toEqual([path, 400, "invalid_input"]);
    }
    expect((await post("firms/999999/adjustments", { amount: "1.00", reason: "x" })).json.code).toBe(
      "firm_not_found",
    );
    expect(
      (await post(`firms/${firm.id}/settlements`, { amount: "1.00", account_id: 999999, reference: "R" }))
        .json.code,
    ).toBe("account_not_found");
    expect(await balance()).toBe("187.50");
  });
});
