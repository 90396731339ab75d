import { payerNameKey } from "../domain/name-search.js";
import type { TransactionRepository } from "../store/transactions/transactions.js";

/** Rows per statement: small, because on the embedded store a statement holds the connection. */
const BATCH = 500;

type KeyRepository = Pick<TransactionRepository, "withoutNameKey" | "setNameKeys">;

/**
 * Fills in the search key of payer names (domain/name-search.ts) on rows written before the column
 * existed, or by an older instance during a rolling deploy. Safe on several instances at once: each
 * writes the same key, and only where none is set. Stops between batches once `stopped()` says so.
 * Returns how many rows it filled in.
 */
export async function fillPayerNameKeys(
  transactions: KeyRepository,
  stopped: () => boolean = () => false,
): Promise<number> {
  let filled = 0;
  let afterId = 0;
  while (!stopped()) {
    const rows = await transactions.withoutNameKey(afterId, BATCH);
    if (rows.length === 0) break;
    await transactions.setNameKeys(
      rows.map((r) => ({ id: r.id, key: payerNameKey(r.first_name, r.middle_name, r.last_name) })),
    );
    filled += rows.length;
    afterId = rows[rows.length - 1]?.id ?? afterId;
  }
  return filled;
}

export interface NameKeyJob {
  start(): void;
  /** Waits for the batch under way, if any; no other starts. */
  stop(): Promise<void>;
}

/** A pass that found nothing to do is repeated this much later; one that failed, sooner. */
const AGAIN_MS = 10 * 60_000;
const AFTER_FAILURE_MS = 60_000;

/**
 * The fill above, in the background, by each instance that runs background work, once it listens:
 * on a large store it takes seconds to minutes, which a start must not wait for. Until it is done, a search by name does not find the
 * rows it has not reached. Repeated every ten minutes (a minute after a failure): instances of an
 * older version still running during a rolling deploy write rows without a key after this one's
 * first pass; with none left, a pass is one probe of the partial index of keyless rows.
 */
export function createNameKeyJob(deps: {
  transactions: KeyRepository;
  done(filled: number): void;
  failed(err: unknown): void;
  /** Tests only: the pause between passes. */
  againMs?: number;
}): NameKeyJob {
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pass = () => {
    timer = undefined;
    running = fillPayerNameKeys(deps.transactions, () => stopped).then(
      (filled) => {
        deps.done(filled);
        again(deps.againMs ?? AGAIN_MS);
      },
      (err) => {
        deps.failed(err);
        again(deps.againMs ?? AFTER_FAILURE_MS);
      },
    );
  };
  const again = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(pass, ms);
    timer.unref?.();
  };
  return {
    start() {
      if (!stopped && running === undefined) pass();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
