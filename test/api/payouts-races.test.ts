import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, statusOf, type TestFirm } from "../support/merchant.js";
import { type ConsoleOperator, consoleOperator, pendingWithdrawals } from "../support/payouts.js";

/**
 * Batchings, decisions and payout marks of the same withdrawals at the same moment: every
 * withdrawal ends in at most one live attempt, a refusal is a reason and never a 500, and of a
 * decision and a batching only one wins. On PostgreSQL the same again from two server instances on
 * one database, where only the database's rules (migration 20261206T1000) stand between them.
 */
const ROUNDS = 12;
const PER_ROUND = 6;

interface Racer {
  name: string;
  batch(firm: TestFirm, maxCount?: number): Promise<{ status: number; json: any }>;
}

describe.each(STORES)("payout races (%s)", (kind) => {
  let server: TestServer;
  let second: TestServer | undefined;
  let account: number;
  let op1: ConsoleOperator;
  let op2: ConsoleOperator;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    if (kind === "postgres")
      second = await startTestServer(kind, { LOG_LEVEL: "warn" }, { shareStoreOf: server });
    account = (await addAccount(server)).id;
    [op1, op2] = await Promise.all([
      consoleOperator(server, "operator", "racer1"),
      consoleOperator(server, "operator", "racer2"),
    ]);
    // Firms' balances are test/api/payout-guard-races.test.ts's: here payouts are not held to them.
    const on = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      payouts: true,
      two_person_batch_above: "none",
      balance_guard: false,
    });
    expect(on.status).toBe(200);
  });
  afterAll(async () => {
    await second?.close();
    await server?.close();
  });

  const byAdmin = (s: TestServer, actor: string): Racer => ({
    name: `${s === server ? "first" : "second"} instance, ${actor}`,
    batch: (firm, maxCount) =>
      s.admin("POST", "/admin/v1/payouts/batches", {
        account,
        firm: firm.id,
        actor,
        ...(maxCount === undefined ? {} : { max_count: maxCount }),
      }),
  });
  const byConsole = (op: ConsoleOperator): Racer => ({
    name: op.email,
    batch: (firm, maxCount) =>
      op.call("POST", "/ops/api/payouts/batches", {
        account,
        firm: firm.id,
        ...(maxCount === undefined ? {} : { max_count: maxCount }),
      }),
  });

  /** Each batch's withdrawals, and those still waiting, of one firm. */
  async function whereAll(firm: TestFirm, batches: number[]) {
    const held: number[] = [];
    for (const id of batches) {
      const shown = await server.admin("GET", `/admin/v1/payouts/batches/${id}`);
      held.push(...(shown.json.items as any[]).map((i) => i.transaction_id as number));
    }
    const waiting = await server.admin("GET", `/admin/v1/payouts/waiting?firm=${firm.id}`);
    return { held, waiting: (waiting.json.waiting as any[]).map((w) => w.transaction_id as number) };
  }

  async function race(racers: Racer[]) {
    const firm = await createFirm(server);
    const made: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      made.push(...(await pendingWithdrawals(server, firm, PER_ROUND)));
      // Some ask for a part only, so batches of different sets overlap.
      const answers = await Promise.all(racers.map((r, i) => r.batch(firm, i % 2 === 1 ? 2 : undefined)));
      for (const [i, a] of answers.entries()) {
        const what = `${racers[i]?.name}: ${JSON.stringify(a.json)}`;
        expect([201, 409, 422], what).toContain(a.status);
        // Nothing left to batch, or other batchings took its withdrawals twice in a row.
        if (a.status === 422) expect(a.json.code, what).toBe("payout_batch_empty");
        if (a.status === 409) expect(a.json.code, what).toBe("payout_batch_contended");
      }
      expect(answers.some((a) => a.status === 201)).toBe(true);
    }
    const listed = await server.admin("GET", "/admin/v1/payouts/batches?limit=1000");
    const batches = (listed.json.batches as any[]).filter((b) => b.firm_id === firm.id).map((b) => b.batch);
    const { held, waiting } = await whereAll(firm, batches);
    // Each withdrawal in one batch at most, and batched or waiting, never both, never lost.
    expect(new Set(held).size).toBe(held.length);
    expect(waiting.filter((id) => held.includes(id))).toEqual([]);
    expect([...held, ...waiting].sort((a, b) => a - b)).toEqual([...made].sort((a, b) => a - b));
  }

  it("operators and admin calls batching the same withdrawals at once: each in one live attempt", async () => {
    await race([byConsole(op1), byConsole(op2), byAdmin(server, "a"), byAdmin(server, "b")]);
  });

  it.runIf(kind === "postgres")(
    "two instances on one database batching the same withdrawals at once",
    async () => {
      const other = second as TestServer;
      await race([byAdmin(server, "one"), byAdmin(other, "two"), byAdmin(other, "three"), byConsole(op1)]);
    },
  );

  it("decisions and payout marks racing a batching of the same withdrawals: each withdrawal goes one way", async () => {
    const firm = await createFirm(server);
    const decider = second ?? server;
    const tally = { batched: 0, approved: 0, rejected: 0, marked: 0 };
    type Rival = "approved" | "rejected" | "marked";
    const rivals: Rival[] = ["approved", "rejected", "marked"];
    const act = (id: number, rival: Rival) =>
      rival === "marked"
        ? op2.call("POST", `/ops/api/transactions/${id}/paying`, { paying: true })
        : decider.admin(
            "POST",
            `/admin/v1/transactions/${id}/${rival === "approved" ? "approve" : "reject"}`,
            {
              actor: "x",
            },
          );
    for (let round = 0; round < ROUNDS; round++) {
      const ids = await pendingWithdrawals(server, firm, PER_ROUND);
      const rivalOf = (i: number) => rivals[(round + i) % 3] as Rival;
      // The rivals go one after another while the batching runs: the first ones land before it
      // writes, the later ones after, and which is which is the race's.
      const [batch, answers] = await Promise.all([
        byAdmin(server, "batcher").batch(firm),
        (async () => {
          const out: { status: number; json: any }[] = [];
          for (const [i, id] of ids.entries()) out.push(await act(id, rivalOf(i)));
          return out;
        })(),
      ]);
      expect([201, 409, 422], JSON.stringify(batch.json)).toContain(batch.status);
      if (batch.status === 409) expect(batch.json.code).toBe("payout_batch_contended");
      const { held } = await whereAll(firm, batch.status === 201 ? [batch.json.batch] : []);
      for (const [i, id] of ids.entries()) {
        const answer = answers[i] as { status: number; json: any };
        const what = JSON.stringify([batch.json, answer.json]);
        if (held.includes(id)) {
          expect([answer.status, answer.json.code], what).toEqual([409, "payout_in_batch"]);
          expect(await statusOf(server, id)).toBe("pending");
          tally.batched++;
        } else {
          expect(answer.status, what).toBe(200);
          const rival = rivalOf(i);
          expect(await statusOf(server, id)).toBe(rival === "marked" ? "pending" : rival);
          tally[rival]++;
        }
      }
      // The next round starts with nothing of this firm's in a batching's way.
      if (batch.status === 201) {
        const cancel = await server.admin("POST", `/admin/v1/payouts/batches/${batch.json.batch}/cancel`, {});
        expect(cancel.status).toBe(200);
      }
      for (const id of ids) {
        if ((await statusOf(server, id)) !== "pending") continue;
        await op2.call("POST", `/ops/api/transactions/${id}/paying`, { paying: false });
        expect(
          (await server.admin("POST", `/admin/v1/transactions/${id}/reject`, { actor: "x" })).status,
        ).toBe(200);
      }
    }
    expect(tally.batched + tally.approved + tally.rejected + tally.marked).toBe(ROUNDS * PER_ROUND);
  });
  it("one operator batching twice at once under the day's rule: the second batching sees the first", async () => {
    const firm = await createFirm(server);
    const racer3 = await consoleOperator(server, "operator", "racer3");
    const set = (body: Record<string, unknown>) =>
      server.admin("PATCH", "/admin/v1/payouts/settings", { firm: firm.id, ...body });
    // Each batch alone is within the day's 300.00; two together are above it.
    expect((await set({ payouts: true, two_person_day_above: "300.00" })).status).toBe(200);
    await pendingWithdrawals(server, firm, 2, { amount: "200.00" });
    const made = await Promise.all([
      racer3.call("POST", "/ops/api/payouts/batches", { account, firm: firm.id, max_count: 1 }),
      racer3.call("POST", "/ops/api/payouts/batches", { account, firm: firm.id, max_count: 1 }),
    ]);
    expect(made.map((m) => m.status)).toEqual([201, 201]);
    expect(made.map((m) => m.json.stage).sort()).toEqual(["batched", "second_approval"]);
    expect(made.find((m) => m.json.stage === "second_approval")?.json.second_rule).toMatchObject({
      code: "operator_day",
    });
    for (const m of made) await server.admin("POST", `/admin/v1/payouts/batches/${m.json.batch}/cancel`, {});
    expect((await set({ payouts: false })).status).toBe(200);
  });

  it("two admins changing different settings of one scope at once: both changes stay", async () => {
    const firm = await createFirm(server);
    const other = second ?? server;
    for (let round = 0; round < ROUNDS; round++) {
      const amount = `${round + 1}00.00`;
      const [a, b] = await Promise.all([
        server.admin("PATCH", "/admin/v1/payouts/settings", { firm: firm.id, payouts: round % 2 === 0 }),
        other.admin("PATCH", "/admin/v1/payouts/settings", {
          firm: firm.id,
          two_person_payout_above: amount,
        }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const now = await server.admin("GET", `/admin/v1/payouts/settings?firm=${firm.id}`);
      expect([round, now.json.payouts, now.json.two_person_payout_above]).toEqual([
        round,
        round % 2 === 0,
        amount,
      ]);
    }
  });
});
