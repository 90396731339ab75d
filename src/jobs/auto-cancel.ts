/**
 * Rejects pending deposits older than their provider's `auto_cancel_minutes`, exactly like an
 * operator rejection: status, who decided ("service:auto-cancel"), a note giving the reason, and the
 * callback, in one database transaction per batch. Runs on every instance; on PostgreSQL the batch
 * locks its rows with SKIP LOCKED, so instances share the work and no deposit is decided twice (the
 * `WHERE status = 'pending'` update would refuse a second decision anyway). The query compares
 * creation times with now, so after downtime the first run catches up on everything that expired.
 */
import { callbackDraft } from "../callbacks/message.js";
import type { DecisionRepository } from "../store/decisions/decisions.js";

export const AUTO_CANCEL_ACTOR = "service:auto-cancel";
/**
 * Deposits per transaction. Small, because a transaction holds the embedded store's connection: while
 * it runs (a few statements per deposit, each a message to the store's thread), every other request
 * waits for it.
 */
const BATCH = 20;

export interface AutoCancelJob {
  start(): void;
  /** One pass over everything due; resolves with the ids it rejected. */
  runOnce(): Promise<number[]>;
  stop(): Promise<void>;
}

export interface AutoCancelDeps {
  decisions: DecisionRepository;
  now(): number;
  intervalMs: number;
  /**
   * Called with what a pass rejected, so their callbacks go out at once; `live`: some of them were
   * live firms' deposits, in the operators' queues.
   */
  cancelled(ids: number[], live: boolean): void;
  log: { error(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

export function createAutoCancelJob(deps: AutoCancelDeps): AutoCancelJob {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number[]> | undefined;

  async function pass(): Promise<number[]> {
    const all: number[] = [];
    for (;;) {
      const live = new Set<number>();
      const ids = await deps.decisions.autoCancel(deps.now(), BATCH, (tx) => {
        if (Number(tx.firm_sandbox) !== 1) live.add(tx.id);
        return {
          status: "rejected",
          amount: tx.amount,
          originalAmount: null,
          decidedBy: AUTO_CANCEL_ACTOR,
          note: `auto-cancelled: pending for more than ${tx.auto_cancel_minutes} minutes`,
          callback: (decided) =>
            callbackDraft(decided, { callbackMiddleName: tx.callback_middle_name === 1 }),
          // A rejection moves no money.
          posting: null,
        };
      });
      all.push(...ids);
      if (ids.length > 0)
        deps.cancelled(
          ids,
          ids.some((id) => live.has(id)),
        );
      if (ids.length < BATCH) return all;
    }
  }

  function runOnce(): Promise<number[]> {
    running ??= pass()
      .then((ids) => {
        if (ids.length > 0) deps.log.info({ count: ids.length }, "auto-cancelled pending deposits");
        return ids;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  return {
    start() {
      if (timer) return;
      const run = () =>
        void runOnce().catch((err) => deps.log.error({ err }, "auto-cancel pass failed; retrying later"));
      timer = setInterval(run, deps.intervalMs);
      timer.unref();
      run();
    },
    runOnce,
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => {});
    },
  };
}
