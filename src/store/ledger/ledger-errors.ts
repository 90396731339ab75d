/**
 * The ledger's refusals as the database words them (migration 20261206T1200_ledger): PostgreSQL
 * raises a CHECK violation naming the rule as its constraint, SQLite a trigger's ABORT or a named
 * CHECK whose text begins with it. Each names one rule: `ledger_posting_unbalanced`,
 * `ledger_posting_too_few_entries`, `ledger_entry_amount`, `ledger_entry_try_only`,
 * `ledger_immutable`, `ledger_entry_outside_posting`, `ledger_correction_unknown`,
 * `ledger_account_key`, `ledger_posting_lines`.
 */
export function ledgerViolation(err: unknown): string | null {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (e?.code === "23514" && e.constraint?.startsWith("ledger_")) return e.constraint;
  if (e?.code === "23503" && e.constraint === "ledger_postings_corrects_fkey")
    return "ledger_correction_unknown";
  if (e?.code?.startsWith("SQLITE_CONSTRAINT"))
    return /\b(ledger_[a-z_]+)/.exec(e.message ?? "")?.[1] ?? null;
  return null;
}

/**
 * A posting the ledger cannot take: a bug in the rule that made it, never an outcome a caller
 * expects (the posting rules make only balanced postings), so it is thrown, and the caller's
 * database transaction, the event's with it, rolls back whole.
 */
export class LedgerPostingError extends Error {
  constructor(
    readonly rule: string,
    readonly postingKey: string,
  ) {
    super(`ledger: posting ${postingKey} refused (${rule})`);
    this.name = "LedgerPostingError";
  }
}
