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
import type { Kysely } from "kysely";
import { writeAudit } from "../audited.js";
import { payoutViolation } from "../payouts/payout-errors.js";
import type { Database } from "../schema.js";

export type ClaimOutcome =
  | { ok: true; claimedAt: number; fresh: boolean }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "not_pending_withdrawal" }
  | { ok: false; reason: "in_payout_batch" }
  | { ok: false; reason: "claimed"; operator: string; claimedAt: number };

/** What letting go of a claim did: taken off, none there, or held by someone other than named. */
export type ReleaseOutcome =
  | { released: boolean }
  | { released: false; heldBy: { operator: string; claimedAt: number } };

export interface PayoutClaimRepository {
  claim(transactionId: number, operator: string, at: number, actor: string): Promise<ClaimOutcome>;
  /**
   * Lets go of the claim if `holder` holds it (the holder the operator was shown and asked about:
   * one who let go and was followed by a colleague meanwhile keeps the colleague's claim), or
   * whoever holds it when `holder` is undefined.
   */
  release(
    transactionId: number,
    holder: string | undefined,
    at: number,
    actor: string,
  ): Promise<ReleaseOutcome>;
  /** The claims on these transactions. */
  of(transactionIds: readonly number[]): Promise<Map<number, { operator: string; claimedAt: number }>>;
}

export function createPayoutClaimRepository(db: Kysely<Database>): PayoutClaimRepository {
  return {
    async claim(transactionId, operator, at, actor) {
      try {
        return await claimIn(db, transactionId, operator, at, actor);
      } catch (err) {
        // A live payout batch holds it (migration 20261206T1000): nobody pays it by hand meanwhile.
        if (payoutViolation(err) === "payout_in_batch") return { ok: false, reason: "in_payout_batch" };
        throw err;
      }
    },

    release(transactionId, holder, at, actor) {
      return db.transaction().execute(async (trx): Promise<ReleaseOutcome> => {
        let deleting = trx.deleteFrom("payout_claims").where("transaction_id", "=", transactionId);
        if (holder !== undefined) deleting = deleting.where("operator", "=", holder);
        const gone = await deleting.returning("operator").executeTakeFirst();
        if (!gone) {
          const held = await trx
            .selectFrom("payout_claims")
            .select(["operator", "claimed_at"])
            .where("transaction_id", "=", transactionId)
            .executeTakeFirst();
          return held
            ? { released: false, heldBy: { operator: held.operator, claimedAt: Number(held.claimed_at) } }
            : { released: false };
        }
        await writeAudit(
          trx,
          { actor, action: "transaction.paying_released", at },
          "transaction",
          String(transactionId),
          { paying: gone.operator },
          null,
        );
        return { released: true };
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

function claimIn(
  db: Kysely<Database>,
  transactionId: number,
  operator: string,
  at: number,
  actor: string,
): Promise<ClaimOutcome> {
  return db.transaction().execute(async (trx): Promise<ClaimOutcome> => {
    const tx = await trx
      .selectFrom("transactions")
      .select(["type", "status"])
      .where("id", "=", transactionId)
      .executeTakeFirst();
    if (!tx) return { ok: false, reason: "not_found" };
    if (tx.type !== "withdrawal" || tx.status !== "pending")
      return { ok: false, reason: "not_pending_withdrawal" };
    // Twice at most: a claim let go of between a lost insert and the read of its holder is
    // free again, and the second insert (a new snapshot on PostgreSQL) takes it.
    for (let attempt = 0; attempt < 2; attempt++) {
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
          { paying: operator },
        );
        return { ok: true, claimedAt: at, fresh: true };
      }
      const held = await trx
        .selectFrom("payout_claims")
        .select(["operator", "claimed_at"])
        .where("transaction_id", "=", transactionId)
        .executeTakeFirst();
      if (!held) continue;
      const claimedAt = Number(held.claimed_at);
      if (held.operator === operator) return { ok: true, claimedAt, fresh: false };
      return { ok: false, reason: "claimed", operator: held.operator, claimedAt };
    }
    // Taken and let go of twice within one claim: as busy as claimed, by nobody in particular.
    return { ok: false, reason: "claimed", operator: "", claimedAt: at };
  });
}
