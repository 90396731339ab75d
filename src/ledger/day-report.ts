/**
 * A firm's day as the reports show it (docs/ledger.md, "Reports"): the balance's opening, what moved
 * it by kind, and its closing, in the contract's money form. Every figure is signed as it moved the
 * firm's balance (deposits up, withdrawals and commissions down), so `opening` plus the movements is
 * always `closing`: a reader can add them up.
 */
import type { EntryKind } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import type { EntryView } from "../store/ledger/ledger.js";
import type { AccountDayFigures } from "../store/ledger/ledger-reads.js";

/** The movements a report names, in its columns' order, and the entry kinds each one sums. */
export const DAY_MOVEMENTS = {
  deposits: ["deposit"],
  withdrawals: ["withdrawal"],
  commissions: ["commission"],
  returns: ["return"],
  settlements: ["settlement"],
  adjustments: ["adjustment"],
  opening_balance: ["opening"],
} as const satisfies Record<string, readonly EntryKind[]>;

export type DayMovement = keyof typeof DAY_MOVEMENTS;

export type DayTotals = { date: string; opening: string } & Record<DayMovement, string> & {
    /** Kinds no report column names (none should reach a firm's balance); present only when not zero. */
    other?: string;
    closing: string;
  };

/** One posting of the day as it moved the firm's balance: `parts` by entry kind, `amount` their sum. */
export interface DayPosting {
  id: number;
  key: string;
  kind: string;
  at: string;
  amount: string;
  parts: Partial<Record<EntryKind, string>>;
  memo: string | null;
}

/** The day's totals of the firm's balance, from its day figures. */
export function dayTotals(figures: AccountDayFigures): DayTotals {
  let named = 0;
  const movements = {} as Record<DayMovement, string>;
  for (const [name, kinds] of Object.entries(DAY_MOVEMENTS) as [DayMovement, readonly EntryKind[]][]) {
    const sum = kinds.reduce((s, k) => s + (figures.movements[k] ?? 0), 0);
    named += sum;
    movements[name] = formatMinor(sum);
  }
  const other = figures.closing - figures.opening - named;
  return {
    date: figures.day,
    opening: formatMinor(figures.opening),
    ...movements,
    ...(other === 0 ? {} : { other: formatMinor(other) }),
    closing: formatMinor(figures.closing),
  };
}

/**
 * Entries of one account grouped by posting, in their order. A posting's entries on one account are
 * adjacent (one time, consecutive ids), so a page cut only between postings keeps each one whole.
 */
export function postingsOf(entries: readonly EntryView[]): DayPosting[] {
  const groups: { first: EntryView; parts: Map<EntryKind, number> }[] = [];
  for (const e of entries) {
    const last = groups.at(-1);
    if (last?.first.postingId === e.postingId)
      last.parts.set(e.kind, (last.parts.get(e.kind) ?? 0) + e.amount);
    else groups.push({ first: e, parts: new Map([[e.kind, e.amount]]) });
  }
  return groups.map(({ first, parts }) => ({
    id: first.postingId,
    key: first.postingKey,
    kind: first.postingKind,
    at: new Date(first.at).toISOString(),
    amount: formatMinor([...parts.values()].reduce((s, v) => s + v, 0)),
    parts: Object.fromEntries([...parts].map(([k, v]) => [k, formatMinor(v)])),
    memo: first.memo,
  }));
}
