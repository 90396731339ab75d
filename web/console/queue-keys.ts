import { useEffect, useRef } from "preact/hooks";
import type { HeldDecisions } from "./queue-held";
import { COPY_KEYS, type CopyKey } from "./queue-paying";
import type { QueueRow } from "./queue-row";
import { canDecide, type Shell } from "./ui";

/**
 * After an approval by key the next row is selected: `a` for it within this long is a second press
 * aimed at the row just approved (a double tap), not a decision about a row the operator has not
 * looked at yet. (`r` only opens the note; the reject still takes Enter.)
 */
const NEXT_ROW_GUARD_MS = 700;

/** The row a decision selected, and when (NEXT_ROW_GUARD_MS). */
export interface AutoSelected {
  id: number | null;
  at: number;
}

/** What the keys act on, as the page shows it now. */
interface KeysNow {
  list: QueueRow[];
  current: QueueRow | undefined;
  rejecting: number | null;
  decide(row: QueueRow, kind: "approve" | "reject", note?: string, byKey?: boolean): void;
  undo(id: number): void;
  held: HeldDecisions;
  copyField(row: QueueRow, key: CopyKey): Promise<void>;
}

/**
 * The queue's keys on the page: j/k select, a approves, r opens the note, u takes the last held
 * decision back, and in the withdrawal queue i/n/t copy the selected payout's fields. Listened to
 * once; `now` is what they act on at each render.
 */
export function useQueueKeys(
  props: {
    type: "deposit" | "withdrawal";
    me: Shell["me"];
    t: Shell["t"];
    refuse(text: string): void;
    setSelected(id: number | null): void;
    setRejecting(id: number | null): void;
    autoSelected: { current: AutoSelected };
  },
  now: KeysNow,
) {
  const { type, me, t, refuse, setSelected, setRejecting, autoSelected } = props;
  const keys = useRef(now);
  keys.current = now;
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const target = e.target as HTMLElement;
      if (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) || e.ctrlKey || e.metaKey || e.altKey)
        return;
      // Caps Lock on (names from bank statements are typed in capitals) or Shift: the same keys.
      // A Turkish keyboard's capital of i is İ, whose toLowerCase() is "i̇" (two characters).
      const key = e.key === "İ" ? "i" : e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (!["j", "k", "a", "r", "u", ...(type === "withdrawal" ? COPY_KEYS : [])].includes(key)) return;
      e.preventDefault();
      // A key held down decides once: its repeats are ignored.
      if (e.repeat) return;
      const { list, current, rejecting, decide, undo, held, copyField } = keys.current;
      const i = current ? list.indexOf(current) : -1;
      if (key === "j") setSelected(list[Math.min(list.length - 1, i + 1)]?.id ?? null);
      else if (key === "k") setSelected(list[Math.max(0, i - 1)]?.id ?? null);
      else if (COPY_KEYS.includes(key)) {
        // Reading, not deciding: viewers too.
        if (!current) refuse(t("selectFirst"));
        else void copyField(current, key as CopyKey);
      } else if (!canDecide(me.role)) return;
      else if (key === "u") {
        const last = held.last();
        if (last === undefined) refuse(t("nothingToUndo"));
        else undo(last);
      } else if (!current) refuse(t("selectFirst"));
      else if (key === "a" && rejecting === null) {
        const { id, at } = autoSelected.current;
        if (id === current.id && performance.now() - at < NEXT_ROW_GUARD_MS)
          refuse(`#${current.id}: ${t("nextJustSelected")}`);
        else decide(current, "approve", undefined, true);
      } else if (key === "r") setRejecting(current.id);
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
