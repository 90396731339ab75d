/**
 * What a mistyped command or option most likely meant, for the CLI's "did you mean": a candidate
 * the typed word begins (`--webhook` for `--webhook-url`), else the one within two edits of it,
 * counting two swapped letters as one edit (`frim` for `firm`). Undefined when nothing is that close
 * or two candidates are equally close: a guess that is only a guess helps nobody.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  if (word === "") return undefined;
  const extended = candidates.filter((c) => c.startsWith(word) && c !== word);
  if (extended.length === 1) return extended[0];
  let best: string | undefined;
  let bestDistance = 3;
  let tied = false;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
      tied = false;
    } else if (d === bestDistance) tied = true;
  }
  return tied || bestDistance === 0 ? undefined : best;
}

/** Insertions, deletions, substitutions and swaps of two neighbours (optimal string alignment). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_v, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
