/**
 * A window of the candidate pool (candidate-pool.ts) looked up by what a line says, so that a line
 * meets the few deposits it could point at, not every deposit of its reach: asking each of a busy
 * account's thousands of deposits took a 300,000-line file four minutes (docs/BENCHMARKS.md,
 * "Reconciliation: hostile statements"). The lookup may return more than point at the line, never
 * fewer unless it says it is incomplete (a line's budget spent); matching.ts asks each one found as
 * it asked every one before.
 */

/** What a deposit can be found by: its amount, and keys (its codes, ids and payer's words). */
export interface IndexedAs {
  amountMinor: number;
  keys: readonly string[];
  /** The payer's words: found as keys `w:<word>`, and by their beginnings (a cut name's last word). */
  words: readonly string[];
}

export interface WindowIndex<C> {
  window: readonly C[];
  position: Map<C, number>;
  /** Positions in the window, in order, by key. */
  byKey: Map<string, number[]>;
  /** The distinct words, sorted, for a search by beginning. */
  words: string[];
  byWord: Map<string, number[]>;
  /** Positions in the window, in order, by amount. */
  byAmount: Map<number, number[]>;
}

export function indexWindow<C>(window: readonly C[], indexedAs: (c: C) => IndexedAs): WindowIndex<C> {
  const position = new Map<C, number>();
  const byKey = new Map<string, number[]>();
  const byWord = new Map<string, number[]>();
  const byAmount = new Map<number, number[]>();
  const add = <K>(map: Map<K, number[]>, key: K, at: number) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [at]);
    else if (list[list.length - 1] !== at) list.push(at);
  };
  window.forEach((c, at) => {
    position.set(c, at);
    const { amountMinor, keys, words } = indexedAs(c);
    add(byAmount, amountMinor, at);
    for (const key of keys) add(byKey, key, at);
    for (const word of words) {
      add(byKey, `w:${word}`, at);
      add(byWord, word, at);
    }
  });
  return {
    window,
    position,
    byKey,
    byWord,
    words: [...byWord.keys()].sort(),
    byAmount,
  };
}

/** What a line asks for: keys, its amount, words whole or by their beginnings, and near amounts. */
export interface Wanted<C> {
  /** Codes and ids: few deposits share one, so every deposit found by one is taken. */
  keys: Iterable<string>;
  amount: number;
  /** Of the deposits with the line's amount, those that bear on its outcome (the pending ones). */
  byAmount(c: C): boolean;
  /** The sender's words. */
  words: Iterable<string>;
  beginnings: readonly string[];
  /** Of the deposits with a sender's word, those that bear on its outcome (the line's candidates). */
  byWord(c: C): boolean;
  /**
   * Deposits found by an amount near the line's alone: only the newest `count` of those `keeps`
   * takes matter (they are ranked among themselves by their time, newest first), so only they
   * are looked for, the stretch read from its newest end.
   */
  near: { keeps(c: C): boolean; time(c: C): number; count: number };
}

export interface LookedUp<C> {
  /** In window order. */
  found: C[];
  /**
   * Whether every deposit of the stretch that bears on the line by its amount was taken, and every
   * one by a sender's word (whole or by its beginning). `found` always holds every one found by a
   * key, then those by the amount, then those by the words, the newest of each first, while the
   * budget lasted; then the newest of the near ones, which never make a lookup incomplete.
   */
  complete: { amount: boolean; words: boolean };
}

/**
 * A line's budgets beyond its keys: deposits taken by its amount and words (`taken`), deposits and
 * words read to find them (`reads`), deposits read for the near ones (`near`).
 */
export interface Budget {
  taken: number;
  reads: number;
  near: number;
}

const UNBOUNDED: Budget = {
  taken: Number.POSITIVE_INFINITY,
  reads: Number.POSITIVE_INFINITY,
  near: Number.POSITIVE_INFINITY,
};

/**
 * The window's candidates within `stretch` (a run of the window, as candidate-pool.ts hands a line)
 * with a key wanted, the line's amount, a word whole or beginning as wanted, and the newest near
 * ones. A line's work is bounded by `budget`: a file whose lines all name the payer, or the amount,
 * of thousands of deposits costs each line no more.
 */
export function lookUp<C>(
  index: WindowIndex<C>,
  stretch: readonly C[],
  wanted: Wanted<C>,
  budget: Budget = UNBOUNDED,
): LookedUp<C> {
  const all = { amount: true, words: true };
  if (stretch.length === 0) return { found: [], complete: all };
  const from = index.position.get(stretch[0] as C);
  const to = index.position.get(stretch[stretch.length - 1] as C);
  // A stretch from another window: every one of it, as if there were no index.
  if (from === undefined || to === undefined || to - from + 1 !== stretch.length)
    return { found: [...stretch], complete: all };
  const found = new Set<number>();
  let { taken, reads } = budget;
  /**
   * A list's positions inside the stretch, newest first, those `bears` on taken while the budget
   * lasts (every one, for a key); false if cut short.
   */
  const takeRun = (positions: readonly number[] | undefined, bears?: (c: C) => boolean): boolean => {
    if (positions === undefined) return true;
    const first = lowerBound(positions, from);
    for (let i = lowerBound(positions, to + 1) - 1; i >= first; i--) {
      const at = positions[i] as number;
      if (found.has(at)) continue;
      if (bears !== undefined) {
        if (reads-- <= 0) return false;
        if (!bears(index.window[at] as C)) continue;
        if (taken-- <= 0) return false;
      }
      found.add(at);
    }
    return true;
  };
  for (const key of wanted.keys) takeRun(index.byKey.get(key));
  const complete = { amount: takeRun(index.byAmount.get(wanted.amount), wanted.byAmount), words: true };
  for (const word of wanted.words)
    complete.words = takeRun(index.byKey.get(`w:${word}`), wanted.byWord) && complete.words;
  for (const beginning of wanted.beginnings)
    for (let i = lowerBound(index.words, beginning); i < index.words.length; i++) {
      const word = index.words[i] as string;
      if (!word.startsWith(beginning)) break;
      if (reads-- <= 0 || !takeRun(index.byWord.get(word), wanted.byWord)) {
        complete.words = false;
        break;
      }
    }
  takeNewestNear(index.window, from, to, found, wanted.near, budget.near);
  return { found: [...found].sort((a, b) => a - b).map((at) => index.window[at] as C), complete };
}

/**
 * The newest `near.count` of the stretch's deposits that `near.keeps` (and any as new as the last
 * of them: equals keep their window order), reading at most `reads` of them from the newest.
 */
function takeNewestNear<C>(
  window: readonly C[],
  from: number,
  to: number,
  found: Set<number>,
  near: Wanted<C>["near"],
  reads: number,
): void {
  let kept = 0;
  let lastTime = Number.NaN;
  for (let at = to; at >= from && reads-- > 0; at--) {
    const c = window[at] as C;
    if (kept >= near.count && near.time(c) !== lastTime) return;
    if (found.has(at) || !near.keeps(c)) continue;
    found.add(at);
    kept++;
    lastTime = near.time(c);
  }
}

/** The first index of `sorted` whose value is at least `value`. */
function lowerBound<T extends number | string>(sorted: readonly T[], value: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as T) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
