import type { MerchantFigures } from "./actors.js";
import type { Bank } from "./bank.js";
import type { World } from "./world.js";

/**
 * What must hold after the payouts chaos run has settled, read with SQL, the simulators' books,
 * the bank's ledger and the merchant's receiver. Each check is a list of offenders (empty when it
 * holds), so the summary says which withdrawal broke what.
 */
const OPEN = ["second_approval", "batched", "sent"];

interface WithdrawalRow {
  id: number;
  reference: string;
  status: string;
  amount: string;
}
interface AttemptRow {
  id: number;
  transaction_id: number;
  batch_id: number;
  account_id: number;
  payment_id: string;
  amount: string;
  stage: string;
  flag: string | null;
}

export interface Checks {
  /** Withdrawals with two paid attempts (the database forbids it). */
  paidTwiceInDatabase: number[];
  /** Withdrawals with two attempts queued, sent or paid (the database forbids it). */
  twoLive: number[];
  /** Withdrawals whose money left twice by the bank's and the channels' books (net of returns). */
  paidTwiceByMoney: number[];
  /** Payment ids a channel received more than once (a payout sent again). */
  sentAgainToChannel: string[];
  /** Payment ids a channel paid that the database does not know for that amount. */
  channelPaidUnknown: string[];
  approvedWithoutPaidAttempt: number[];
  paidAttemptNotApproved: number[];
  /** Approved withdrawals whose money is not out (net), and that carry no returned_after_paid flag. */
  approvedMoneyNotOut: number[];
  /** Pending or rejected withdrawals whose money is out and not proven. */
  moneyOutNotApproved: number[];
  decidedWithOpenAttempt: number[];
  decidedCallbacksNotOne: number[];
  pendingWithCallback: number[];
  callbacksNotDelivered: number[];
  /** Withdrawals answered 200 to the merchant and not in the database. */
  lost: string[];
  /** Batches whose stage disagrees with their payouts'. */
  batchStageMismatch: number[];
}

export interface Census {
  withdrawals: number;
  byState: Record<string, number>;
  attemptsByStage: Record<string, number>;
  batchesByStage: Record<string, number>;
  flags: Record<string, number>;
  /** Sent channel payouts the channel never got (a release killed before it sent them). */
  sentNeverReachedChannel: number;
  /** double_payment flags on payouts a channel paid and the statement then showed. */
  doublePaymentOnChannelPaid: number;
  callbacksDelivered: number;
  receiverDeliveries: number;
}

const tally = (values: string[]) =>
  values.reduce<Record<string, number>>((t, v) => {
    t[v] = (t[v] ?? 0) + 1;
    return t;
  }, {});

function groupBy<T>(rows: T[], key: (r: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) out.set(key(r), [...(out.get(key(r)) ?? []), r]);
  return out;
}

export async function check(
  world: World,
  bank: Bank,
  m: MerchantFigures,
): Promise<{ checks: Checks; census: Census }> {
  const db = world.db;
  const withdrawals = (
    await db.query<WithdrawalRow>(
      "SELECT id::int, reference, status, amount::text FROM transactions WHERE type = 'withdrawal' AND firm_id = $1",
      [world.firm.id],
    )
  ).rows;
  const attempts = (
    await db.query<AttemptRow>(
      `SELECT id::int, transaction_id::int, batch_id::int, account_id::int, payment_id, amount::text, stage, flag
       FROM payout_attempts ORDER BY id`,
    )
  ).rows;
  const batches = (await db.query<{ id: number; stage: string }>("SELECT id::int, stage FROM payout_batches"))
    .rows;
  const callbacks = (
    await db.query<{ transaction_id: number; status: string; n: number }>(
      "SELECT transaction_id::int, min(status) AS status, count(*)::int AS n FROM callbacks GROUP BY transaction_id",
    )
  ).rows;
  const cbOf = new Map(callbacks.map((c) => [c.transaction_id, c]));
  const attemptsOf = groupBy(attempts, (a) => a.transaction_id);
  const sims = [world.accounts.channelApproves, world.accounts.channelStatement];
  const channelIds = new Set(sims.map((s) => s.id));
  const simPayout = (pid: string) => sims.map((s) => s.sim.payouts.get(pid)).find((p) => p !== undefined);
  bank.ledgerFromSimulators();

  const checks: Checks = {
    paidTwiceInDatabase: [],
    twoLive: [],
    paidTwiceByMoney: [],
    sentAgainToChannel: [],
    channelPaidUnknown: [],
    approvedWithoutPaidAttempt: [],
    paidAttemptNotApproved: [],
    approvedMoneyNotOut: [],
    moneyOutNotApproved: [],
    decidedWithOpenAttempt: [],
    decidedCallbacksNotOne: [],
    pendingWithCallback: [],
    callbacksNotDelivered: [],
    lost: [],
    batchStageMismatch: [],
  };
  const states: string[] = [];
  for (const w of withdrawals) {
    const mine = attemptsOf.get(w.id) ?? [];
    const paid = mine.filter((a) => a.stage === "paid");
    const open = mine.filter((a) => OPEN.includes(a.stage));
    const out = mine.reduce((s, a) => s + (bank.out.get(a.payment_id) ?? 0), 0);
    const cb = cbOf.get(w.id);
    if (paid.length > 1) checks.paidTwiceInDatabase.push(w.id);
    if (paid.length + open.length > 1) checks.twoLive.push(w.id);
    if (out > 1) checks.paidTwiceByMoney.push(w.id);
    if (w.status === "pending") {
      states.push(open.length === 0 ? "waiting" : `pending:${(open[0] as AttemptRow).stage}`);
      if (paid.length > 0) checks.paidAttemptNotApproved.push(w.id);
      if (cb) checks.pendingWithCallback.push(w.id);
      // Money out on a sent payout is not yet proven; on an ended one it should have been.
      const ended = mine.filter((a) => !OPEN.includes(a.stage));
      if (ended.some((a) => (bank.out.get(a.payment_id) ?? 0) > 0)) checks.moneyOutNotApproved.push(w.id);
      continue;
    }
    states.push(w.status);
    if (open.length > 0) checks.decidedWithOpenAttempt.push(w.id);
    if (cb?.n !== 1) checks.decidedCallbacksNotOne.push(w.id);
    else if (cb.status !== "delivered") checks.callbacksNotDelivered.push(w.id);
    if (w.status === "approved") {
      if (paid.length !== 1) checks.approvedWithoutPaidAttempt.push(w.id);
      if (out !== 1 && !paid.some((a) => a.flag === "returned_after_paid"))
        checks.approvedMoneyNotOut.push(w.id);
    } else if (out > 0) checks.moneyOutNotApproved.push(w.id);
  }
  const known = new Map(attempts.map((a) => [a.payment_id, a]));
  for (const s of sims)
    for (const [pid, p] of s.sim.payouts) {
      if (p.sends > 1) checks.sentAgainToChannel.push(pid);
      const a = known.get(pid);
      if (!a || a.account_id !== s.id || Math.round(Number(a.amount)) !== p.amountMinor)
        checks.channelPaidUnknown.push(pid);
    }
  const present = new Set(withdrawals.map((w) => w.reference));
  checks.lost = [...m.accepted.keys()].filter((r) => !present.has(r));
  const ofBatch = groupBy(attempts, (a) => a.batch_id);
  for (const b of batches) {
    const stages = new Set((ofBatch.get(b.id) ?? []).map((a) => a.stage));
    const fits =
      b.stage === "closed"
        ? [...stages].every((s) => !OPEN.includes(s))
        : b.stage === "cancelled"
          ? [...stages].every((s) => s === "cancelled")
          : b.stage === "sent"
            ? stages.has("sent") && !stages.has("batched") && !stages.has("cancelled")
            : stages.size === 1 && stages.has(b.stage);
    if (!fits) checks.batchStageMismatch.push(b.id);
  }
  const stuck = attempts.filter(
    (a) => a.stage === "sent" && channelIds.has(a.account_id) && simPayout(a.payment_id) === undefined,
  );
  const census: Census = {
    withdrawals: withdrawals.length,
    byState: tally(states),
    attemptsByStage: tally(attempts.map((a) => a.stage)),
    batchesByStage: tally(batches.map((b) => b.stage)),
    flags: tally(attempts.flatMap((a) => (a.flag ? [a.flag] : []))),
    sentNeverReachedChannel: stuck.length,
    doublePaymentOnChannelPaid: attempts.filter(
      (a) =>
        a.flag === "double_payment" &&
        channelIds.has(a.account_id) &&
        (bank.out.get(a.payment_id) ?? 0) === 1,
    ).length,
    callbacksDelivered: callbacks.filter((c) => c.status === "delivered").length,
    receiverDeliveries: world.receiver.received.length,
  };
  return { checks, census };
}

export function holds(checks: Checks): boolean {
  return Object.values(checks).every((list) => list.length === 0);
}
