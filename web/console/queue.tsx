import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api";
import { age, amountInput, canDecide, useLoad, useShell } from "./ui";

export interface QueueRow {
  id: number;
  type: "deposit" | "withdrawal";
  created_at: string;
  amount: string;
  first_name: string;
  last_name: string;
  username: string;
  user_id: string;
  firm_id: number;
  reference: string;
  assigned_bank_name: string | null;
  assigned_iban: string | null;
  iban: string | null;
  iban_valid: boolean | null;
}

/**
 * Pending deposits or withdrawals, refreshing every 5 s. Decisions happen in the row: approve
 * (with another amount typed in), or reject with a note typed in place. j/k select, a approves,
 * r opens the note, Enter confirms, Esc cancels. A row decided elsewhere drops out on refresh, and
 * a second decision is refused by the server (409), shown as the notice.
 */
export function Queue({ type }: { type: "deposit" | "withdrawal" }) {
  const { t, me, notify } = useShell();
  const [order, setOrder] = useState<"oldest" | "newest">("oldest");
  const [rows, reload] = useLoad(
    async () => (await api<QueueRow[]>("GET", `/queue?type=${type}&order=${order}`)).json,
    `${type}:${order}`,
    5_000,
  );
  const [selected, setSelected] = useState<number | null>(null);
  const [rejecting, setRejecting] = useState<number | null>(null);
  const [amounts, setAmounts] = useState<Record<number, string>>({});
  const list = Array.isArray(rows) ? rows : [];
  const current = list.find((r) => r.id === selected) ?? list[0];

  async function decide(row: QueueRow, kind: "approve" | "reject", note?: string) {
    const body: Record<string, string> = {};
    const amount = amountInput(amounts[row.id]);
    if (kind === "approve" && amount) body.amount = amount;
    if (kind === "reject" && note?.trim()) body.note = note.trim();
    const res = await api("POST", `/transactions/${row.id}/${kind}`, body);
    notify(
      `#${row.id}: ${res.ok ? t(kind === "approve" ? "approved" : "rejected") : res.json.message}`,
      !res.ok,
    );
    if (res.ok) {
      setRejecting(null);
      const index = list.indexOf(row);
      setSelected(list[index + 1]?.id ?? list[index - 1]?.id ?? null);
    }
    reload();
  }

  const keys = useRef({ list, current, rejecting, decide });
  keys.current = { list, current, rejecting, decide };
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const target = e.target as HTMLElement;
      if (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) || e.ctrlKey || e.metaKey || e.altKey)
        return;
      const { list, current, rejecting, decide } = keys.current;
      if (!current) return;
      const i = list.indexOf(current);
      if (e.key === "j") setSelected(list[Math.min(list.length - 1, i + 1)]?.id ?? null);
      else if (e.key === "k") setSelected(list[Math.max(0, i - 1)]?.id ?? null);
      else if (e.key === "a" && rejecting === null && canDecide(me.role)) decide(current, "approve");
      else if (e.key === "r" && canDecide(me.role)) setRejecting(current.id);
      else return;
      e.preventDefault();
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  return (
    <section id="queue">
      <div class="bar">
        <h1>{t(type === "deposit" ? "pendingDeposits" : "pendingWithdrawals")}</h1>
        <span class="count">{rows ? list.length : ""}</span>
        <label class="inline">
          {t("order")}{" "}
          <select id="order" value={order} onChange={(e) => setOrder(e.currentTarget.value as "oldest")}>
            <option value="oldest">{t("oldest")}</option>
            <option value="newest">{t("newest")}</option>
          </select>
        </label>
      </div>
      <p class="help">{t("keys")}</p>
      <table class="queue">
        <thead>
          <tr>
            <th>#</th>
            <th>{t("age")}</th>
            <th>{t("amount")}</th>
            <th>{t("payer")}</th>
            <th>{t("firm")}</th>
            <th>{type === "deposit" ? t("account") : "IBAN"}</th>
            <th>{t("actions")}</th>
          </tr>
        </thead>
        <tbody id="rows">
          {list.map((r) => (
            <tr
              key={r.id}
              data-id={r.id}
              class={r === current ? "selected" : ""}
              onClick={() => setSelected(r.id)}
            >
              <td>
                <a href={`#/transactions/${r.id}`}>{r.id}</a>
              </td>
              <td>{age(r.created_at)}</td>
              <td class="amount">{r.amount} TL</td>
              <td>
                {r.first_name} {r.last_name}
                <div class="sub">
                  {r.username} · {r.user_id}
                </div>
              </td>
              <td>
                {r.firm_id}
                <div class="sub">{r.reference}</div>
              </td>
              {r.type === "deposit" ? (
                <td>
                  {r.assigned_bank_name}
                  <div class="sub">{r.assigned_iban}</div>
                </td>
              ) : (
                <td>
                  {r.iban}
                  {r.iban_valid === false && <div class="sub bad-iban">{t("ibanInvalid")}</div>}
                </td>
              )}
              <td class="actions">
                {!canDecide(me.role) ? null : rejecting === r.id ? (
                  <RejectForm
                    onReject={(note) => decide(r, "reject", note)}
                    onCancel={() => setRejecting(null)}
                  />
                ) : (
                  <>
                    {r.type === "deposit" && (
                      <input
                        class="edit-amount"
                        inputMode="decimal"
                        placeholder={t("otherAmount")}
                        aria-label={`${t("amount")} #${r.id}`}
                        value={amounts[r.id] ?? ""}
                        onInput={(e) => setAmounts({ ...amounts, [r.id]: e.currentTarget.value })}
                      />
                    )}{" "}
                    <button type="button" class="approve" onClick={() => decide(r, "approve")}>
                      {amounts[r.id]?.trim() ? `${t("approveAs")} ${amounts[r.id]} TL` : t("approve")}
                    </button>{" "}
                    <button type="button" class="reject" onClick={() => setRejecting(r.id)}>
                      {t("reject")}
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows && list.length === 0 && <p class="help empty">{t("empty")}</p>}
    </section>
  );
}

function RejectForm(props: { onReject(note: string): void; onCancel(): void }) {
  const { t } = useShell();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <form
      class="reject-form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onReject(input.current?.value ?? "");
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") props.onCancel();
      }}
    >
      <input ref={input} class="note" maxLength={500} placeholder={t("note")} aria-label={t("note")} />{" "}
      <button type="submit" class="reject">
        {t("confirmReject")}
      </button>{" "}
      <button type="button" class="link" onClick={props.onCancel}>
        {t("cancel")}
      </button>
    </form>
  );
}
