import { type Kysely, sql } from "kysely";
import type { ApprovalFacts } from "../../domain/ledger.js";
import type { Database } from "../schema.js";
import type { TransactionRow } from "../transactions/transactions.js";

/**
 * An approval's facts (domain/ledger.ts, ApprovalFacts) and, for a withdrawal a payout paid, that
 * payout: its attempt, and whether its sending posted (`payout-sent:<attemptId>`), in which case
 * the firm's money left its balance then and the approval only moves it out of transit.
 */
export interface ApprovalPostingFacts extends ApprovalFacts {
  payout: { attemptId: number; sentPosted: boolean } | null;
}

interface FactsRow {
  sandbox: number;
  iban: string | null;
  attempt_id: number | string | null;
  sent_posting: number | string | null;
  percent_bp: number | null;
  fixed: number | null;
  min: number | null;
  max: number | null;
  from_at: number | null;
}

/**
 * What an approval's posting needs, in one read inside the decision's transaction: the firm's test
 * flag, the IBAN the money is at (a deposit's payment account; a withdrawal's paying account, when
 * a payout paid it, with that payout's attempt and its sent posting) and the firm's commission in
 * force.
 */
export async function approvalFacts(
  trx: Kysely<Database>,
  decided: TransactionRow,
  at: number,
): Promise<ApprovalPostingFacts> {
  const kind = decided.type === "deposit" ? "deposit" : "withdrawal";
  const money =
    decided.type === "deposit"
      ? sql`LEFT JOIN payment_accounts pa ON pa.id = ${decided.account_id}
          LEFT JOIN payout_attempts p ON 1 = 0
          LEFT JOIN ledger_postings lp ON 1 = 0`
      : sql`LEFT JOIN payout_attempts p ON p.id = (SELECT id FROM payout_attempts
            WHERE transaction_id = ${decided.id} AND stage IN ('sent', 'paid') ORDER BY id DESC LIMIT 1)
          LEFT JOIN payment_accounts pa ON pa.id = p.account_id
          LEFT JOIN ledger_postings lp ON lp.idempotency_key = 'payout-sent:' || CAST(p.id AS TEXT)`;
  const { rows } = await sql<FactsRow>`
    SELECT f.sandbox, pa.iban, p.id AS attempt_id, lp.id AS sent_posting,
      c.percent_bp, c.fixed, c.min, c.max, c.from_at
    FROM firms f
    ${money}
    LEFT JOIN firm_commissions c ON c.id = (
      SELECT id FROM firm_commissions
      WHERE firm_id = f.id AND kind = ${kind} AND from_at <= CAST(${at} AS BIGINT)
      ORDER BY from_at DESC LIMIT 1)
    WHERE f.id = ${decided.firm_id}`.execute(trx);
  const row = rows[0];
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const attemptId = n(row?.attempt_id);
  return {
    sandbox: Number(row?.sandbox ?? 0) === 1,
    iban: row?.iban ?? null,
    payout: attemptId === null ? null : { attemptId, sentPosted: n(row?.sent_posting) !== null },
    schedule:
      row === undefined || row.percent_bp === null
        ? undefined
        : {
            firmId: Number(decided.firm_id),
            kind,
            percentBp: Number(row.percent_bp),
            fixed: Number(row.fixed),
            min: n(row.min),
            max: n(row.max),
            fromAt: Number(row.from_at),
          },
  };
}
