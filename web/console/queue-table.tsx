import { useLayoutEffect, useRef } from "preact/hooks";
import { CopyButton, IbanText } from "./copy";
import { approveLabel, decisionName } from "./decision-text";
import type { QueueRow } from "./queue-row";
import { age, canDecide, money, payerName, useShell } from "./ui";
import { fill } from "./words";

/** What a row's buttons and fields do (Queue). */
export interface RowActions {
  select(id: number): void;
  decide(row: QueueRow, kind: "approve" | "reject", note?: string, byKey?: boolean): void;
  /** Whether a pointer's click on the row's approve or reject counts (useMovedGuard). */
  settled(id: number, e: MouseEvent): boolean;
  setRejecting(id: number | null): void;
  markPaying(row: QueueRow): Promise<boolean>;
  releasePaying(row: QueueRow): void;
  setAmounts(amounts: Record<number, string>): void;
}

/** The queue's rows, the selected one marked, each decided in place. */
export function QueueTable(props: {
  type: "deposit" | "withdrawal";
  list: QueueRow[];
  current: QueueRow | undefined;
  rejecting: number | null;
  noteBack: { id: number; note: string } | null;
  amounts: Record<number, string>;
  busy: boolean;
  firmNames: Map<number, string>;
  actions: RowActions;
}) {
  const { t } = useShell();
  const { type, current, rejecting, noteBack } = props;
  return (
    <table class="queue">
      <thead>
        <tr>
          <th>#</th>
          <th>{t("age")}</th>
          <th>{t("amount")}</th>
          {/* A withdrawal's person is paid, not paying: the bank's form calls them the recipient. */}
          <th>{t(type === "deposit" ? "payer" : "payee")}</th>
          <th>{t("firm")}</th>
          <th>{type === "deposit" ? t("account") : "IBAN"}</th>
          <th>{t("actions")}</th>
        </tr>
      </thead>
      <tbody id="rows">
        {props.list.map((r) => (
          <QueueRowView
            key={r.id}
            r={r}
            selected={r === current}
            rejecting={rejecting === r.id}
            note={noteBack?.id === r.id ? noteBack.note : ""}
            amounts={props.amounts}
            busy={props.busy}
            firmNames={props.firmNames}
            actions={props.actions}
          />
        ))}
      </tbody>
    </table>
  );
}

function QueueRowView(props: {
  r: QueueRow;
  selected: boolean;
  rejecting: boolean;
  /** The note of a rejection taken back, shown again in the note field. */
  note: string;
  amounts: Record<number, string>;
  busy: boolean;
  firmNames: Map<number, string>;
  actions: RowActions;
}) {
  const { t, me } = useShell();
  const { r, amounts, busy, firmNames } = props;
  const { decide, settled, setRejecting, markPaying, releasePaying, setAmounts } = props.actions;
  // A payout is approved once its money has left: the button says so.
  const approveText = r.type === "withdrawal" ? t("approvePaid") : approveLabel(amounts[r.id], t);
  return (
    <tr
      data-id={r.id}
      tabIndex={-1}
      class={`${props.selected ? "selected" : ""}${r.paying_by && r.paying_by !== me.email ? " paying-other" : ""}`.trim()}
      aria-current={props.selected ? "true" : undefined}
      // Not a click on its approve or reject: that decision has selected the next row by
      // then (the button's focus selected this one before).
      onClick={(e) => {
        if (!(e.target as Element).closest("button")) props.actions.select(r.id);
      }}
      onFocusIn={() => props.actions.select(r.id)}
    >
      <td class="id">
        <a href={`#/transactions/${r.id}`} aria-label={fill(t("txDetailOf"), { id: String(r.id) })}>
          {r.id}
        </a>
      </td>
      <td class="age" data-label={t("age")}>
        {age(r.created_at, t)}
      </td>
      <td class="amount">
        {money(r.amount)} TL
        {r.type === "withdrawal" && <CopyButton tx={r} field="amount" before={() => markPaying(r)} />}
      </td>
      <td class="payer">
        <bdi>{payerName(r)}</bdi>
        {r.type === "withdrawal" && <CopyButton tx={r} field="payee" before={() => markPaying(r)} />}
        <div class="sub">
          <bdi>{r.username}</bdi> · <bdi>{r.user_id}</bdi>
        </div>
      </td>
      <td data-label={t("firm")} class="firm">
        {firmNames.get(r.firm_id) ?? `#${r.firm_id}`}
        <div class="sub">
          <bdi>{r.reference}</bdi>
        </div>
      </td>
      {r.type === "deposit" ? (
        <td data-label={t("account")} class="account">
          {r.assigned_bank_name}
          {r.assigned_iban !== null && (
            <div class="sub">
              <IbanText iban={r.assigned_iban} />
            </div>
          )}
        </td>
      ) : (
        <td data-label="IBAN" class="account payout-iban">
          {r.iban !== null && (
            <>
              <IbanText iban={r.iban} />
              <CopyButton tx={r} field="iban" before={() => markPaying(r)} />
            </>
          )}
          <div class="sub method">{r.method.toUpperCase()}</div>
          {r.iban === null ? (
            <div class="sub bad-iban">{t("ibanMissing")}</div>
          ) : (
            r.iban_valid === false && <div class="sub bad-iban">{t("ibanInvalid")}</div>
          )}
          {r.paying_by && (
            <div class={`sub paying${r.paying_by === me.email ? " mine" : ""}`}>
              {r.paying_by === me.email ? t("payingMine") : fill(t("payingBy"), { who: r.paying_by })} ·{" "}
              {age(r.paying_since ?? new Date().toISOString(), t)}{" "}
              {canDecide(me.role) && (
                <button type="button" class="link release-paying" onClick={() => releasePaying(r)}>
                  {t("releasePaying")}
                </button>
              )}
            </div>
          )}
        </td>
      )}
      <td class="actions">
        {!canDecide(me.role) ? null : props.rejecting ? (
          <RejectForm
            note={props.note}
            onReject={(note) => decide(r, "reject", note)}
            onCancel={() => setRejecting(null)}
            busy={busy}
          />
        ) : (
          <div class="decide">
            {r.type === "deposit" && (
              <input
                class="edit-amount"
                inputMode="decimal"
                placeholder={t("otherAmount")}
                aria-label={`${t("amount")} #${r.id}`}
                value={amounts[r.id] ?? ""}
                onInput={(e) => setAmounts({ ...amounts, [r.id]: e.currentTarget.value })}
                // Typed from the bank statement, decided without the mouse: Enter approves
                // with it (confirmed first, as the button is), Esc takes it back and gives
                // the keys back to the row.
                onKeyDown={(e) => {
                  if (e.key === "Enter") {
                    e.preventDefault();
                    if (!e.repeat) decide(r, "approve", undefined, true);
                  } else if (e.key === "Escape") {
                    const { [r.id]: _, ...rest } = amounts;
                    setAmounts(rest);
                    e.currentTarget.closest("tr")?.focus();
                  }
                }}
              />
            )}{" "}
            <button
              type="button"
              class="approve"
              disabled={busy}
              aria-label={decisionName(approveText, r)}
              onClick={(e) => settled(r.id, e) && decide(r, "approve")}
            >
              {approveText}
            </button>{" "}
            <button
              type="button"
              class="reject"
              disabled={busy}
              aria-label={decisionName(t("reject"), r)}
              onClick={(e) => settled(r.id, e) && setRejecting(r.id)}
            >
              {t("reject")}
            </button>
          </div>
        )}
      </td>
    </tr>
  );
}

function RejectForm(props: { note: string; onReject(note: string): void; onCancel(): void; busy: boolean }) {
  const { t } = useShell();
  const input = useRef<HTMLInputElement>(null);
  // Before the browser paints: the key typed right after `r` lands in the note, not the page.
  useLayoutEffect(() => input.current?.focus(), []);
  return (
    <form
      class="reject-form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onReject(input.current?.value ?? "");
      }}
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        // The keys go back to the row, as from the amount field (not to the page's body).
        const row = e.currentTarget.closest("tr");
        props.onCancel();
        row?.focus();
      }}
    >
      <input
        ref={input}
        class="note"
        maxLength={500}
        placeholder={t("note")}
        aria-label={t("note")}
        defaultValue={props.note}
      />{" "}
      <button type="submit" class="reject" disabled={props.busy}>
        {t("confirmReject")}
      </button>{" "}
      <button type="button" class="link" onClick={props.onCancel}>
        {t("cancel")}
      </button>
    </form>
  );
}
