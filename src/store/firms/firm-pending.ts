import type { Kysely } from "kysely";
import { type AuditEntry, writeAudit } from "../audited.js";
import type { Database } from "../schema.js";

/** A firm's pending deposits beside its bounds, as operators see them. */
export interface FirmPendingRow {
  firmId: number;
  name: string;
  count: number;
  amountMinor: number;
  maxCount: number | null;
  maxAmountMinor: number | null;
  /** When operators were last told that the firm reached a bound; null: never. */
  boundNotedAt: number | null;
}

/**
 * Each firm's pending deposits, which triggers on `transactions` keep (migration
 * 20261129T1000_firm_pending_bounds): read for operators, and marked when a firm reached a bound.
 */
export interface FirmPendingRepository {
  /** Every firm with its pending deposits and bounds, by id (a firm with none counts 0). */
  list(): Promise<FirmPendingRow[]>;
  /**
   * Marks that the firm reached a bound and writes its audit entry, in one transaction, unless it
   * was marked within `quietMs`: across every instance, one entry per quiet period, however many
   * deposits it refuses. The row as marked, or undefined when nothing was written.
   */
  noteBoundReached(firmId: number, quietMs: number, audit: AuditEntry): Promise<FirmPendingRow | undefined>;
}

function selectRows(db: Kysely<Database>) {
  return db
    .selectFrom("firms")
    .leftJoin("firm_pending", "firm_pending.firm_id", "firms.id")
    .select([
      "firms.id",
      "firms.name",
      "firms.max_pending_count",
      "firms.max_pending_amount",
      "firm_pending.deposits",
      "firm_pending.amount",
      "firm_pending.bound_noted_at",
    ])
    .orderBy("firms.id");
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectRows>["execute"]>>[number];

/** PostgreSQL answers bigint columns as text. */
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function rowOf(r: Selected): FirmPendingRow {
  return {
    firmId: Number(r.id),
    name: r.name,
    count: num(r.deposits) ?? 0,
    amountMinor: num(r.amount) ?? 0,
    maxCount: num(r.max_pending_count),
    maxAmountMinor: num(r.max_pending_amount),
    boundNotedAt: num(r.bound_noted_at),
  };
}

export function createFirmPendingRepository(db: Kysely<Database>): FirmPendingRepository {
  return {
    async list() {
      return (await selectRows(db).execute()).map(rowOf);
    },

    noteBoundReached(firmId, quietMs, audit) {
      return db.transaction().execute(async (trx) => {
        // A firm refused before it had any pending deposit (one larger than its amount bound) has
        // no row yet: it gets one, counting nothing.
        const marked = await trx
          .insertInto("firm_pending")
          .values({ firm_id: firmId, deposits: 0, amount: 0, bound_noted_at: audit.at })
          .onConflict((oc) =>
            oc
              .column("firm_id")
              .doUpdateSet({ bound_noted_at: audit.at })
              .where((eb) =>
                eb.or([
                  eb("firm_pending.bound_noted_at", "is", null),
                  eb("firm_pending.bound_noted_at", "<=", audit.at - quietMs),
                ]),
              ),
          )
          .returning("firm_id")
          .executeTakeFirst();
        if (!marked) return undefined;
        const row = await selectRows(trx).where("firms.id", "=", firmId).executeTakeFirst();
        if (!row) return undefined;
        const seen = rowOf(row);
        await writeAudit(trx, audit, "firm", String(firmId), null, {
          pending_count: seen.count,
          pending_amount: seen.amountMinor,
          max_pending_count: seen.maxCount,
          max_pending_amount: seen.maxAmountMinor,
        });
        return seen;
      });
    },
  };
}
