import { useLayoutEffect } from "preact/hooks";
import type { T } from "./i18n";
import type { QueueRow } from "./queue-row";

/** How long a row must have held still for a pointer's click on its approve or reject to count. */
const MOVED_GUARD_MS = 800;

/**
 * Where the rows shown were, when each one last moved, and the rows this page decided (their leaving
 * moves no other row).
 */
export interface MovedRows {
  ids: number[];
  at: Map<number, number>;
  own: Set<number>;
}

export const noRowsMoved = (): MovedRows => ({ ids: [], at: new Map(), own: new Set() });

/**
 * A row that moved just before a click may have put itself under a pointer aimed at another: its
 * approve and reject by pointer wait until it has held still a moment (the keys, and Enter on a
 * focused button, act on the row chosen, wherever it is). Returns `settled`, which says whether a
 * click on a row's button counts (and refuses it, saying why, when not).
 */
export function useMovedGuard(
  moved: { current: MovedRows },
  list: QueueRow[],
  refuse: (text: string) => void,
  t: T,
) {
  // Before the browser paints the moved rows, so no click on them can come first. On the rows shown:
  // a row hidden by a held decision, or back after an undo, moves the rows below it as a load does.
  const shown = list.map((r) => r.id).join(",");
  useLayoutEffect(() => {
    const ids = list.map((r) => r.id);
    const m = moved.current;
    const now = performance.now();
    // Rows this page decided leave as the operator expects; rows added after the last ones (oldest
    // first) move none. Any other change of place is a move.
    const before = m.ids.filter((id) => !m.own.has(id));
    const placeBefore = new Map(before.map((id, i) => [id, i]));
    const placeNow = new Map(ids.filter((id) => !m.own.has(id)).map((id, i) => [id, i]));
    for (const [id, i] of placeNow)
      if (placeBefore.has(id) ? placeBefore.get(id) !== i : i < before.length)
        // Moved, or put in among the rows already shown (a row back after an undo or a refused
        // send, a new one on top): either may now be under a pointer aimed at another.
        m.at.set(id, now);
    for (const id of m.at.keys())
      if (!placeNow.has(id) || now - (m.at.get(id) ?? 0) > MOVED_GUARD_MS) m.at.delete(id);
    for (const id of m.own) if (!ids.includes(id)) m.own.delete(id);
    m.ids = ids;
  }, [shown]);
  return (id: number, e: MouseEvent): boolean => {
    // The second click of a double click: the row it was aimed at may have left from under it.
    if (e.detail > 1) return false;
    // `detail` 0: Enter or Space on the focused button, not a pointer.
    if (e.detail === 0 || performance.now() - (moved.current.at.get(id) ?? -Infinity) >= MOVED_GUARD_MS)
      return true;
    refuse(t("listMoved"));
    return false;
  };
}
