import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turkishIbanFor } from "../../src/domain/iban.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, send, type TestFirm, withdrawalBody } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";

/**
 * Payouts proven by the bank's statement (issue 47, point 6), through the real server on both
 * stores: a sent batch's debits approve their withdrawals (by payment id, by IBAN and amount, a whole
 * batch booked as one), a return sends a payout back to the operators, what is not proven is only
 * suggested, and a line naming a payout paid already is raised, never paid twice.
 */
interface Debit {
  amount: string;
  at: number;
  endToEndId?: string;
  endToEndIds?: string[];
  payee?: string;
  iban?: string;
  text?: string;
  credit?: boolean;
  returnReason?: string;
  ref?: string;
}

const money = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
const minor = (a: string) => Math.round(Number(a) * 100);

function camt(iban: string, lines: Debit[], sequence: string): string {
  const opening = 100_000_000;
  const moved = lines.reduce((s, l) => s + (l.credit ? 1 : -1) * minor(l.amount), 0);
  const tx = (l: Debit, e2e?: string) => `<TxDtls>
     ${e2e ? `<Refs><EndToEndId>${e2e}</EndToEndId></Refs>` : ""}
     ${l.payee || l.iban ? `<RltdPties>${l.payee ? `<Cdtr><Nm>${l.payee}</Nm></Cdtr>` : ""}${l.iban ? `<CdtrAcct><Id><IBAN>${l.iban}</IBAN></Id></CdtrAcct>` : ""}</RltdPties>` : ""}
     ${l.text ? `<RmtInf><Ustrd>${l.text}</Ustrd></RmtInf>` : ""}
     ${l.returnReason ? `<RtrInf><Rsn><Cd>${l.returnReason}</Cd></Rsn></RtrInf>` : ""}
    </TxDtls>`;
  const entry = (l: Debit) => `
   <Ntry>
    <Amt Ccy="TRY">${l.amount}</Amt><CdtDbtInd>${l.credit ? "CRDT" : "DBIT"}</CdtDbtInd>
    <BookgDt><DtTm>${new Date(l.at).toISOString()}</DtTm></BookgDt>
    ${l.ref ? `<AcctSvcrRef>${l.ref}</AcctSvcrRef>` : ""}
    <NtryDtls>${l.endToEndIds ? l.endToEndIds.map((id) => tx({ ...l, payee: undefined, iban: undefined }, id)).join("") : tx(l, l.endToEndId)}</NtryDtls>
   </Ntry>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt>
 <ElctrncSeqNb>${sequence}</ElctrncSeqNb><Acct><Id><IBAN>${iban}</IBAN></Id></Acct>
 <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${money(opening)}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>
 <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${money(opening + moved)}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>${lines.map(entry).join("")}
</Stmt></BkToCstmrStmt></Document>`;
}

describe.each(STORES)("payouts proven by the statement (%s)", (kind) => {
  let server: TestServer;
  let receiver: Receiver;
  let firm: TestFirm;
  let account: { id: number; iban: string };
  let sequence = 0;
  let bban = 10_000;

  beforeAll(async () => {
    server = await startTestServer(kind, { PAYINTAKE_CALLBACK_POLL_MS: "25", LOG_LEVEL: "warn" });
    account = await addAccount(server);
    receiver = await startReceiver();
    firm = await createFirm(server, { webhook_url: receiver.url });
    // Firms' balances are test/api/payout-ledger.test.ts's: here payouts are not held to them.
    const on = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      payouts: true,
      balance_guard: false,
      actor: "test",
    });
    expect(on.status).toBe(200);
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  const upload = async (lines: Debit[]) => {
    sequence++;
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body: camt(account.iban, lines, String(sequence)),
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  };
  const tx = async (id: number) => (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;

  /** Withdrawals of these amounts, each to its own payee, batched and marked sent. */
  async function sentBatch(amounts: string[], iban?: string) {
    const ids: number[] = [];
    for (const amount of amounts) {
      const body = withdrawalBody({ amount, iban: iban ?? turkishIbanFor(String(bban++).padStart(22, "0")) });
      const res = await send(server, firm, { path: "/paymentapi/v1/withdrawals", body });
      expect(res.status).toBe(200);
      const list = await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&status=pending`);
      ids.push(list.json.find((t: any) => t.reference === body.reference).id);
    }
    const made = await server.admin("POST", "/admin/v1/payouts/batches", {
      account: account.id,
      firm: firm.id,
      actor: "ayse",
    });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    expect(made.json.payouts).toBe(amounts.length);
    const sent = await server.admin("POST", `/admin/v1/payouts/batches/${made.json.batch}/sent`, {
      actor: "ayse",
    });
    expect(sent.status).toBe(200);
    const shown = await server.admin("GET", `/admin/v1/payouts/batches/${made.json.batch}`);
    const items = ids.map((id) => shown.json.items.find((i: any) => i.transaction_id === id));
    return { batch: made.json.batch as number, items };
  }

  it("a debit naming the payment id with the same amount approves the withdrawal; the callback goes out once", async () => {
    const { batch, items } = await sentBatch(["1250.00"]);
    const [item] = items;
    const before = receiver.received.length;
    const res = await upload([{ amount: "1250.00", at: server.clock.now(), endToEndId: item.payment_id }]);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      lines: 1,
      credits: 0,
      debits: 1,
      payouts_paid: 1,
      payouts_suggested: 0,
      returns: 0,
    });
    expect(await tx(item.transaction_id)).toMatchObject({
      status: "approved",
      decided_by: "service:reconcile",
    });
    await eventually(async () => (receiver.received.length > before ? true : undefined));
    const shown = await server.admin("GET", `/admin/v1/payouts/batches/${batch}`);
    expect(shown.json).toMatchObject({ stage: "closed", items: [{ stage: "paid" }] });
    // The same debit again (another statement naming it, no bank reference): a duplicate line or a double payment, never a second approval.
    const again = await upload([
      { amount: "1250.00", at: server.clock.now() + 1_000, endToEndId: item.payment_id, text: "again" },
    ]);
    expect(again.json.payouts_paid).toBe(0);
    expect((await server.admin("GET", `/admin/v1/payouts/batches/${batch}`)).json.items[0]).toMatchObject({
      stage: "paid",
      flag: "double_payment",
    });
  });

  it("a wrong amount with the right id, and an amount alone, are suggested, never paid", async () => {
    const { items } = await sentBatch(["300.00"]);
    const [item] = items;
    const res = await upload([
      { amount: "299.00", at: server.clock.now(), endToEndId: item.payment_id },
      { amount: "300.00", at: server.clock.now(), text: "GIDEN FAST" },
    ]);
    expect(res.json).toMatchObject({ debits: 2, payouts_paid: 0 });
    expect(res.json.payouts_suggested).toBeGreaterThanOrEqual(1);
    expect((await tx(item.transaction_id)).status).toBe("pending");
  });

  it("a batch booked as one debit of its sum pays every payout of it", async () => {
    const { items } = await sentBatch(["100.00", "200.00", "300.50"]);
    const res = await upload([{ amount: "600.50", at: server.clock.now(), text: "TOPLU ODEME" }]);
    expect(res.json).toMatchObject({ debits: 1, payouts_paid: 3 });
    for (const item of items) expect((await tx(item.transaction_id)).status).toBe("approved");
  });

  it("a return sends the payout back to the operators with the bank's reason; rejecting it then tells the merchant", async () => {
    const { items } = await sentBatch(["410.00"]);
    const [item] = items;
    const res = await upload([
      {
        amount: "410.00",
        at: server.clock.now(),
        credit: true,
        endToEndId: item.payment_id,
        returnReason: "AC04",
        ref: `R-${item.payment_id}`,
      },
    ]);
    expect(res.json).toMatchObject({ credits: 1, returns: 1, approved: 0, suggested: 0, unmatched: 0 });
    expect((await tx(item.transaction_id)).status).toBe("pending");
    const waiting = await server.admin("GET", `/admin/v1/payouts/waiting?firm=${firm.id}`);
    const back = waiting.json.waiting.find((w: any) => w.transaction_id === item.transaction_id);
    expect(back.last_attempt).toMatchObject({ stage: "returned" });
    expect(back.last_attempt.reason).toMatch(/AC04/);
    const rejected = await server.admin("POST", `/admin/v1/transactions/${item.transaction_id}/reject`, {
      actor: "ayse",
    });
    expect(rejected.status).toBe(200);
  });

  it("a line an operator types proves a payout, and a typed return sends one back", async () => {
    const { items } = await sentBatch(["45.00", "46.00"]);
    const [paid, returned] = items;
    const typed = (body: Record<string, unknown>) =>
      server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
        booked_at: new Date(server.clock.now()).toISOString(),
        ...body,
      });
    const debit = await typed({ amount: "45.00", direction: "debit", end_to_end_id: paid.payment_id });
    expect(debit.status, JSON.stringify(debit.json)).toBe(200);
    expect((await tx(paid.transaction_id)).status).toBe("approved");
    const back = await typed({
      amount: "46.00",
      direction: "credit",
      end_to_end_id: returned.payment_id,
      is_return: true,
      return_reason: "AC04",
    });
    expect(back.status, JSON.stringify(back.json)).toBe(200);
    const waiting = await server.admin("GET", `/admin/v1/payouts/waiting?firm=${firm.id}`);
    expect(
      waiting.json.waiting.find((w: any) => w.transaction_id === returned.transaction_id)?.last_attempt,
    ).toMatchObject({
      stage: "returned",
    });
    // Back with the operators: rejected here, so that the next test's batch holds only its own.
    const rejected = await server.admin("POST", `/admin/v1/transactions/${returned.transaction_id}/reject`, {
      actor: "ayse",
    });
    expect(rejected.status).toBe(200);
  });

  it("a statement that does not balance pays nothing: its debit is only suggested", async () => {
    const { items } = await sentBatch(["77.00"]);
    const [item] = items;
    sequence++;
    const body = camt(
      account.iban,
      [{ amount: "77.00", at: server.clock.now(), endToEndId: item.payment_id }],
      String(sequence),
    ).replace(
      /(<Cd>CLBD<\/Cd><\/CdOrPrtry><\/Tp><Amt Ccy="TRY">)(\d+)/,
      (_m, head, whole) => `${head}${Number(whole) + 5}`,
    );
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body,
    });
    const json = (await res.body.json()) as any;
    expect(json).toMatchObject({ debits: 1, payouts_paid: 0, payouts_suggested: 1 });
    expect((await tx(item.transaction_id)).status).toBe("pending");
  });
});
