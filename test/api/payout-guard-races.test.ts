import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";
import { pendingWithdrawals } from "../support/payouts.js";

/**
 * The ledger's guard is exact under concurrency (issue 48, point 6): two server instances on one
 * PostgreSQL batching one firm's payouts at once, and operators approving its withdrawals by hand
 * on both at once, never take the firm below its overdraft together, round after round; and what
 * fits is never left out once the races are over. Only the database's locks stand between them.
 */
const ROUNDS = 10;

describe.runIf(STORES.includes("postgres"))("the ledger's guard on two instances (postgres)", () => {
  let first: TestServer;
  let second: TestServer;
  let account: number;
  let sessions: { server: TestServer; cookie: string; csrf: string }[];

  beforeAll(async () => {
    first = await startTestServer("postgres", { LOG_LEVEL: "warn" });
    second = await startTestServer("postgres", { LOG_LEVEL: "warn" }, { shareStoreOf: first });
    account = (await addAccount(first)).id;
    const on = await first.admin("PATCH", "/admin/v1/payouts/settings", {
      payouts: true,
      two_person_batch_above: "none",
    });
    expect(on.status).toBe(200);
    // Operators of their own: each one's batchings are ordered by the maker's day lock, so only the
    // guard's locks stand between two of them.
    sessions = [];
    for (const name of ["racing1", "racing2", "racing3"]) {
      const email = `${name}@ops.example`;
      const password = `${name}-password-123`;
      const made = await first.admin("POST", "/admin/v1/operators", { email, role: "operator", password });
      expect(made.status).toBe(201);
      for (const server of [first, second]) {
        const login = await consoleLogin(server, email, password);
        expect(login.res.status).toBe(200);
        sessions.push({ server, cookie: login.cookie, csrf: login.csrf });
      }
    }
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  async function fund(firm: TestFirm, amount: string) {
    const body = depositBody({ amount });
    expect((await send(first, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(first, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` });
    expect(
      (await first.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "funds" }))
        .status,
    ).toBe(200);
  }
  /** The firm's available balance in kuruş (its balance less what its unsent batches hold). */
  async function available(firm: TestFirm): Promise<number> {
    const res = await first.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`);
    return Math.round(Number(res.json.available) * 100);
  }
  /** A batching of the firm's payouts by the `n`th session (operators and instances in turn). */
  const batchBy = (n: number, firm: TestFirm, maxCount?: number) =>
    consoleCall(session(n), "POST", "/ops/api/payouts/batches", {
      account,
      firm: firm.id,
      ...(maxCount === undefined ? {} : { max_count: maxCount }),
    });
  const session = (n: number) => sessions[n % sessions.length] as (typeof sessions)[number];

  it("batchings of one firm's payouts from two instances at once never take it below its overdraft", async () => {
    const firm = await createFirm(first);
    const overdraft = 10_000;
    expect((await first.admin("PATCH", `/admin/v1/firms/${firm.id}`, { overdraft: "100.00" })).status).toBe(
      200,
    );
    let batchedTotal = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await fund(firm, "600.00");
      // Eight payouts of 100.00 to 170.00 against 600.00 and the overdraft: some must wait.
      for (let i = 0; i < 8; i++)
        await pendingWithdrawals(first, firm, 1, { amount: `${100 + ((round + i) % 8) * 10}.00` });
      const room = (await available(firm)) + overdraft;
      // Each asks for a different part, so that their batches hold different withdrawals.
      const racers = [1, 2, 3, undefined, 1, undefined].map((max, n) => batchBy(n, firm, max));
      const answers = await Promise.all(racers);
      const made: number[] = [];
      for (const a of answers) {
        expect([201, 409, 422], JSON.stringify(a.json)).toContain(a.status);
        if (a.status === 201) made.push(a.json.batch);
        if (a.status === 409) expect(a.json.code).toBe("payout_batch_contended");
        if (a.status === 422) expect(a.json.code).toBe("payout_batch_empty");
      }
      expect(made.length).toBeGreaterThan(0);
      const taken = room - overdraft - (await available(firm));
      expect(taken, `round ${round}`).toBeLessThanOrEqual(room);
      expect(await available(firm)).toBeGreaterThanOrEqual(-overdraft);
      // Once the races are over, one more batching takes what still fits, and nothing beyond.
      await batchBy(0, firm);
      const left = (await available(firm)) + overdraft;
      expect(left).toBeGreaterThanOrEqual(0);
      const waiting = (await first.admin("GET", `/admin/v1/payouts/waiting?firm=${firm.id}`)).json
        .waiting as {
        amount: string;
        not_batchable_code: string | null;
      }[];
      for (const w of waiting) {
        expect(w.not_batchable_code).toBe("over_balance");
        expect(Math.round(Number(w.amount) * 100)).toBeGreaterThan(left);
      }
      // Sent: the next round starts with nothing held back.
      const listed = await first.admin("GET", "/admin/v1/payouts/batches?stage=batched&limit=100");
      for (const b of listed.json.batches as { batch: number; firm_id: number; total: string }[]) {
        if (b.firm_id !== firm.id) continue;
        batchedTotal += Math.round(Number(b.total) * 100);
        expect((await first.admin("POST", `/admin/v1/payouts/batches/${b.batch}/sent`, {})).status).toBe(200);
      }
    }
    // Every batch sent: the firm's balance is what came in less what left, never below the overdraft.
    const end = await first.admin("GET", `/admin/v1/ledger/firms/${firm.id}/balance`);
    expect(Math.round(Number(end.json.in_transit) * 100)).toBe(batchedTotal);
    expect(Math.round(Number(end.json.balance) * 100)).toBe(ROUNDS * 60_000 - batchedTotal);
    expect(Math.round(Number(end.json.balance) * 100)).toBeGreaterThanOrEqual(-overdraft);
  });

  it("an operator's approvals by hand on two instances at once approve exactly what the balance covers", async () => {
    const firm = await createFirm(first);
    const paidByHand = await first.admin("PATCH", "/admin/v1/payouts/settings", {
      firm: firm.id,
      payouts: false,
    });
    expect(paidByHand.status).toBe(200);
    const overdraft = 5_000;
    expect((await first.admin("PATCH", `/admin/v1/firms/${firm.id}`, { overdraft: "50.00" })).status).toBe(
      200,
    );
    for (let round = 0; round < ROUNDS; round++) {
      await fund(firm, "250.00");
      const room = (await available(firm)) + overdraft;
      const ids = await pendingWithdrawals(first, firm, 6, { amount: "100.00" });
      const answers = await Promise.all(
        ids.map((id, i) => {
          return consoleCall(session(i), "POST", `/ops/api/transactions/${id}/approve`, {});
        }),
      );
      for (const a of answers) {
        expect([200, 409], JSON.stringify(a.json)).toContain(a.status);
        if (a.status === 409) expect(a.json.code).toBe("payout_over_balance");
      }
      const approved = answers.filter((a) => a.status === 200).length;
      // Exactly as many as fit: never one more (overdrawn), never one fewer (refused in error).
      expect(approved, `round ${round}, room ${room}`).toBe(Math.min(6, Math.floor(room / 10_000)));
      expect(await available(firm)).toBeGreaterThanOrEqual(-overdraft);
      for (const [i, id] of ids.entries())
        if (answers[i]?.status === 409)
          expect(
            (
              await consoleCall(
                sessions[0] as (typeof sessions)[number],
                "POST",
                `/ops/api/transactions/${id}/reject`,
                {},
              )
            ).status,
          ).toBe(200);
    }
  });
});

async function consoleCall(
  s: { server: TestServer; cookie: string; csrf: string },
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: any }> {
  const res = await request(`${s.server.url}${path}`, {
    method: method as "POST",
    headers: { cookie: s.cookie, "x-csrf-token": s.csrf, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, json: await res.body.json() };
}
