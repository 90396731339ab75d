import { payerNameKey } from "../domain/name-search.js";
import type { TransactionRepository } from "../store/transactions.js";

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

/**
 * The fill above, run once in the background by each instance that runs background work, after it
 * listens: on a large store it takes seconds to minutes (measured: 6 µs a row on SQLite, 22 µs on
 * PostgreSQL), which a start must not wait for. Until it is done, a search by name does not find the rows it has not reached.
 */
export function createNameKeyJob(deps: {
  transactions: KeyRepository;
  done(filled: number): void;
  failed(err: unknown): void;
}): NameKeyJob {
  let stopped = false;
  let running: Promise<void> | undefined;
  return {
    start() {
      running ??= fillPayerNameKeys(deps.transactions, () => stopped).then(deps.done, deps.failed);
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
