import { api } from "./api";
import { refusalIn, typedApproval } from "./decision-text";
import type { HeldDecisions } from "./queue-held";
import type { AutoSelected } from "./queue-keys";
import type { MovedRows } from "./queue-moved";
import type { QueueRow } from "./queue-row";
import { payerName, type Shell } from "./ui";

/**
 * The queue's decisions in the row: approve or reject, held first where the server says so (then
 * sent by useHeldRows), or sent at once, one at a time; and a held one taken back.
 */
export function decideInRow(props: {
  list: QueueRow[];
  rows: QueueRow[] | undefined;
  amounts: Record<number, string>;
  me: Shell["me"];
  t: Shell["t"];
  undoMs: number;
  notify(text: string, bad?: boolean): void;
  refuse(text: string): void;
  /** Whether the notice shown is about a try the page refused (Queue). */
  refusedTry: { current: boolean };
  payingElsewhere(row: QueueRow): string;
  hidden: { current: Set<number> };
  moved: { current: MovedRows };
  held: HeldDecisions;
  deciding: { current: boolean };
  autoSelected: { current: AutoSelected };
  setBusy(busy: boolean): void;
  setSelected(update: number | null | ((s: number | null) => number | null)): void;
  setRejecting(id: number | null): void;
  setNoteBack(back: { id: number; note: string }): void;
  reload(): void;
}) {
  const { list, rows, amounts, me, t, undoMs, notify, refuse, refusedTry, payingElsewhere } = props;
  const { hidden, moved, held, deciding, autoSelected, setBusy, setSelected, setRejecting, reload } = props;

  async function decide(row: QueueRow, kind: "approve" | "reject", note?: string, byKey = false) {
    if (deciding.current) return;
    const body: Record<string, string> = {};
    if (kind === "approve") {
      const typed = typedApproval(row, amounts[row.id], t, me.role);
      if (!typed.ok) return refuse(typed.message);
      if (typed.change && !confirm(`${typed.change}\n${t("confirmAmount")}`)) return;
      if (typed.amount) body.amount = typed.amount;
    }
    if (kind === "approve" && row.iban_valid === false && !confirm(`#${row.id}: ${t("confirmBadIban")}`))
      return;
    // A colleague said they are paying it: deciding it here may be deciding their payout.
    if (
      row.paying_by &&
      row.paying_by !== me.email &&
      !confirm(`${payingElsewhere(row)}\n${t("confirmDecidePaying")}`)
    )
      return;
    if (kind === "reject" && note?.trim()) body.note = note.trim();
    if (undoMs > 0) {
      // Held (nothing is sent yet): the row leaves now, as it will once sent. Not marked as the
      // page's own: the rows below move up under the pointer, and a click there must wait.
      hidden.current.add(row.id);
      setRejecting(null);
      selectNext(row, byKey);
      // A notice about an earlier try (a refused amount, a double tap) would contradict this one.
      if (refusedTry.current) notify("");
      held.hold(row.id, { kind, body, amount: body.amount ?? row.amount, payer: payerOf(row) });
      return;
    }
    deciding.current = true;
    setBusy(true);
    // Marked before it is sent: a load under way may come back without the row before the answer.
    moved.current.own.add(row.id);
    let leaves = false;
    try {
      const res = await api("POST", `/transactions/${row.id}/${kind}`, body);
      notify(
        `#${row.id}: ${res.ok ? t(kind === "approve" ? "approved" : "rejected") : refusalIn(res.json, res.status)}`,
        !res.ok,
      );
      // Refused because it was decided already: the row is gone, and the notice above says why.
      if (res.status === 409) setSelected((s) => (s === row.id ? null : s));
      // Either way the row leaves, as the operator now expects; otherwise it stays where it was.
      leaves = res.ok || res.status === 409;
      if (res.ok) {
        setRejecting(null);
        selectNext(row, byKey);
      }
      reload();
    } finally {
      if (!leaves) moved.current.own.delete(row.id);
      deciding.current = false;
      setBusy(false);
    }
  }

  /** After a decision, the row below it (or above, at the end) is the next one to look at. */
  function selectNext(row: QueueRow, byKey: boolean) {
    const index = list.indexOf(row);
    const next = list[index + 1]?.id ?? list[index - 1]?.id ?? null;
    setSelected(next);
    if (byKey) autoSelected.current = { id: next, at: performance.now() };
  }

  /** Takes a held decision back: nothing was sent, and the row is where it was, selected. */
  function undo(id: number) {
    const decision = held.undo(id);
    if (decision === undefined) return notify(`#${id}: ${t("nothingToUndo")}`, true);
    hidden.current.delete(id);
    moved.current.own.delete(id);
    // Not selected when the list shown has no such row (the filter changed since): the keys would
    // act on a row the operator cannot see, and a refresh would call it decided elsewhere.
    if (!rows?.some((r) => r.id === id)) return notify(`#${id}: ${t("undoneElsewhere")}`);
    // A rejection comes back as it was being written: its note open, with what was typed.
    if (decision.kind === "reject") {
      props.setNoteBack({ id, note: decision.body.note ?? "" });
      setRejecting(id);
    }
    setSelected(id);
    notify(`#${id}: ${t("undone")}`);
  }
  return { decide, undo };
}

const payerOf = (row: QueueRow) => payerName(row);
