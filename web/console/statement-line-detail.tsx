import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { LineDetailView as LineWithCandidates } from "../../src/reconciliation/line-views.js";
import { api } from "./api";
import { refusalIn } from "./decision-text";
import { RefundOffer } from "./line-refund";
import { Stops } from "./line-stops";
import {
  bookedText,
  evidenceWords,
  lineAmount,
  lineStateText,
  type StatementLine,
  sourceText,
} from "./statement-words";
import { statusText } from "./transaction-detail";
import { canDecide, formValue, money2, payerName, useLoad, useShell, when } from "./ui";
import { fill } from "./words";

/** A credit in these states still waits for a person; only the first two may approve a deposit. */
const APPROVING = ["suggested", "unmatched"];
const REFUNDABLE = ["suggested", "unmatched", "after_cancellation"];

/**
 * One line with what payintake found for it: the deposits it may pay, each with its evidence in
 * words and (for an operator) an approval for the amount the bank shows, and "not ours" for money
 * to be sent back. A line paid after cancellation approves nothing: it says what to do instead.
 */
export function LineDetail(props: { id: number; names: Map<number, string>; onChanged(): void }) {
  const { t, lang, me, notify } = useShell();
  const [line, reload] = useLoad(
    async () => {
      const res = await api<LineWithCandidates>("GET", `/statement-lines/${props.id}`);
      if (!res.ok) notify(refusalIn(res.json, res.status), true);
      return res.ok ? res.json : undefined;
    },
    String(props.id),
    15_000,
  );
  useShownOnce(line?.id === props.id ? props.id : undefined);
  if (!line) return null;
  const changed = () => {
    reload();
    props.onChanged();
  };
  const credit = line.direction === "credit";
  const mayApprove = credit && canDecide(me.role) && APPROVING.includes(line.state);
  const fields: [string, string, ComponentChildren][] = [
    ["booked_at", t("booked"), bookedText(line, lang)],
    // Isolated: a name written right to left reorders nothing around it.
    ["sender_name", t("sender"), line.sender_name && <bdi>{line.sender_name}</bdi>],
    ["sender_iban", "IBAN", line.sender_iban],
    ["description", t("description"), line.description],
    ["bank_ref", t("bankRef"), line.bank_ref],
    ["account_id", t("account"), props.names.get(line.account_id) ?? `#${line.account_id}`],
    ["source", t("kind"), sourceText(line.source, t)],
    ["decided_by", t("fDecidedBy"), line.decided_by],
    ["decided_at", t("fDecidedAt"), line.decided_at && when(line.decided_at, lang)],
  ];
  return (
    <article id="line-detail" class="panel">
      <h2 id="ld-title">
        #{line.id} · {line.direction === "debit" ? "−" : ""}
        {lineAmount(line)} · {lineStateText(line.state, t)}
      </h2>
      {line.held && (
        <p id="ld-held" class="error">
          {line.held.code === "crowded"
            ? t("heldCrowded")
            : line.held.difference === null
              ? t("heldNoBalances")
              : fill(t("heldUnbalanced"), { difference: money2(line.held.difference) })}
        </p>
      )}
      {line.state === "after_cancellation" && (
        <p id="ld-after-cancellation" class="error">
          {t("afterCancellation")}
        </p>
      )}
      <dl class="fields">
        {fields
          .filter(([, , v]) => v)
          .map(([k, label, v]) => (
            <div key={k} data-field={k}>
              <dt>{label}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        {line.transaction_id !== null && (
          <div data-field="transaction_id">
            <dt>{t("fTxId")}</dt>
            <dd>
              <a
                href={`#/transactions/${line.transaction_id}`}
                aria-label={fill(t("txDetailOf"), { id: String(line.transaction_id) })}
              >
                #{line.transaction_id}
              </a>
            </dd>
          </div>
        )}
      </dl>
      <RefundLinks line={line} />
      {!credit && <p class="help">{t("notDeposit")}</p>}
      {!credit && canDecide(me.role) && line.refund_candidates !== null && (
        <RefundOffer line={line} candidates={line.refund_candidates} onChanged={changed} />
      )}
      <Stops
        id="ld-stopped"
        title={t("stoppedLine")}
        stops={line.stopped_by.filter(
          (s) => s.deposit_id === null || !line.candidates.some((c) => c.transaction.id === s.deposit_id),
        )}
      />
      {credit && REFUNDABLE.includes(line.state) && (
        <Candidates line={line} mayApprove={mayApprove} onChanged={changed} />
      )}
      {mayApprove && <ApproveById line={line} onChanged={changed} />}
      {credit && canDecide(me.role) && REFUNDABLE.includes(line.state) && (
        <NotOurs line={line} onChanged={changed} />
      )}
    </article>
  );
}

/** A refund's other end: the credit a debit paid back, or the debit that paid a credit back (or none yet). */
function RefundLinks({ line }: { line: LineWithCandidates }) {
  const { t } = useShell();
  const other = line.refund_of ?? line.refunded_by;
  if (other !== null)
    return (
      <p id="ld-refund">
        {t(line.refund_of !== null ? "refundOf" : "refundedBy")}:{" "}
        <a href={`#/statement-lines/${other}`}>#{other}</a>
      </p>
    );
  if (line.refund_due)
    return (
      <p id="ld-refund" class="help">
        {t("refundWaiting")}
      </p>
    );
  return null;
}

/**
 * A line opened low in a long list, or on a phone (where the detail is under the list), would open
 * out of sight with nothing on screen changing: brought into view once per line, not at each refresh.
 */
function useShownOnce(id: number | undefined) {
  const shown = useRef<number | null>(null);
  useEffect(() => {
    if (id === undefined || shown.current === id) return;
    shown.current = id;
    const el = document.getElementById("line-detail");
    const top = el?.getBoundingClientRect().top;
    if (el && top !== undefined && (top < 0 || top > window.innerHeight - 120))
      el.scrollIntoView({ block: "start" });
  }, [id]);
}

/** Approves a deposit with the line, for the bank's amount; the server's refusal is the notice. */
function useApprove(line: StatementLine, onChanged: () => void) {
  const { t, notify } = useShell();
  return async (txId: number, question?: string) => {
    if (question && !confirm(question)) return;
    const res = await api("POST", `/statement-lines/${line.id}/approve`, { transaction_id: txId });
    if (!res.ok) return notify(`#${line.id}: ${refusalIn(res.json, res.status)}`, true);
    notify(`#${line.id}: ${fill(t("lineApprovedTx"), { tx: txId, amount: money2(line.amount) })}`);
    onChanged();
  };
}

function Candidates(props: { line: LineWithCandidates; mayApprove: boolean; onChanged(): void }) {
  const { t, lang } = useShell();
  const { line } = props;
  const approve = useApprove(line, props.onChanged);
  const bank = money2(line.amount);
  return (
    <>
      <h3>{t("candidates")}</h3>
      {line.candidates.length === 0 && (
        <p class="help" id="no-candidates">
          {t("noCandidates")}
        </p>
      )}
      <ul id="candidates" class="candidates">
        {line.candidates.map(({ transaction: tx, score, evidence }) => {
          const asked = money2(tx.amount);
          const differs = asked !== bank;
          const amountText = fill(t(differs ? "bankAmountDiffers" : "bankAmountSame"), { bank, asked });
          const pending = tx.status === "pending";
          return (
            <li key={tx.id} data-tx={tx.id} class="candidate">
              <div>
                <a href={`#/transactions/${tx.id}`} aria-label={fill(t("txDetailOf"), { id: String(tx.id) })}>
                  #{tx.id}
                </a>{" "}
                · <strong>{asked} TL</strong> · <bdi>{payerName(tx)}</bdi> · <bdi>{tx.reference}</bdi>
              </div>
              <div class="muted">
                {when(tx.created_at, lang)} ·{" "}
                <span class={`status ${tx.status}`}>{statusText(tx.status, t)}</span>
              </div>
              <div class="evidence">
                {evidenceWords(evidence, t).join(" · ")}
                {score !== null && ` (${t("score")} ${score})`}
              </div>
              <Stops
                title={t("stoppedDeposit")}
                stops={line.stopped_by.filter((s) => s.deposit_id === tx.id)}
              />
              {props.mayApprove && pending && (
                <div class="approve-with">
                  <p class={differs ? "amount-note differs" : "amount-note"}>{amountText}</p>
                  <button
                    type="button"
                    class="approve-line"
                    onClick={() =>
                      approve(
                        tx.id,
                        differs
                          ? `${amountText}\n${fill(t("confirmLineApprove"), { tx: tx.id })}`
                          : undefined,
                      )
                    }
                  >
                    {t("approveAs")} {bank} TL
                  </button>
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

/**
 * A deposit the matching did not name (an unmatched credit: the payer wrote nothing, a colleague
 * found it by search), approved by its number; the server checks it was shown this line's account.
 */
function ApproveById({ line, onChanged }: { line: StatementLine; onChanged(): void }) {
  const { t } = useShell();
  const approve = useApprove(line, onChanged);
  function submit(e: Event) {
    e.preventDefault();
    const txId = Number(formValue(e.currentTarget as HTMLFormElement, "transaction_id"));
    if (!Number.isSafeInteger(txId) || txId <= 0) return;
    void approve(txId, `${fill(t("confirmLineApprove"), { tx: txId })}\n${money2(line.amount)} TL`);
  }
  return (
    <form id="approve-by-id" class="inline-form" onSubmit={submit}>
      <label class="field">
        <span>{t("approveById")}</span>
        <input name="transaction_id" inputMode="numeric" pattern="[0-9]+" size={8} required />
      </label>
      <button type="submit" class="secondary">
        {t("approveAs")} {money2(line.amount)} TL
      </button>
    </form>
  );
}

/** "Bizim değil": the note field first (Enter marks, Esc takes it back), as a rejection's is. */
function NotOurs({ line, onChanged }: { line: StatementLine; onChanged(): void }) {
  const { t, notify } = useShell();
  const [open, setOpen] = useState(false);
  const noteField = useRef<HTMLInputElement>(null);
  // Opened to type the note: the field takes the keys at once, before the form is painted
  // (useEffect would run after it, and a key typed meanwhile would go to the page).
  useLayoutEffect(() => {
    if (open) noteField.current?.focus();
  }, [open]);
  if (!open)
    return (
      <p>
        <button type="button" id="not-ours" class="reject" onClick={() => setOpen(true)}>
          {t("notOurs")}
        </button>
      </p>
    );
  async function submit(e: Event) {
    e.preventDefault();
    const note = formValue(e.currentTarget as HTMLFormElement, "note");
    const res = await api("POST", `/statement-lines/${line.id}/not-ours`, note ? { note } : {});
    if (!res.ok) return notify(`#${line.id}: ${refusalIn(res.json, res.status)}`, true);
    notify(`#${line.id}: ${t("markedNotOurs")}`);
    setOpen(false);
    onChanged();
  }
  return (
    <form
      id="not-ours-form"
      class="inline-form"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === "Escape") setOpen(false);
      }}
    >
      <label class="field">
        <span>
          {t("notOurs")}: {t("note")}
        </span>
        <input name="note" id="not-ours-note" maxLength={500} ref={noteField} />
      </label>
      <button type="submit" class="reject">
        {t("markNotOurs")}
      </button>
      <button type="button" class="secondary" onClick={() => setOpen(false)}>
        {t("cancel")}
      </button>
    </form>
  );
}
