import fc from "fast-check";
import { sql } from "kysely";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { turkeyDayOf } from "../../src/domain/turkey-time.js";
import { STORES, startTestServer, storeEnv, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode, type TestFirm } from "../support/merchant.js";
import { pendingWithdrawal } from "../support/payouts.js";
import { SEED } from "../support/seed.js";
import { camtFile } from "../support/statement-files.js";
import { withStore } from "../support/stored.js";

/**
 * The ledger keeps its books whatever happens (issue 48, "Done when"): after any sequence of
 * deposits, withdrawals, approvals (edited amounts too), rejections, auto-cancels (the service's own
 * job, once the firm's provider's time has passed on the test clock; a payment after one too),
 * payouts (batched within the firm's room, sent, then proved paid by the bank's debit or sent back
 * by the payee's bank while still sent), returns of paid payouts, statement lines (for a deposit,
 * for nobody, for one already decided), settlements, adjustments and replays of the same requests,
 * each firm's balance equals what its transactions say (approved deposits less their commissions,
 * less approved withdrawals and theirs, plus each returned payout's amount and commission, less
 * settlements, plus or minus adjustments), and the day report's postings add up to it. At the end,
 * read from the store itself: every posting sums to zero, every account's balance counters and day
 * figures equal the sum of its entries, no transaction but an approved one has an approval posting,
 * and every payment after a cancellation is held.
 */

/** The firm's commissions in the run, and the same rules computed here from their definition. */
const COMMISSION = { deposit: "1.00+0.50", withdrawal: "0+2.00" };
const halfUp = (n: number, d: number) => Math.floor((2 * n + d) / (2 * d));
const depositCommission = (a: number) => Math.min(a, halfUp(a * 100, 10_000) + 50);
const withdrawalCommission = (a: number) => Math.min(a, 200);

/** Every firm's provider cancels its pending deposits after a minute (the least it may set). */
const AUTO_CANCEL_MINUTES = 1;
const AUTO_CANCEL_ACTOR = "service:auto-cancel";
const HOUR = 3_600_000;

const amount = fc.integer({ min: 1, max: 500_000 });
const event = fc.oneof(
  { arbitrary: fc.record({ t: fc.constant("deposit" as const), amount }), weight: 3 },
  fc.record({ t: fc.constant("withdrawal" as const), amount }),
  fc.record({
    t: fc.constant("approve" as const),
    pick: fc.nat(),
    edit: fc.option(amount, { nil: undefined }),
  }),
  fc.record({ t: fc.constant("reject" as const), pick: fc.nat() }),
  fc.record({ t: fc.constant("line" as const), pick: fc.nat(), forNobody: fc.boolean(), amount }),
  fc.record({ t: fc.constant("settle" as const), amount }),
  fc.record({ t: fc.constant("adjust" as const), amount, down: fc.boolean() }),
  fc.record({ t: fc.constant("replay" as const) }),
  // `bounced`: the payee's bank sends the new withdrawal's payout back while it is still sent.
  { arbitrary: fc.record({ t: fc.constant("payout" as const), amount, bounced: fc.boolean() }), weight: 2 },
  // A paid payout (picked among the run's, returned already or not) sent back by the payee's bank.
  fc.record({ t: fc.constant("return" as const), pick: fc.nat() }),
  // The provider's time passes; `late`: one of the deposits it cancelled is paid afterwards.
  fc.record({ t: fc.constant("expire" as const), late: fc.option(fc.nat(), { nil: undefined }) }),
);
type Event = typeof event extends fc.Arbitrary<infer T> ? T : never;

const lira = (minor: number) =>
  `${minor < 0 ? "-" : ""}${Math.floor(Math.abs(minor) / 100)}.${String(Math.abs(minor) % 100).padStart(2, "0")}`;
const minorOf = (text: string) => {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(text);
  if (!m) throw new Error(`not an amount: ${text}`);
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3]));
};

/** The Türkiye days from one moment to another, in order (a run may cross midnight). */
function turkeyDaysBetween(from: number, to: number): string[] {
  const days: string[] = [];
  for (let t = from; ; t = Math.min(t + HOUR, to)) {
    const day = turkeyDayOf(t);
    if (days.at(-1) !== day) days.push(day);
    if (t >= to) return days;
  }
}

interface Made {
  id: number;
  code: string | null;
  amount: number;
}
interface PaidPayout {
  paymentId: string;
  amount: number;
}
interface TransactionRow {
  id: number;
  type: string;
  status: string;
  amount: string;
  decided_by: string | null;
}

describe.each(STORES)("the ledger keeps its books under any sequence of events (%s)", (kind) => {
  let server: TestServer;
  // The store is this file's own (given to the server over the harness's), so that it outlives the
  // server and is read directly at the end.
  let store: Awaited<ReturnType<typeof storeEnv>>;
  let account: { id: number; iban: string };
  let provider: number;
  let sequence = 0;
  let keys = 0;

  beforeAll(async () => {
    store = await storeEnv(kind);
    server = await startTestServer(kind, {
      LOG_LEVEL: "warn",
      // The auto-cancel job looks often, so that a run waits little for it once the clock has moved.
      PAYINTAKE_AUTO_CANCEL_INTERVAL_MS: "25",
      ...store.env,
    });
    account = await addAccount(server);
    const payouts = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      payouts: true,
      two_person_batch_above: "none",
    });
    expect(payouts.status).toBe(200);
    const made = await server.admin("POST", "/admin/v1/providers", {
      name: "Ledger property",
      auto_cancel_minutes: AUTO_CANCEL_MINUTES,
    });
    expect(made.status).toBe(201);
    provider = made.json.id;
  });
  afterAll(async () => {
    await server?.close();
    await store?.cleanup();
  });

  /** A one-credit camt.053 for the account: the import's answer (its counts). */
  async function upload(entry: { amount: number; description: string; name: string }) {
    const body = camtFile({
      iban: account.iban,
      sequence: String(++sequence),
      entries: [
        {
          amount: lira(entry.amount),
          description: entry.description,
          name: entry.name,
          ref: `P-${sequence}`,
          at: server.clock.now(),
        },
      ],
    });
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body,
    });
    expect(res.statusCode).toBe(200);
    return (await res.body.json()) as Record<string, unknown>;
  }

  /** A line an operator types on the paying account (a payout's debit, or its return's credit). */
  async function typedLine(body: Record<string, unknown>) {
    const line = await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      ...body,
    });
    expect(line.status, JSON.stringify(line.json)).toBe(200);
  }

  const transactionsOf = async (firm: TestFirm) =>
    (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&limit=1000`)).json as TransactionRow[];
  const pendingDeposits = (txs: TransactionRow[]) =>
    txs.filter((t) => t.type === "deposit" && t.status === "pending").map((t) => t.id);

  /** One run's events against a fresh firm; the requests it made, to replay the last. */
  async function play(firm: TestFirm, events: Event[]) {
    const made: Made[] = [];
    const paid: PaidPayout[] = [];
    let last: (() => Promise<unknown>) | undefined;
    const pick = (n: number) => made[n % Math.max(made.length, 1)];
    for (const e of events) {
      if (e.t === "deposit") {
        const d = await depositWithCode(server, firm, { amount: lira(e.amount) });
        made.push({ id: d.id, code: d.code, amount: e.amount });
      } else if (e.t === "withdrawal" || e.t === "payout") {
        const id = await pendingWithdrawal(server, firm, { amount: lira(e.amount) });
        made.push({ id, code: null, amount: e.amount });
        if (e.t === "payout") paid.push(...(await payOut(firm, made, e.bounced ? id : undefined)));
      } else if (e.t === "approve" || e.t === "reject") {
        const tx = pick(e.pick);
        if (!tx) continue;
        const body = {
          actor: "prop",
          ...(e.t === "approve" && e.edit !== undefined && tx.code !== null ? { amount: lira(e.edit) } : {}),
        };
        last = () => server.admin("POST", `/admin/v1/transactions/${tx.id}/${e.t}`, body);
        await last();
      } else if (e.t === "line") {
        const tx = pick(e.pick);
        if (e.forNobody || !tx?.code)
          await upload({ amount: e.amount, description: "havale", name: "KIMSE BILINMEZ" });
        else await upload({ amount: tx.amount, description: `odeme ${tx.code}`, name: "ALI VELI" });
      } else if (e.t === "return") {
        const payout = paid[e.pick % Math.max(paid.length, 1)];
        if (!payout) continue;
        // Each return is a line of its own (its words differ), so one returned twice is returned again.
        const body = {
          amount: lira(payout.amount),
          direction: "credit",
          end_to_end_id: payout.paymentId,
          is_return: true,
          return_reason: "AC04",
          description: `iade ${++keys}`,
        };
        last = () => typedLine(body);
        await last();
      } else if (e.t === "expire") {
        await expire(firm, made, e.late);
      } else if (e.t === "settle") {
        const body = { amount: lira(e.amount), account_id: account.id, reference: `S-${++keys}` };
        last = () => server.admin("POST", `/admin/v1/ledger/firms/${firm.id}/settlements`, body);
        await last();
      } else if (e.t === "adjust") {
        const body = { amount: lira(e.down ? -e.amount : e.amount), reason: "test", key: `A-${++keys}` };
        last = () => server.admin("POST", `/admin/v1/ledger/firms/${firm.id}/adjustments`, body);
        await last();
      } else if (last) await last();
    }
  }

  /**
   * The firm's waiting withdrawals paid as payouts: batched (those its balance covers: the ledger's
   * guard leaves the rest waiting), marked sent, and each proved paid by a debit naming its payment
   * id, but `bounced`'s, which the payee's bank sends back while it is still sent (it waits again).
   * The payouts paid.
   */
  async function payOut(firm: TestFirm, made: Made[], bounced: number | undefined): Promise<PaidPayout[]> {
    const batch = await server.admin("POST", "/admin/v1/payouts/batches", {
      account: account.id,
      firm: firm.id,
      actor: "prop",
    });
    if (batch.status !== 201) return [];
    expect(
      (await server.admin("POST", `/admin/v1/payouts/batches/${batch.json.batch}/sent`, { actor: "prop" }))
        .status,
    ).toBe(200);
    const items = (await server.admin("GET", `/admin/v1/payouts/batches/${batch.json.batch}`)).json.items as {
      transaction_id: number;
      payment_id: string;
    }[];
    const paid: PaidPayout[] = [];
    for (const item of items) {
      const amount = made.find((m) => m.id === item.transaction_id)?.amount as number;
      const back = item.transaction_id === bounced;
      await typedLine({
        amount: lira(amount),
        direction: back ? "credit" : "debit",
        end_to_end_id: item.payment_id,
        ...(back ? { is_return: true, return_reason: "AC01" } : {}),
      });
      if (!back) paid.push({ paymentId: item.payment_id, amount });
    }
    return paid;
  }

  /**
   * The provider's time passes on the test clock, and the service's auto-cancel job (not the test)
   * rejects every deposit of the firm still pending; `late`: then one of them is paid, a payment
   * after cancellation, which the import holds for nobody.
   */
  async function expire(firm: TestFirm, made: Made[], late: number | undefined) {
    const due = pendingDeposits(await transactionsOf(firm));
    server.clock.advance(AUTO_CANCEL_MINUTES * 60_000 + 1_000);
    await expect
      .poll(async () => pendingDeposits(await transactionsOf(firm)), { timeout: 10_000, interval: 25 })
      .toEqual([]);
    const after = await transactionsOf(firm);
    for (const id of due)
      expect(after.find((t) => t.id === id)).toMatchObject({
        status: "rejected",
        decided_by: AUTO_CANCEL_ACTOR,
      });
    if (late === undefined || due.length === 0) return;
    const tx = made.find((m) => m.id === due[late % due.length]) as Made;
    const answer = await upload({ amount: tx.amount, description: `odeme ${tx.code}`, name: "ALI VELI" });
    expect(answer).toMatchObject({ credits: 1, approved: 0, unmatched: 1, after_cancellation: 1 });
  }

  /**
   * The firm's balance as its transactions, settlements and adjustments say it must be. A deposit
   * counts once approved (a rejection, the auto-cancel's too, moves nothing; a payment after it is
   * held for nobody, never the firm's). A withdrawal counts once approved (paid); a paid payout the
   * payee's bank sends back brings back its amount and the commission its payment took, however
   * many lines name the return (a payout returned while only sent was never approved: it waits).
   */
  async function owed(firm: TestFirm): Promise<number> {
    const returned = new Set(
      (
        (await server.admin("GET", "/admin/v1/audit?action=payout.returned_after_paid&limit=1000")).json as {
          entity_id: string;
        }[]
      ).map((a) => Number(a.entity_id)),
    );
    let sum = 0;
    for (const t of await transactionsOf(firm)) {
      if (t.status !== "approved") continue;
      const a = minorOf(t.amount);
      if (t.type === "deposit") sum += a - depositCommission(a);
      else sum -= returned.has(t.id) ? 0 : a + withdrawalCommission(a);
    }
    const audit = (
      await server.admin("GET", `/admin/v1/audit?entity_type=firm&entity_id=${firm.id}&limit=500`)
    ).json;
    for (const a of audit as { action: string; after_json?: string; after?: unknown }[]) {
      if (a.action !== "ledger.adjust" && a.action !== "ledger.settle") continue;
      const after = (a.after ?? JSON.parse(a.after_json ?? "null")) as {
        lines: { account: string; amount: number }[];
      };
      const line = after.lines.find((l) => l.account === `firm:${firm.id}`);
      sum -= line?.amount ?? 0;
    }
    return sum;
  }

  it("each firm's balance is what its events say, and its days' postings add up to it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 24, size: "max" }), async (events) => {
        const started = server.clock.now();
        const firm = await createFirm(server, {
          webhook_url: "http://127.0.0.1:9/cb",
          answer_payment_code: true,
          provider_id: provider,
        });
        // An overdraft the runs never reach: the ledger's guard (tested on its own) lets every payout go.
        const set = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, {
          commission_deposit: COMMISSION.deposit,
          commission_withdrawal: COMMISSION.withdrawal,
          overdraft: "10000000.00",
        });
        expect(set.status).toBe(200);
        await play(firm, events);
        const balance = (await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`)).json;
        expect(minorOf(balance.balance)).toBe(await owed(firm));
        // Each day opens where the one before closed; the last closes at the balance.
        let opening = "0.00";
        for (const date of turkeyDaysBetween(started, server.clock.now())) {
          const day = (await server.admin("GET", `/admin/v1/ledger/firms/${firm.id}/days/${date}?limit=5000`))
            .json;
          const posted = (day.postings as { amount: string }[]).reduce((s, p) => s + minorOf(p.amount), 0);
          expect([day.opening, day.closing]).toEqual([opening, lira(minorOf(opening) + posted)]);
          opening = day.closing;
        }
        expect(opening).toBe(balance.balance);
      }),
      { numRuns: 16, seed: SEED },
    );
  });

  it("read from the store: every posting sums to zero, every balance and day figure is the sum of its entries, approvals alone post, late payments are held", async () => {
    await server.close();
    await withStore(store.env, async (store) => {
      const unbalanced = await sql<{ n: unknown }>`
        SELECT count(*) AS n FROM (SELECT posting_id FROM ledger_entries GROUP BY posting_id HAVING sum(amount) <> 0) x`.execute(
        store.db,
      );
      expect(Number(unbalanced.rows[0]?.n)).toBe(0);
      const counters = await sql<{ n: unknown }>`
        SELECT count(*) AS n FROM ledger_accounts a
        WHERE coalesce((SELECT sum(balance) FROM ledger_balances b WHERE b.account_id = a.id), 0)
          <> coalesce((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id), 0)
          OR coalesce((SELECT sum(amount) FROM ledger_days d WHERE d.account_id = a.id), 0)
          <> coalesce((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id), 0)`.execute(
        store.db,
      );
      expect(Number(counters.rows[0]?.n)).toBe(0);
      const postings = await sql<{ n: unknown }>`SELECT count(*) AS n FROM ledger_postings`.execute(store.db);
      expect(Number(postings.rows[0]?.n)).toBeGreaterThan(20);
      // Rejected (by an operator or by auto-cancel) and pending transactions posted no approval;
      // every approved deposit (all the runs' firms are live) posted its own.
      const unapproved = await sql<{ n: unknown }>`
        SELECT count(*) AS n FROM transactions t JOIN ledger_postings p
          ON p.idempotency_key IN ('deposit-approved:' || t.id, 'withdrawal-paid:' || t.id)
        WHERE t.status <> 'approved'`.execute(store.db);
      expect(Number(unapproved.rows[0]?.n)).toBe(0);
      const unposted = await sql<{ n: unknown }>`
        SELECT count(*) AS n FROM transactions t
        WHERE t.type = 'deposit' AND t.status = 'approved' AND NOT EXISTS (
          SELECT 1 FROM ledger_postings p WHERE p.idempotency_key = 'deposit-approved:' || t.id)`.execute(
        store.db,
      );
      expect(Number(unposted.rows[0]?.n)).toBe(0);
      // Payments after a cancellation came (the runs make some), and each is held for nobody.
      const late = await sql<{ n: unknown; held: unknown }>`
        SELECT count(*) AS n, count(held_posting_id) AS held FROM statement_lines
        WHERE state = 'after_cancellation'`.execute(store.db);
      expect(Number(late.rows[0]?.n)).toBeGreaterThan(0);
      expect(Number(late.rows[0]?.held)).toBe(Number(late.rows[0]?.n));
    });
  });
});
