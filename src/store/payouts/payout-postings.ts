/**
 * A payout's stages in the ledger, posted by the store in the stage's own database transaction,
 * whoever moves it (docs/payouts.md, "The stages in the ledger"): sent (`payout-sent:<attemptId>`)
 * when its batch is marked sent or released to a channel; back (`payout-returned:<attemptId>`) when
 * the payee's bank returns it or a channel refuses it. The rules are domain/payout-postings.ts's;
 * paid is the withdrawal's approval (ledger/approval-posting.ts). A test firm's payouts post
 * nothing. The moves are conditional (`WHERE stage = …`), and each key is the attempt's: a stage is
 * posted once.
 */
import { sql, type Transaction } from "kysely";
import { payoutReturned, payoutSent } from "../../domain/payout-postings.js";
import { post } from "../ledger/ledger.js";
import type { Database } from "../schema.js";

export interface SentAttempt {
  id: number;
  firm_id: number;
  amount: number | string;
}

/** Test firms among these: their money is not real. */
async function testFirms(trx: Transaction<Database>, firmIds: readonly number[]): Promise<Set<number>> {
  if (firmIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom("firms")
    .select("id")
    .where("id", "in", [...new Set(firmIds)])
    .where("sandbox", "=", 1)
    .execute();
  return new Set(rows.map((r) => Number(r.id)));
}

/** The attempts just sent: each firm's money leaves its balance into transit. */
export async function postSent(
  trx: Transaction<Database>,
  attempts: readonly SentAttempt[],
  actor: string,
  now: number,
): Promise<void> {
  const tests = await testFirms(
    trx,
    attempts.map((a) => Number(a.firm_id)),
  );
  for (const a of attempts) {
    if (tests.has(Number(a.firm_id))) continue;
    await post(
      trx,
      payoutSent({
        attemptId: Number(a.id),
        firmId: Number(a.firm_id),
        amount: Number(a.amount),
        at: now,
        actor,
      }),
    );
  }
}

interface EntryRow {
  posting: string;
  account: string;
  amount: number | string;
}

/**
 * An attempt come back (returned, or refused by a channel), posted from where the ledger holds its
 * money: out of the bank account a payment posted it from, with the commission that payment took;
 * else out of transit, where its sending (or a payment from an account the ledger cannot name) put
 * it; else nowhere (sent before sending posted, or a test firm's): nothing posts.
 */
export async function postReturn(
  trx: Transaction<Database>,
  r: { attemptId: number; reason: string | null; actor: string; now: number },
): Promise<void> {
  const attempt = await trx
    .selectFrom("payout_attempts as a")
    .innerJoin("firms as f", "f.id", "a.firm_id")
    .select(["a.firm_id", "a.transaction_id", "a.amount", "f.sandbox"])
    .where("a.id", "=", r.attemptId)
    .executeTakeFirst();
  if (!attempt || Number(attempt.sandbox) === 1) return;
  const sentKey = `payout-sent:${r.attemptId}`;
  const paidKeys = [`payout-paid:${r.attemptId}`, `withdrawal-paid:${attempt.transaction_id}`];
  const { rows } = await sql<EntryRow>`
    SELECT p.idempotency_key AS posting, a.key AS account, e.amount
    FROM ledger_postings p
    JOIN ledger_entries e ON e.posting_id = p.id
    JOIN ledger_accounts a ON a.id = e.account_id
    WHERE p.idempotency_key IN (${sql.join([sentKey, ...paidKeys])})`.execute(trx);
  const paidKey = paidKeys.find((k) => rows.some((e) => e.posting === k));
  const paid = rows.filter((e) => e.posting === paidKey);
  const cash = paid.find((e) => e.account.startsWith("cash:") && Number(e.amount) < 0);
  const inTransit =
    rows.some((e) => e.posting === sentKey) ||
    paid.some((e) => e.account.startsWith("in_transit:") && Number(e.amount) < 0);
  if (!cash && !inTransit) return;
  const commission = paid.find((e) => e.account === "commission" && Number(e.amount) < 0);
  await post(
    trx,
    payoutReturned({
      attemptId: r.attemptId,
      firmId: Number(attempt.firm_id),
      amount: Number(attempt.amount),
      reason: r.reason ?? "returned",
      paid: cash
        ? { iban: cash.account.slice("cash:".length), commission: -Number(commission?.amount ?? 0) }
        : null,
      at: r.now,
      actor: r.actor,
    }),
  );
}
