import type { Kysely } from "kysely";
import type { CommissionSchedule } from "../../domain/ledger.js";
import { uniqueViolation } from "../engine/errors.js";
import type { Database } from "../schema.js";

/** Firms' commission schedules (`firm_commissions`, migration 20261206T1200_ledger). */
export interface CommissionRepository {
  /**
   * Adds several schedules in one database transaction: all or none. `exists` names the kind of
   * the first that the firm has from that moment already.
   */
  addAll(
    schedules: CommissionSchedule[],
    by: string,
    now: number,
  ): Promise<{ ok: true } | { ok: false; reason: "exists"; kind: CommissionSchedule["kind"] }>;
  /** The firm's schedule of that kind in force at `at` (the latest from `at` or before); undefined: none. */
  inForce(
    firmId: number,
    kind: CommissionSchedule["kind"],
    at: number,
  ): Promise<CommissionSchedule | undefined>;
  /** Every schedule of the firm, oldest first, those still to come included. */
  list(firmId: number): Promise<CommissionSchedule[]>;
}

type Row = Pick<
  Database["firm_commissions"],
  "firm_id" | "kind" | "percent_bp" | "fixed" | "min" | "max" | "from_at"
>;

const maybe = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function scheduleOf(r: Row): CommissionSchedule {
  return {
    firmId: Number(r.firm_id),
    kind: r.kind,
    percentBp: Number(r.percent_bp),
    fixed: Number(r.fixed),
    min: maybe(r.min),
    max: maybe(r.max),
    fromAt: Number(r.from_at),
  };
}

const COLUMNS = ["firm_id", "kind", "percent_bp", "fixed", "min", "max", "from_at"] as const;

const rowOf = (s: CommissionSchedule, by: string, now: number) => ({
  firm_id: s.firmId,
  kind: s.kind,
  percent_bp: s.percentBp,
  fixed: s.fixed,
  min: s.min,
  max: s.max,
  from_at: s.fromAt,
  created_by: by,
  created_at: now,
});

class Exists extends Error {
  constructor(readonly kind: CommissionSchedule["kind"]) {
    super("exists");
  }
}

export function createCommissionRepository(db: Kysely<Database>): CommissionRepository {
  return {
    async addAll(schedules, by, now) {
      try {
        await db.transaction().execute(async (trx) => {
          for (const s of schedules) {
            try {
              await trx
                .insertInto("firm_commissions")
                .values(rowOf(s, by, now))
                .execute();
            } catch (err) {
              if (uniqueViolation(err) !== null) throw new Exists(s.kind);
              throw err;
            }
          }
        });
        return { ok: true };
      } catch (err) {
        if (err instanceof Exists) return { ok: false, reason: "exists", kind: err.kind };
        throw err;
      }
    },
    async inForce(firmId, kind, at) {
      const row = await db
        .selectFrom("firm_commissions")
        .select(COLUMNS)
        .where("firm_id", "=", firmId)
        .where("kind", "=", kind)
        .where("from_at", "<=", at)
        .orderBy("from_at", "desc")
        .limit(1)
        .executeTakeFirst();
      return row ? scheduleOf(row) : undefined;
    },
    async list(firmId) {
      const rows = await db
        .selectFrom("firm_commissions")
        .select(COLUMNS)
        .where("firm_id", "=", firmId)
        .orderBy("from_at")
        .orderBy("kind")
        .execute();
      return rows.map(scheduleOf);
    },
  };
}
