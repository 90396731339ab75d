/**
 * A refund paid out: a debit on a bank account's statement sends a payer back the money of a credit
 * marked not ours (docs/ledger.md, "A refund paid"). The debit names the credit, and the refund's
 * posting takes the money out of refunds due and the account's cash, in one database transaction;
 * the unique index on `refund_of` refunds a credit once, and only a debit no one has taken moves.
 */
import type { Kysely, Selectable, Transaction } from "kysely";
import type { PostingDraft } from "../../domain/ledger.js";
import { writeAudit } from "../audited.js";
import { uniqueViolation } from "../engine/errors.js";
import { post } from "../ledger/ledger.js";
import type { Database, StatementLineTable } from "../schema.js";

/** The refund's posting, given the credit refunded, the paying account's IBAN and the amount. */
export type RefundPaid = (refund: { lineId: number; iban: string; amount: number }) => PostingDraft | null;

export type RefundOutcome =
  | { ok: true; postingId: number; amount: number }
  | {
      ok: false;
      reason:
        | "debit_not_found"
        | "not_a_debit"
        | "debit_taken"
        | "credit_not_found"
        | "not_due"
        | "amount_differs"
        | "currency"
        | "refunded_already"
        | "no_cash_account";
    };

class Refused extends Error {
  constructor(readonly reason: Extract<RefundOutcome, { ok: false }>["reason"]) {
    super(reason);
  }
}

/** The debit `debitId` pays back the credit `creditId`, audited; or why it cannot. */
export async function payRefund(
  db: Kysely<Database>,
  ids: { debitId: number; creditId: number },
  audit: { actor: string; at: number; note: string | null },
  refundPaid: RefundPaid,
): Promise<RefundOutcome> {
  try {
    return await db.transaction().execute(async (trx) => {
      const debit = await lineWithIban(trx, ids.debitId);
      if (!debit) throw new Refused("debit_not_found");
      if (debit.direction !== "debit") throw new Refused("not_a_debit");
      const credit = await lineWithIban(trx, ids.creditId);
      if (!credit) throw new Refused("credit_not_found");
      // Owed back only when marked not ours with its money held by the ledger (refund-due posted).
      if (credit.direction !== "credit" || credit.state !== "not_ours" || credit.held_posting_id === null)
        throw new Refused("not_due");
      // The ledger is in lira: money in another currency is to look into, never a lira amount.
      if (debit.currency !== "TRY" || credit.currency !== "TRY") throw new Refused("currency");
      if (Number(debit.amount) !== Number(credit.amount)) throw new Refused("amount_differs");
      const draft = refundPaid({ lineId: ids.creditId, iban: debit.iban, amount: Number(debit.amount) });
      if (draft === null) throw new Refused("no_cash_account");
      // A debit a payout, a fee or another refund took, or one a concurrent refund takes now, stays.
      const taken = await trx
        .updateTable("statement_lines")
        .set({ refund_of: ids.creditId })
        .where("id", "=", ids.debitId)
        .where("held_posting_id", "is", null)
        .where("refund_of", "is", null)
        .where((eb) => eb.or([eb("payout_outcome", "is", null), eb("payout_outcome", "=", "unmatched")]))
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) throw new Refused("debit_taken");
      const { posting, replayed } = await post(trx, draft);
      if (replayed) throw new Refused("refunded_already");
      await trx
        .updateTable("statement_lines")
        .set({ held_posting_id: posting.id })
        .where("id", "=", ids.debitId)
        .execute();
      await writeAudit(
        trx,
        { actor: audit.actor, action: "statement_line.refund_paid", at: audit.at },
        "statement_line",
        String(ids.debitId),
        { refund_of: null },
        { refund_of: ids.creditId, posting: posting.id, note: audit.note },
      );
      return { ok: true as const, postingId: posting.id, amount: Number(debit.amount) };
    });
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: err.reason };
    // Another debit refunded the same credit between the checks and the write.
    if (uniqueViolation(err) !== null) return { ok: false, reason: "refunded_already" };
    throw err;
  }
}

function lineWithIban(trx: Transaction<Database>, id: number) {
  return trx
    .selectFrom("statement_lines as l")
    .innerJoin("payment_accounts as a", "a.id", "l.account_id")
    .select(["l.direction", "l.state", "l.amount", "l.currency", "l.held_posting_id", "a.iban"])
    .where("l.id", "=", id)
    .executeTakeFirst();
}

/** How many credits owed back of one amount a debit's detail reads, newest first, to rank. */
const REFUND_CANDIDATES = 50;

/**
 * The credits a free debit may pay back: marked not ours, their money held, not refunded yet, of the
 * debit's amount in lira; newest first (reconciliation/line-views.ts ranks them). Read through
 * their own index (migration 20261210T1000_refund_lines), not the whole statement_lines table.
 */
export function refundCandidates(
  db: Kysely<Database>,
  debit: Selectable<StatementLineTable>,
): Promise<Selectable<StatementLineTable>[]> {
  if (debit.direction !== "debit" || debit.currency !== "TRY") return Promise.resolve([]);
  return db
    .selectFrom("statement_lines as c")
    .selectAll("c")
    .where("c.direction", "=", "credit")
    .where("c.state", "=", "not_ours")
    .where("c.held_posting_id", "is not", null)
    .where("c.amount", "=", debit.amount)
    .where("c.currency", "=", "TRY")
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("statement_lines as d").select("d.id").whereRef("d.refund_of", "=", "c.id"))),
    )
    .orderBy("c.booked_at", "desc")
    .orderBy("c.id", "desc")
    .limit(REFUND_CANDIDATES)
    .execute();
}

/** The debit that paid back this credit, if one did. */
export async function refundingDebit(db: Kysely<Database>, creditId: number): Promise<number | null> {
  const row = await db
    .selectFrom("statement_lines")
    .select("id")
    .where("refund_of", "=", creditId)
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}
