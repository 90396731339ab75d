/**
 * Which unique index a failed insert ran into. SQLite names the columns in its message, PostgreSQL
 * names the index, so both are checked.
 */
export type UniqueViolation = "reference" | "one_pending" | "other";

export function uniqueViolation(err: unknown): UniqueViolation | null {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e?.code === "23505") {
    if (e.constraint === "transactions_reference_uq") return "reference";
    if (e.constraint === "transactions_one_pending_uq") return "one_pending";
    return "other";
  }
  if (e?.code === "SQLITE_CONSTRAINT_UNIQUE" || e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    const msg = e.message ?? "";
    if (msg.includes("transactions.reference")) return "reference";
    if (msg.includes("transactions.user_id")) return "one_pending";
    return "other";
  }
  return null;
}

/** A CHECK constraint refused the row (both stores). */
export function checkViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === "23514" || code === "SQLITE_CONSTRAINT_CHECK";
}
