import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  type Answer,
  addAccount,
  createFirm,
  depositBody,
  newNonce,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

const DEPOSITS = "/paymentapi/v1/deposits";
const WITHDRAWALS = "/paymentapi/v1/withdrawals";
const DUPLICATE = '{"success":false,"message":"Bu islem numarasi zaten kullanilmis"}';
const PENDING = '{"success":false,"message":"Halihazirda bekleyen talebiniz var"}';
const NONCE_USED = '{"success":false,"message":"Nonce already used"}';
const N = 50;

function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.status} ${a.json?.message ?? ""}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe.each(STORES)("money invariants under concurrency on %s", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind);
    await addAccount(server);
    await addAccount(server, { bank_name: "Garanti BBVA", iban: "TR320010009999901234567890" });
  });
  afterAll(() => server?.close());

  async function operatorList(f: TestFirm): Promise<any[]> {
    const res = await server.admin("GET", `/admin/v1/transactions?firm=${f.id}`);
    expect(res.status).toBe(200);
    return res.json;
  }

  describe.each([
    ["deposits", DEPOSITS, depositBody, "deposit"],
    ["withdrawals", WITHDRAWALS, withdrawalBody, "withdrawal"],
  ] as const)("%s", (_label, path, makeBody, type) => {
    it(`${N} concurrent requests with ONE reference create exactly one transaction`, async () => {
      const firm = await createFirm(server);
      const reference = `RACE-REF-${newNonce()}`;
      const bodies = Array.from({ length: N }, () => makeBody({ reference }));
      const answers = await Promise.all(bodies.map((body) => send(server, firm, { path, body })));

      const ok = answers.filter((a) => a.status === 200);
      const rest = answers.filter((a) => a.status !== 200);
      expect(ok, JSON.stringify(tally(answers))).toHaveLength(1);
      expect(ok[0]?.json.success).toBe(true);
      for (const a of rest) {
        expect(a.status).toBe(409);
        expect(a.text).toBe(DUPLICATE);
      }

      const list = await operatorList(firm);
      expect(list).toHaveLength(1);
      expect(list[0].reference).toBe(reference);
      expect(list[0].type).toBe(type);
      expect(list[0].status).toBe("pending");

      // The winner is the transaction a by-reference query returns.
      const q = await send(server, firm, {
        method: "GET",
        path: `/paymentapi/v1/transactions/by-reference/${encodeURIComponent(reference)}`,
      });
      expect(q.status).toBe(200);
      expect(q.json.data.id).toBe(list[0].id);
      const winner = bodies.filter((b) => b.user_id === q.json.data.user_id);
      expect(winner).toHaveLength(1);
    });

    it(`${N} concurrent requests for ONE user with different references leave one pending`, async () => {
      const firm = await createFirm(server);
      const userId = `race-user-${newNonce()}`;
      const bodies = Array.from({ length: N }, () => makeBody({ user_id: userId }));
      const answers = await Promise.all(bodies.map((body) => send(server, firm, { path, body })));

      const ok = answers.filter((a) => a.status === 200);
      const rest = answers.filter((a) => a.status !== 200);
      expect(ok, JSON.stringify(tally(answers))).toHaveLength(1);
      for (const a of rest) {
        expect(a.status).toBe(409);
        expect(a.text).toBe(PENDING);
      }

      const list = await operatorList(firm);
      expect(list).toHaveLength(1);
      expect(list[0].user_id).toBe(userId);
      expect(list[0].status).toBe("pending");
      expect(list[0].type).toBe(type);

      // The rejected references stay free: none of them was written.
      const rejected = bodies.map((b) => b.reference).filter((r) => r !== list[0].reference);
      expect(rejected).toHaveLength(N - 1);
      const miss = await send(server, firm, {
        method: "GET",
        path: `/paymentapi/v1/transactions/by-reference/${encodeURIComponent(rejected[0] as string)}`,
      });
      expect(miss.status).toBe(404);
    });

    it("a mixed storm (one reference, one user) still creates exactly one transaction", async () => {
      const firm = await createFirm(server);
      const reference = `RACE-MIX-${newNonce()}`;
      const userId = `race-mix-${newNonce()}`;
      const bodies = Array.from({ length: N }, (_, i) =>
        i % 2 === 0 ? makeBody({ reference }) : makeBody({ user_id: userId }),
      );
      bodies.push(makeBody({ reference, user_id: userId }));
      const answers = await Promise.all(bodies.map((body) => send(server, firm, { path, body })));
      const okCount = answers.filter((a) => a.status === 200).length;
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).toBe(409);
        expect([DUPLICATE, PENDING]).toContain(a.text);
      }
      const list = await operatorList(firm);
      expect(list).toHaveLength(okCount);
      expect(list.filter((t) => t.reference === reference)).toHaveLength(1);
      expect(list.filter((t) => t.user_id === userId && t.status === "pending").length).toBeLessThanOrEqual(
        1,
      );
    });
  });

  it("a deposit and a withdrawal for one user may both be pending, raced together", async () => {
    const firm = await createFirm(server);
    const userId = `race-both-${newNonce()}`;
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () =>
        send(server, firm, { path: DEPOSITS, body: depositBody({ user_id: userId }) }),
      ),
      ...Array.from({ length: 10 }, () =>
        send(server, firm, { path: WITHDRAWALS, body: withdrawalBody({ user_id: userId }) }),
      ),
    ]);
    expect(
      answers.filter((a) => a.status === 200),
      JSON.stringify(tally(answers)),
    ).toHaveLength(2);
    const list = await operatorList(firm);
    expect(list.map((t) => t.type).sort()).toEqual(["deposit", "withdrawal"]);
  });

  it("50 concurrent requests reusing ONE nonce: exactly one accepted, the rest 401 Nonce already used", async () => {
    const firm = await createFirm(server);
    const nonce = newNonce();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => send(server, firm, { path: DEPOSITS, body: depositBody(), nonce })),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok, JSON.stringify(tally(answers))).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(401);
      expect(a.text).toBe(NONCE_USED);
    }
    expect(await operatorList(firm)).toHaveLength(1);
  });

  it("a nonce is used up across endpoints: one nonce on deposits, withdrawals and queries at once", async () => {
    const firm = await createFirm(server);
    const nonce = newNonce();
    const answers = await Promise.all([
      ...Array.from({ length: 7 }, () => send(server, firm, { path: DEPOSITS, body: depositBody(), nonce })),
      ...Array.from({ length: 7 }, () =>
        send(server, firm, { path: WITHDRAWALS, body: withdrawalBody(), nonce }),
      ),
      ...Array.from({ length: 6 }, () =>
        send(server, firm, { method: "GET", path: "/paymentapi/v1/transactions/1", nonce }),
      ),
    ]);
    const accepted = answers.filter((a) => a.status !== 401);
    expect(accepted, JSON.stringify(tally(answers))).toHaveLength(1);
    for (const a of answers.filter((x) => x.status === 401)) expect(a.text).toBe(NONCE_USED);
  });

  it("the same nonce is independent per firm", async () => {
    const a = await createFirm(server);
    const b = await createFirm(server);
    const nonce = newNonce();
    const [ra, rb] = await Promise.all([
      send(server, a, { path: DEPOSITS, body: depositBody(), nonce }),
      send(server, b, { path: DEPOSITS, body: depositBody(), nonce }),
    ]);
    expect(ra?.status).toBe(200);
    expect(rb?.status).toBe(200);
  });

  it("after a rejected duplicate, a by-reference query still returns the original transaction", async () => {
    const firm = await createFirm(server);
    const original = depositBody({ amount: "150.00" });
    const first = await send(server, firm, { path: DEPOSITS, body: original });
    expect(first.status).toBe(200);
    const byRef = `/paymentapi/v1/transactions/by-reference/${encodeURIComponent(original.reference as string)}`;
    const before = await send(server, firm, { method: "GET", path: byRef });
    expect(before.status).toBe(200);

    const dupDeposit = await send(server, firm, {
      path: DEPOSITS,
      body: depositBody({ reference: original.reference, amount: "999.99", first_name: "Başka" }),
    });
    expect(dupDeposit.status).toBe(409);
    expect(dupDeposit.text).toBe(DUPLICATE);
    const dupWithdrawal = await send(server, firm, {
      path: WITHDRAWALS,
      body: withdrawalBody({ reference: original.reference }),
    });
    expect(dupWithdrawal.text).toBe(DUPLICATE);

    const after = await send(server, firm, { method: "GET", path: byRef });
    expect(after.status).toBe(200);
    expect(after.text).toBe(before.text);
    expect(after.json.data.user_id).toBe(original.user_id);
    expect(after.text).toContain('"amount":150.00,');
    expect(after.json.data.first_name).toBe("Ayşe");
    expect(await operatorList(firm)).toHaveLength(1);
  });

  it("after a concurrent duplicate storm, the by-reference answer matches the one success", async () => {
    const firm = await createFirm(server);
    const reference = `RACE-Q-${newNonce()}`;
    const bodies = Array.from({ length: 20 }, (_, i) => depositBody({ reference, amount: `${i + 1}.00` }));
    const answers = await Promise.all(bodies.map((body) => send(server, firm, { path: DEPOSITS, body })));
    const winnerIndex = answers.findIndex((a) => a.status === 200);
    expect(winnerIndex).toBeGreaterThanOrEqual(0);
    const q = await send(server, firm, {
      method: "GET",
      path: `/paymentapi/v1/transactions/by-reference/${encodeURIComponent(reference)}`,
    });
    expect(q.status).toBe(200);
    expect(q.json.data.user_id).toBe(bodies[winnerIndex]?.user_id);
    expect(q.text).toContain(`"amount":${winnerIndex + 1}.00,`);
    expect(q.json.data.assigned_iban).toBe(answers[winnerIndex]?.json.assigned_iban);
  });
});
