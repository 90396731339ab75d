/**
 * Operators hear once that a firm reached a bound of its pending deposits (docs/operations.md,
 * "Bounds of a firm's pending deposits"): an audit entry and a log line per hour at most, across
 * every instance, however many deposits it refuses meanwhile. The dashboard shows the firm from its
 * first refusal for that hour, and for as long as it is at a bound.
 */
import { formatMinor } from "../domain/money.js";
import type { FirmPendingRow } from "../store/firms/firm-pending.js";
import type { Repositories } from "../store/index.js";

export const BOUND_NOTICE_QUIET_MS = 60 * 60_000;
/** This instance asks the store at most this often per firm: an attack's refusals cost no write each. */
const LOCAL_QUIET_MS = 60_000;

export const PENDING_BOUND_ACTION = "firm.pending_bound_reached";

export interface PendingBoundDeps {
  repos: Pick<Repositories, "firmPending">;
  log: { warn(obj: object, msg: string): void };
  now(): number;
}

export function createPendingBoundNotices(deps: PendingBoundDeps) {
  const asked = new Map<number, number>();
  return {
    /** A deposit of the firm was refused at its bound. Not awaited; a failure is logged. */
    reached(firmId: number): void {
      const at = deps.now();
      const last = asked.get(firmId);
      if (last !== undefined && at - last < LOCAL_QUIET_MS) return;
      asked.set(firmId, at);
      deps.repos.firmPending
        .noteBoundReached(firmId, BOUND_NOTICE_QUIET_MS, {
          actor: "service:intake",
          action: PENDING_BOUND_ACTION,
          at,
        })
        .then((row) => {
          if (!row) return;
          deps.log.warn(
            {
              firm: firmId,
              pending_count: row.count,
              pending_amount: formatMinor(row.amountMinor),
              max_pending_count: row.maxCount,
              max_pending_amount: row.maxAmountMinor === null ? null : formatMinor(row.maxAmountMinor),
            },
            "a firm reached its bound of pending deposits: its further deposits are answered as no account",
          );
        })
        .catch((err: unknown) =>
          deps.log.warn({ err, firm: firmId }, "could not note that a firm reached its pending bound"),
        );
    },
  };
}

export type PendingBoundNotices = ReturnType<typeof createPendingBoundNotices>;

/** Whether the firm's next deposit, of any amount, would find it at a bound. */
function atBound(r: FirmPendingRow): boolean {
  return (
    (r.maxCount !== null && r.count >= r.maxCount) ||
    (r.maxAmountMinor !== null && r.amountMinor >= r.maxAmountMinor)
  );
}

/** A firm at a bound of its pending deposits, as the summary names it. */
export type PendingBoundView = ReturnType<typeof firmsAtPendingBound>[number];

/**
 * The firms the dashboard names: at a bound now, or refused a deposit at one within the last hour
 * (an amount bound refuses a large deposit before the sum reaches it).
 */
export function firmsAtPendingBound(rows: readonly FirmPendingRow[], now: number) {
  return rows
    .filter((r) => atBound(r) || (r.boundNotedAt !== null && now - r.boundNotedAt < BOUND_NOTICE_QUIET_MS))
    .map((r) => ({
      firm_id: r.firmId,
      name: r.name,
      pending_count: r.count,
      pending_amount: formatMinor(r.amountMinor),
      max_pending_count: r.maxCount,
      max_pending_amount: r.maxAmountMinor === null ? null : formatMinor(r.maxAmountMinor),
      reached_at: r.boundNotedAt === null ? null : new Date(r.boundNotedAt).toISOString(),
    }));
}
