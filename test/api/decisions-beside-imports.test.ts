import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode, type TestFirm } from "../support/merchant.js";
import { camtFile } from "../support/statement-files.js";

/**
 * A statement's batch decides several of a firm's deposits in one transaction, and holds credits
 * for nobody on the same bank account, while operators approve the firm's other deposits: each
 * takes the ledger's rows and the firm's own in its own order. On PostgreSQL the database may end
 * such a cycle by failing one side; the decision is then made again, never answered with a 500.
 */
describe.each(STORES)("operators' decisions beside a statement's batch of the same firm (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let account: { id: number; iban: string };

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server);
    firm = await createFirm(server, { answer_payment_code: true });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("every approval is answered 200 and every deposit is decided once; the firm's balance is their sum", async () => {
    const deposits: { id: number; at: number; code: string }[] = [];
    for (let i = 0; i < 60; i++)
      deposits.push(await depositWithCode(server, firm, { amount: `${100 + i}.00` }));
    const byStatement = deposits.slice(0, 30);
    const byHand = deposits.slice(30);
    // The statement's paying lines, each after a credit for nobody (held in suspense).
    const entries = byStatement.flatMap((d, i) => [
      { amount: `${7 + i}.00`, name: "BILINMEYEN GONDEREN", description: "havale", ref: `U-${i}`, at: d.at },
      {
        amount: `${100 + i}.00`,
        name: "ODEYEN",
        description: `odeme ${d.code}`,
        ref: `P-${i}`,
        at: d.at + 1,
      },
    ]);
    const upload = request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body: camtFile({ iban: account.iban, entries }),
    }).then(async (r) => ({ status: r.statusCode, text: await r.body.text() }));
    const answers: number[] = [];
    const queue = [...byHand];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let d = queue.shift(); d; d = queue.shift()) {
          const res = await server.admin("POST", `/admin/v1/transactions/${d.id}/approve`, {
            actor: "operator:t",
          });
          answers.push(res.status);
        }
      }),
    );
    const imported = await upload;
    expect(imported.status, imported.text).toBe(200);
    expect(answers).toEqual(Array(30).fill(200));
    for (const d of deposits) {
      const tx = await server.admin("GET", `/admin/v1/transactions/${d.id}`);
      expect(tx.json.status, `deposit ${d.id}`).toBe("approved");
    }
    const audit = await server.admin("GET", "/admin/v1/audit?action=transaction.approve&limit=500");
    const approvals = (audit.json as { entity_id: string }[]).filter((a) =>
      deposits.some((d) => String(d.id) === a.entity_id),
    );
    expect(approvals).toHaveLength(60);
    // 100.00 + … + 159.00, no commission set.
    const balance = await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`);
    expect(balance.json.balance).toBe("7770.00");
  });
});
