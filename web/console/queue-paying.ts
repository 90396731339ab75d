import { api } from "./api";
import {
  copiedNotice,
  copyText,
  type PayoutField,
  payingElsewhere as payingElsewhereText,
  payoutField,
} from "./copy";
import { refusalIn } from "./decision-text";
import type { QueueRow } from "./queue-row";
import { canDecide, type Shell } from "./ui";

/** In the withdrawal queue, copy the selected payout's IBAN, payee's name or amount (tutar). */
export const COPY_KEYS = ["i", "n", "t"];
export type CopyKey = "i" | "n" | "t";

/**
 * A payout being paid out by an operator: copying its fields marks it as theirs, the mark can be let
 * go of, and a colleague's mark is said before anything is copied or decided.
 */
export function queuePaying(props: {
  me: Shell["me"];
  t: Shell["t"];
  notify(text: string, bad?: boolean): void;
  refuse(text: string): void;
  reloadNow: { current: () => void };
}) {
  const { me, t, notify, refuse, reloadNow } = props;

  /**
   * A payout's field onto the clipboard by key, as a bank's form takes it, for the operator who
   * works the list from the keyboard: the notice names what was copied, to be checked against the
   * bank's screen.
   */
  async function copyField(row: QueueRow, key: CopyKey) {
    const field: PayoutField = key === "i" ? "iban" : key === "n" ? "payee" : "amount";
    const copied = payoutField(row, field);
    if (copied === null) return refuse(`#${row.id}: ${t("ibanMissing")}`);
    if (!(await markPaying(row))) return;
    if (!(await copyText(copied.value))) return refuse(t("copyValueFailed"));
    notify(copiedNotice(t, row.id, field, copied.shown));
  }

  /**
   * Before a payout's field is copied (the start of paying it out): marked as this operator's, so a
   * colleague does not send the same money. Someone else's already: said so, nothing copied (they
   * may be sending it now); "Bırak" on their mark lets go of it first. Viewers copy without a mark.
   */
  async function markPaying(row: QueueRow): Promise<boolean> {
    if (row.type !== "withdrawal" || !canDecide(me.role)) return true;
    if (row.paying_by && row.paying_by !== me.email) {
      refuse(payingElsewhere(row));
      return false;
    }
    // Asked even when the list shows this operator's own mark: a list a few seconds old may not
    // yet show that a colleague let it go and took it (the server answers at once for one's own).
    const res = await api<{ paying_by?: string; paying_since?: string }>(
      "POST",
      `/transactions/${row.id}/paying`,
      {
        paying: true,
      },
    );
    if (res.ok) {
      if (row.paying_by !== me.email) reloadNow.current();
      return true;
    }
    const { paying_by: by, paying_since: since } = res.json;
    refuse(
      by
        ? payingElsewhere({ ...row, paying_by: by, paying_since: since ?? null })
        : `#${row.id}: ${refusalIn(res.json, res.status)}`,
    );
    reloadNow.current();
    return false;
  }
  const payingElsewhere = (row: QueueRow) =>
    payingElsewhereText(t, row, row.paying_by ?? "", row.paying_since ?? null);
  /** Lets go of a payout's mark: one's own at once, a colleague's after asking. */
  async function releasePaying(row: QueueRow) {
    if (row.paying_by !== me.email && !confirm(`${payingElsewhere(row)}\n${t("confirmReleasePaying")}`))
      return;
    // Named: if the holder let go and a colleague took it meanwhile, that colleague's mark stays.
    const res = await api<{ paying_by?: string; paying_since?: string }>(
      "POST",
      `/transactions/${row.id}/paying`,
      { paying: false, holder: row.paying_by },
    );
    if (!res.ok) {
      const { paying_by: by, paying_since: since } = res.json;
      notify(
        by
          ? payingElsewhere({ ...row, paying_by: by, paying_since: since ?? null })
          : `#${row.id}: ${refusalIn(res.json, res.status)}`,
        true,
      );
    }
    reloadNow.current();
  }
  return { copyField, markPaying, releasePaying, payingElsewhere };
}
