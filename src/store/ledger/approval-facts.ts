import { type Kysely, sql } from "kysely";
import type { ApprovalFacts } from "../../domain/ledger.js";
import type { Database } from "../schema.js";
import type { TransactionRow } from "../transactions/transactions.js";

interface FactsRow {
  sandbox: number;
  iban: string | null;
  percent_bp: number | null;
  fixed: number | null;
  min: number | null;
  max: number | null;
  from_at: number | null;
}

/**
 * What an approval's posting needs (domain/ledger.ts, ApprovalFacts), in one read inside the
 * decision's transaction: the firm's test flag, the IBAN the money is at (a deposit's payment
 * account; a withdrawal's paying account, when a payout paid it) and the firm's commission in force.
 */
export async function approvalFacts(
  trx: Kysely<Database>,
  decided: TransactionRow,
  at: number,
): Promise<ApprovalFacts> {
  const kind = decided.type === "deposit" ? "deposit" : "withdrawal";
  const account =
    decided.type === "deposit"
      ? sql`(SELECT iban FROM payment_accounts WHERE id = ${decided.account_id})`
      : sql`(SELECT a.iban FROM payout_attempts p JOIN payment_accounts a ON a.id = p.account_id
          WHERE p.transaction_id = ${decided.id} AND p.stage IN ('sent', 'paid') ORDER BY p.id DESC LIMIT 1)`;
  const { rows } = await sql<FactsRow>`
    SELECT f.sandbox, ${account} AS iban, c.percent_bp, c.fixed, c.min, c.max, c.from_at
    FROM firms f
    LEFT JOIN firm_commissions c ON c.id = (
      SELECT id FROM firm_commissions
      WHERE firm_id = f.id AND kind = ${kind} AND from_at <= CAST(${at} AS BIGINT)
      ORDER BY from_at DESC LIMIT 1)
    WHERE f.id = ${decided.firm_id}`.execute(trx);
  const row = rows[0];
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    sandbox: Number(row?.sandbox ?? 0) === 1,
    iban: row?.iban ?? null,
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
