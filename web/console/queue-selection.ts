import { useEffect, useLayoutEffect } from "preact/hooks";
import type { QueueRow } from "./queue-row";
import type { Shell } from "./ui";

/**
 * The selected row and the open note follow the list: a row that left it is said to be gone and
 * no longer selected, and the selected row is kept in view, clear of the held decisions' bar.
 */
export function useSelectionOnList(props: {
  rows: QueueRow[] | undefined;
  deciding: { current: boolean };
  selected: number | null;
  setSelected(id: number | null): void;
  rejecting: number | null;
  setRejecting(id: number | null): void;
  heldCount: number;
  t: Shell["t"];
  notify(text: string, bad?: boolean): void;
}) {
  const { rows, deciding, selected, setSelected, rejecting, setRejecting, t, notify } = props;
  // A selected row or an open note whose row left the list: say so, select nothing.
  useEffect(() => {
    if (!Array.isArray(rows) || deciding.current) return;
    if (selected !== null && !rows.some((r) => r.id === selected)) {
      setSelected(null);
      notify(`#${selected}: ${t("goneElsewhere")}`, true);
    }
    if (rejecting !== null && !rows.some((r) => r.id === rejecting)) setRejecting(null);
  }, [rows]);
  // The selected row is kept in view and takes the focus, so the keys act on what is on screen.
  // Before the browser paints, not after: an effect still waiting when the next key changes the
  // selection would focus the row selected before, and the focus would select it again. In view means
  // clear of the held decisions' bar too: a row behind it is not (on a 1366 × 768 screen, say), and
  // `a` would approve what the operator cannot see.
  useLayoutEffect(() => {
    if (selected === null) return;
    const tr = document.querySelector<HTMLElement>(`#rows tr[data-id="${selected}"]`);
    if (!tr) return;
    keepInView(tr);
    if (!tr.contains(document.activeElement)) tr.focus({ preventScroll: true });
  }, [selected]);
  // The bar changed under the selected row: scrolled, never focused, and only while the operator is
  // working the list. Focus taken from the filter's name field would turn the name being typed into
  // keys ("AYSE" would approve the selected row).
  useLayoutEffect(() => {
    if (selected === null) return;
    const tr = document.querySelector<HTMLElement>(`#rows tr[data-id="${selected}"]`);
    const active = document.activeElement;
    if (tr && (active === document.body || active?.closest("#rows"))) keepInView(tr);
  }, [props.heldCount]);
}

/**
 * Scrolls `row` into view clear of what stays on screen over the list: the message line at the top
 * and the held decisions' bar at the bottom (both sticky), which `scrollIntoView` does not know of.
 */
function keepInView(row: HTMLElement) {
  row.scrollIntoView({ block: "nearest" });
  const box = row.getBoundingClientRect();
  const bar = document.getElementById("held")?.getBoundingClientRect();
  const message = document.getElementById("message")?.getBoundingClientRect();
  const GAP = 8;
  if (bar && box.bottom > bar.top - GAP) window.scrollBy(0, box.bottom - bar.top + GAP);
  else if (message && message.height > 0 && box.top < message.bottom + GAP)
    window.scrollBy(0, box.top - message.bottom - GAP);
}
