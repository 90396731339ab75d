import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import { mix } from "./people.js";
import { createRows, type Fixture, type SeedTransaction } from "./rows.js";

/**
 * Rows that exist in a store of a given size, for the paths' parameters: the i-th call of a path
 * asks for the i-th sample, so calls differ from each other and every run asks the same. Made by
 * the rows' generator (rows.ts), not read from the store. On the empty store they name rows
 * that are not there (the searches find nothing, as they would).
 */
export interface Samples {
  any(i: number): SeedTransaction;
  deposit(i: number): SeedTransaction;
  withdrawal(i: number): SeedTransaction;
  /** Decided, so with a callback and an audit entry. */
  decided(i: number): SeedTransaction;
  /** Pending, in the queues. */
  pending(i: number): SeedTransaction;
  /** A whole day (Türkiye's) that has rows, one of the last week's, as ISO times. */
  day(i: number): { from: string; to: string };
}

const DAY_MS = 86_400_000;
/** Positions the empty store's samples are taken from. */
const NOTIONAL = 1_000;

export function createSamples(fx: Fixture, size: number): Samples {
  const rowAt = createRows(fx);
  const span = size > 0 ? size : NOTIONAL;
  const first = (i: number, salt: number, fits: (tx: SeedTransaction) => boolean) => {
    for (let j = 0; ; j++) {
      const tx = rowAt(mix(i * 64 + j, salt) % span);
      if (fits(tx) || j >= 64) return tx;
    }
  };
  const pendingAt: number[] = [];
  for (let k = 0; k < Math.min(span, fx.pendingWindow); k++)
    if (rowAt(k).status === "pending") pendingAt.push(k);
  const days = Math.floor((size * fx.gapMs) / DAY_MS);
  const today = startOfTurkeyDay(fx.end);
  return {
    any: (i) => rowAt(mix(i, 11) % span),
    deposit: (i) => first(i, 13, (tx) => tx.type === "deposit"),
    withdrawal: (i) => first(i, 17, (tx) => tx.type === "withdrawal"),
    decided: (i) => first(i, 19, (tx) => tx.status !== "pending"),
    pending: (i) =>
      pendingAt.length > 0 ? rowAt(pendingAt[mix(i, 23) % pendingAt.length] as number) : rowAt(i % span),
    day(i) {
      const back = days >= 2 ? 1 + (i % Math.min(7, days - 1)) : 0;
      const from = today - back * DAY_MS;
      return { from: new Date(from).toISOString(), to: new Date(from + DAY_MS).toISOString() };
    },
  };
}
