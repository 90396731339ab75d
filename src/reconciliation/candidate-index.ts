/**
 * A window of the candidate pool (candidate-pool.ts) looked up by what a line says, so that a line
 * meets the few deposits it could point at, not every deposit of its reach: asking each of a busy
 * account's thousands of deposits took a 300,000-line file four minutes (docs/BENCHMARKS.md,
 * "Reconciliation: hostile statements"). The lookup may return more than point at the line, never
 * fewer; matching.ts asks each one found as it asked every one before.
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
  /** Positions in the window, by key. */
  byKey: Map<string, number[]>;
  /** The distinct words, sorted, for a search by beginning. */
  words: string[];
  byWord: Map<string, number[]>;
  /** Positions in the window, in order of amount, and their amounts. */
  byAmount: { amount: number; at: number }[];
}

export function indexWindow<C>(window: readonly C[], indexedAs: (c: C) => IndexedAs): WindowIndex<C> {
  const position = new Map<C, number>();
  const byKey = new Map<string, number[]>();
  const byWord = new Map<string, number[]>();
  const byAmount: { amount: number; at: number }[] = [];
  const add = (map: Map<string, number[]>, key: string, at: number) => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [at]);
    else if (list[list.length - 1] !== at) list.push(at);
  };
  window.forEach((c, at) => {
    position.set(c, at);
    const { amountMinor, keys, words } = indexedAs(c);
    byAmount.push({ amount: amountMinor, at });
    for (const key of keys) add(byKey, key, at);
    for (const word of words) {
      add(byKey, `w:${word}`, at);
      add(byWord, word, at);
    }
  });
  byAmount.sort((a, b) => a.amount - b.amount);
  return { window, position, byKey, byWord, words: [...byWord.keys()].sort(), byAmount };
}

/** What a line asks for: an amount range, keys, and beginnings of words. */
export interface Wanted {
  amountFrom: number;
  amountTo: number;
  keys: Iterable<string>;
  beginnings: readonly string[];
}

/**
 * The window's candidates within `stretch` (a run of the window, as candidate-pool.ts hands a line)
 * that have an amount in range, a key wanted, or a word beginning as wanted: in window order.
 */
export function lookUp<C>(index: WindowIndex<C>, stretch: readonly C[], wanted: Wanted): C[] {
  if (stretch.length === 0) return [];
  const from = index.position.get(stretch[0] as C);
  const to = index.position.get(stretch[stretch.length - 1] as C);
  // A stretch from another window: every one of it, as if there were no index.
  if (from === undefined || to === undefined || to - from + 1 !== stretch.length) return [...stretch];
  const found = new Set<number>();
  const take = (at: number) => {
    if (at >= from && at <= to) found.add(at);
  };
  for (let i = lowerBound(index.byAmount, wanted.amountFrom); i < index.byAmount.length; i++) {
    const entry = index.byAmount[i] as { amount: number; at: number };
    if (entry.amount > wanted.amountTo) break;
    take(entry.at);
  }
  for (const key of wanted.keys) for (const at of index.byKey.get(key) ?? []) take(at);
  for (const beginning of wanted.beginnings) {
    for (let i = lowerWord(index.words, beginning); i < index.words.length; i++) {
      const word = index.words[i] as string;
      if (!word.startsWith(beginning)) break;
      for (const at of index.byWord.get(word) ?? []) take(at);
    }
  }
  return [...found].sort((a, b) => a - b).map((at) => index.window[at] as C);
}

function lowerBound(sorted: readonly { amount: number }[], amount: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as { amount: number }).amount < amount) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lowerWord(sorted: readonly string[], word: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as string) < word) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
