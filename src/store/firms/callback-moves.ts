import type { Kysely } from "kysely";
import { type AuditEntry, writeAudit } from "../audited.js";
import type { Database } from "../schema.js";

/** What still goes to a firm's earlier webhook: the counts of each kind. */
export interface KeptCallbacks {
  /** Pending transactions (their callback, when decided, goes to the URL they were made with). */
  transactions: number;
  /** Callbacks queued and not yet delivered or given up. */
  callbacks: number;
  /** Open payment pages (the deposit they make takes the page's URL). */
  sessions: number;
}

/**
 * A firm's webhook changed: what was made before keeps its callback URL (docs/callbacks.md). These
 * count what still goes to the earlier webhook, and move it to the new one on an operator's word,
 * audited. Only what goes to that URL moves: a transaction's own X-Callback-URL, or its provider's
 * URL, was chosen for it and stays.
 */
export function createCallbackMoves(db: Kysely<Database>) {
  const counts = async (q: Kysely<Database>, firmId: number, url: string): Promise<KeptCallbacks> => {
    const [t, c, s] = await Promise.all([
      q
        .selectFrom("transactions")
        .select((e) => e.fn.countAll<number>().as("n"))
        .where("firm_id", "=", firmId)
        .where("status", "=", "pending")
        .where("callback_url", "=", url)
        .executeTakeFirst(),
      q
        .selectFrom("callbacks")
        .select((e) => e.fn.countAll<number>().as("n"))
        .where("firm_id", "=", firmId)
        .where("status", "=", "pending")
        .where("url", "=", url)
        .executeTakeFirst(),
      q
        .selectFrom("payment_sessions")
        .select((e) => e.fn.countAll<number>().as("n"))
        .where("firm_id", "=", firmId)
        .where("status", "=", "open")
        .where("callback_url", "=", url)
        .executeTakeFirst(),
    ]);
    return { transactions: Number(t?.n ?? 0), callbacks: Number(c?.n ?? 0), sessions: Number(s?.n ?? 0) };
  };
  return {
    keptAt: (firmId: number, url: string) => counts(db, firmId, url),

    /** Moves them from `from` to `url` (its origin given), with one audit entry naming how many moved. */
    move(
      firmId: number,
      from: string,
      url: string,
      origin: string,
      audit: AuditEntry,
    ): Promise<KeptCallbacks> {
      return db.transaction().execute(async (trx) => {
        const t = await trx
          .updateTable("transactions")
          .set({ callback_url: url, updated_at: audit.at })
          .where("firm_id", "=", firmId)
          .where("status", "=", "pending")
          .where("callback_url", "=", from)
          .executeTakeFirst();
        const c = await trx
          .updateTable("callbacks")
          .set({ url, origin, updated_at: audit.at })
          .where("firm_id", "=", firmId)
          .where("status", "=", "pending")
          .where("url", "=", from)
          .executeTakeFirst();
        const s = await trx
          .updateTable("payment_sessions")
          .set({ callback_url: url, updated_at: audit.at })
          .where("firm_id", "=", firmId)
          .where("status", "=", "open")
          .where("callback_url", "=", from)
          .executeTakeFirst();
        const moved = {
          transactions: Number(t.numUpdatedRows),
          callbacks: Number(c.numUpdatedRows),
          sessions: Number(s.numUpdatedRows),
        };
        await writeAudit(
          trx,
          audit,
          "firm",
          String(firmId),
          { callback_url: from },
          { callback_url: url, moved },
        );
        return moved;
      });
    },
  };
}

export type CallbackMoves = ReturnType<typeof createCallbackMoves>;
