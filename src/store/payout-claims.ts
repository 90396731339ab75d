import type { Kysely } from "kysely";
import { writeAudit } from "./audited.js";
import type { Database } from "./schema.js";

/**
 * Who is paying out which pending withdrawal (console: the operator who copies a payout's fields
 * into the bank's form). Two operators working one queue would otherwise both send the same money:
 * the server refuses the second approval (409), but only after the second transfer left the bank.
 *
 * A claim is taken by one `INSERT … ON CONFLICT DO NOTHING`: of two operators claiming at the same
 * moment, also through two instances, one gets it and the other is told whose it is. Taking and
 * letting go of a claim are audited (`transaction.paying`, `transaction.paying_released`): after a
 * payout was sent twice, the log says who said they were paying it, and when.
 */
export type ClaimOutcome =
  | { ok: true; claimedAt: number; fresh: boolean }
  | { ok: false; reason: "not_pending_withdrawal" }
  | { ok: false; reason: "claimed"; operator: string; claimedAt: number };

export interface PayoutClaimRepository {
  claim(transactionId: number, operator: string, at: number, actor: string): Promise<ClaimOutcome>;
  /** Lets go of the claim, whoever holds it; false when there was none. */
  release(transactionId: number, at: number, actor: string): Promise<boolean>;
  /** The claims on these transactions. */
  of(transactionIds: readonly number[]): Promise<Map<number, { operator: string; claimedAt: number }>>;
}

export function createPayoutClaimRepository(db: Kysely<Database>): PayoutClaimRepository {
  return {
    claim(transactionId, operator, at, actor) {
      return db.transaction().execute(async (trx): Promise<ClaimOutcome> => {
        const tx = await trx
          .selectFrom("transactions")
          .select(["type", "status"])
          .where("id", "=", transactionId)
          .executeTakeFirst();
        if (tx?.type !== "withdrawal" || tx.status !== "pending")
          return { ok: false, reason: "not_pending_withdrawal" };
        const taken = await trx
          .insertInto("payout_claims")
          .values({ transaction_id: transactionId, operator, claimed_at: at })
          .onConflict((oc) => oc.column("transaction_id").doNothing())
          .returning("claimed_at")
          .executeTakeFirst();
        if (taken) {
          await writeAudit(
            trx,
            { actor, action: "transaction.paying", at },
            "transaction",
            String(transactionId),
            null,
            {
              paying: operator,
            },
          );
          return { ok: true, claimedAt: at, fresh: true };
        }
        const held = await trx
          .selectFrom("payout_claims")
          .select(["operator", "claimed_at"])
          .where("transaction_id", "=", transactionId)
          .executeTakeFirst();
        // Let go of between the insert and this read: the caller may simply claim again.
        if (!held) return { ok: false, reason: "claimed", operator: "", claimedAt: at };
        if (held.operator === operator) return { ok: true, claimedAt: held.claimed_at, fresh: false };
        return { ok: false, reason: "claimed", operator: held.operator, claimedAt: held.claimed_at };
      });
    },

    release(transactionId, at, actor) {
      return db.transaction().execute(async (trx) => {
        const gone = await trx
          .deleteFrom("payout_claims")
          .where("transaction_id", "=", transactionId)
          .returning("operator")
          .executeTakeFirst();
        if (!gone) return false;
        await writeAudit(
          trx,
          { actor, action: "transaction.paying_released", at },
          "transaction",
          String(transactionId),
          { paying: gone.operator },
          null,
        );
        return true;
      });
    },

    async of(transactionIds) {
      if (transactionIds.length === 0) return new Map();
      const rows = await db
        .selectFrom("payout_claims")
        .select(["transaction_id", "operator", "claimed_at"])
        .where("transaction_id", "in", transactionIds)
        .execute();
      return new Map(
        rows.map((r) => [
          Number(r.transaction_id),
          { operator: r.operator, claimedAt: Number(r.claimed_at) },
        ]),
      );
    },
  };
}
