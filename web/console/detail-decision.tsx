import { useState } from "preact/hooks";
import type { PayoutMarkView, TransactionView } from "../../src/transactions/views.js";
import { api } from "./api";
import { ibanForBank, payingElsewhere } from "./copy";
import { approveLabel, refusalIn, typedApproval } from "./decision-text";
import { money, payerName, useShell } from "./ui";

/** What the decision needs of the transaction shown, with a pending payout's mark (ADR 0010). */
export type Decidable = Pick<
  TransactionView,
  "id" | "type" | "amount" | "iban" | "iban_valid" | "first_name" | "middle_name" | "last_name"
> &
  Partial<PayoutMarkView>;

/**
 * Approve or reject from a transaction's detail: for the operator who found it by search (a
 * reference a merchant's support gave, a payer's name from a statement line) rather than in the
 * queue. Sent at once after a confirmation that names the transaction and the sum: there is no
 * row leaving a list here to take back, so the question comes before, not an undo after.
 */
export function DetailDecision(props: { tx: Decidable; onDecided: () => void }) {
  const { t, notify, me } = useShell();
  const { tx } = props;
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);

  async function decide(kind: "approve" | "reject") {
    const body: Record<string, string> = {};
    let question: string;
    // A payout is confirmed against what was sent: the sum, to whom and to which IBAN.
    const payout =
      tx.type === "withdrawal"
        ? `#${tx.id}: ${money(tx.amount)} TL → ${payerName(tx)} · ${tx.iban === null ? "—" : ibanForBank(tx.iban)}`
        : null;
    if (kind === "approve") {
      const typed = typedApproval(tx, amount, t, me.role);
      if (!typed.ok) return notify(typed.message, true);
      if (typed.change && typed.amount) {
        body.amount = typed.amount;
        question = `${typed.change}\n${t("confirmAmount")}`;
      } else if (payout) question = `${payout}\n${t("confirmApprovePaid")}`;
      else question = `#${tx.id}: ${money(tx.amount)} TL\n${t("confirmApprove")}`;
      if (tx.iban_valid === false) question += `\n${t("confirmBadIban")}`;
    } else if (payout) {
      question = `${payout}\n${t("confirmRejectPayout")}\n${t("confirmRejectDetail")}`;
    } else {
      question = `#${tx.id}: ${money(tx.amount)} TL\n${t("confirmRejectDetail")}`;
    }
    // A colleague said they are paying it: deciding it here may be deciding their payout (a
    // rejection sent while their transfer leaves tells the merchant it was not paid).
    if (tx.paying_by && tx.paying_by !== me.email)
      question = `${payingElsewhere(t, tx, tx.paying_by, tx.paying_since ?? null)}\n${question}\n${t("confirmDecidePaying")}`;
    // The note goes with either decision (the detail has one field for both, unlike the queue's row).
    if (note.trim()) body.note = note.trim();
    if (!confirm(question)) return;
    setBusy(true);
    try {
      const res = await api("POST", `/transactions/${tx.id}/${kind}`, body);
      notify(
        `#${tx.id}: ${res.ok ? t(kind === "approve" ? "approved" : "rejected") : refusalIn(res.json, res.status)}`,
        !res.ok,
      );
      props.onDecided();
    } finally {
      setBusy(false);
    }
  }

  return (
    <form id="d-decide" class="filters" onSubmit={(e) => e.preventDefault()}>
      {tx.type === "deposit" && (
        <input
          name="amount"
          inputMode="decimal"
          size={10}
          autoComplete="off"
          placeholder={t("otherAmount")}
          aria-label={t("otherAmount")}
          value={amount}
          onInput={(e) => setAmount(e.currentTarget.value)}
          // As in the queue: Enter approves with the amount typed (confirmed first).
          onKeyDown={(e) => {
            if (e.key !== "Enter") return;
            e.preventDefault();
            if (!e.repeat && !busy) void decide("approve");
          }}
        />
      )}
      <button type="button" class="approve" disabled={busy} onClick={() => decide("approve")}>
        {tx.type === "withdrawal" ? t("approvePaid") : approveLabel(amount, t)}
      </button>
      <input
        name="note"
        size={24}
        maxLength={500}
        autoComplete="off"
        placeholder={t("note")}
        aria-label={t("note")}
        value={note}
        onInput={(e) => setNote(e.currentTarget.value)}
      />
      <button type="button" class="reject" disabled={busy} onClick={() => decide("reject")}>
        {t("reject")}
      </button>
    </form>
  );
}
