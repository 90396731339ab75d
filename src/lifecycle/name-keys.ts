import { payerNameKey } from "../domain/name-search.js";
import type { TransactionRepository } from "../store/transactions.js";

/** Rows per transaction: small, because on the embedded store a transaction holds the connection. */
const BATCH = 500;

/**
 * Fills in the search key of payer names (domain/name-search.ts) on rows written before the column
 * existed, once, at start, after the migrations. Safe on several instances at once: each writes the
 * same key, and only where none is set. Returns how many rows it filled in.
 */
export async function fillPayerNameKeys(
  transactions: Pick<TransactionRepository, "withoutNameKey" | "setNameKeys">,
): Promise<number> {
  let filled = 0;
  let afterId = 0;
  for (;;) {
    const rows = await transactions.withoutNameKey(afterId, BATCH);
    if (rows.length === 0) return filled;
    await transactions.setNameKeys(
      rows.map((r) => ({ id: r.id, key: payerNameKey(r.first_name, r.middle_name, r.last_name) })),
    );
    filled += rows.length;
    afterId = rows[rows.length - 1]?.id ?? afterId;
  }
}
