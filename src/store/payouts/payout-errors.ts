/**
 * The payout rules' refusals as the database gives them (migration 20261206T1000): a trigger's
 * ABORT on SQLite, a CHECK violation naming the rule on PostgreSQL, a unique index either way.
 */
export type PayoutViolation =
  | "payout_in_batch"
  | "payout_attempt_refused"
  | "payout_attempt_fixed"
  | "one_live";

const RULES = ["payout_in_batch", "payout_attempt_refused", "payout_attempt_fixed"] as const;

export function payoutViolation(err: unknown): PayoutViolation | null {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (e?.code === "23514") return RULES.find((r) => r === e.constraint) ?? null;
  if (e?.code === "SQLITE_CONSTRAINT_TRIGGER")
    return RULES.find((r) => (e.message ?? "").includes(r)) ?? null;
  if (e?.code === "23505") return e.constraint === "payout_attempts_one_live_uq" ? "one_live" : null;
  if (e?.code === "SQLITE_CONSTRAINT_UNIQUE")
    return (e.message ?? "").includes("payout_attempts.transaction_id") ? "one_live" : null;
  return null;
}

/** Two batchings that locked the same withdrawals in another order (PostgreSQL): one is undone. */
export function deadlock(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === "40P01";
}
