import { useEffect, useRef, useState } from "preact/hooks";
import { formatMinor } from "../../src/domain/money.js";
import type { TransactionDetail as Detail } from "../../src/transactions/detail.js";
import type { TransactionView } from "../../src/transactions/views.js";
import { api } from "./api";
import { Change } from "./audit";
import { CopyButton, IbanText, type PayoutField, payingElsewhere } from "./copy";
import { refusalIn } from "./decision-text";
import { DetailDecision } from "./detail-decision";
import { lastResultText, reasonText, word } from "./detail-words";
import type { Lang, T } from "./i18n";
import { bookedText, lineAmount, sourceText } from "./statement-words";
import {
  age,
  canDecide,
  isAdmin,
  money,
  money2,
  payerName,
  useFirmNames,
  useLoad,
  useShell,
  when,
} from "./ui";
import { fill } from "./words";

/** A transaction as the search lists it. */
export type TransactionRow = TransactionView;

/** One transaction, on its own screen (transactions.tsx): everything known of it, and its decision. */
export function TransactionDetail({ id }: { id: number }) {
  const { t, lang, me, notify } = useShell();
  const firmNames = useFirmNames();
  const [d, reload] = useLoad(
    async () => {
      const res = await api<Detail>("GET", `/transactions/${id}`);
      if (!res.ok) notify(refusalIn(res.json, res.status), true);
      return res.ok ? res.json : undefined;
      // Refreshed: a callback being retried, or a decision made elsewhere, shows without a reload.
    },
    String(id),
    15_000,
  );
  // A screen of its own: it opens at its top, and a screen reader or keyboard starts at its title.
  const shown = useRef<number | null>(null);
  useEffect(() => {
    if (!d || d.id !== id || shown.current === id) return;
    shown.current = id;
    window.scrollTo(0, 0);
    document.getElementById("d-title")?.focus({ preventScroll: true });
  }, [d, id]);
  if (!d) return null;
  const fields = detailFields(d, t, lang, firmNames);
  /**
   * A pending payout's field copied from here is being paid out from here: marked as this
   * operator's (the queue shows it to colleagues); a colleague's mark says so and copies nothing.
   */
  async function markPaying(): Promise<boolean> {
    if (d?.status !== "pending" || !canDecide(me.role)) return true;
    const res = await api<{ paying_by?: string; paying_since?: string }>(
      "POST",
      `/transactions/${d.id}/paying`,
      {
        paying: true,
      },
    );
    if (res.ok) {
      // The mark is new: the detail shows it (a colleague's console shows it too).
      if (d.paying_by !== me.email) reload();
      return true;
    }
    const { paying_by: who, paying_since: since } = res.json;
    notify(
      who ? payingElsewhere(t, d, who, since ?? null) : `#${d.id}: ${refusalIn(res.json, res.status)}`,
      true,
    );
    return false;
  }
  async function redeliver(callbackId: number) {
    const res = await api("POST", `/callbacks/${callbackId}/redeliver`);
    notify(res.ok ? `#${d?.id}: ${t("redelivered")}` : refusalIn(res.json, res.status), !res.ok);
    setTimeout(reload, 500);
  }
  return (
    <article id="detail" class="panel">
      <h2 id="d-title" tabIndex={-1}>
        #{d.id} · <bdi>{d.reference}</bdi> · {statusText(d.status, t)}
      </h2>
      {d.status === "pending" && canDecide(me.role) && <DetailDecision tx={d} onDecided={reload} />}
      <dl id="d-fields">
        {fields
          .filter(([, , v]) => v !== null && v !== undefined && v !== "")
          .map(([k, label, v]) => (
            <div key={k} data-field={k}>
              <dt>{label}</dt>
              <dd>
                {k === "iban" && d.iban !== null ? (
                  <IbanText iban={d.iban} />
                ) : k === "account" && d.assigned_iban ? (
                  <>
                    {d.assigned_bank_name} <IbanText iban={d.assigned_iban} />
                  </>
                ) : k === "iban_valid" && d.iban_valid === false ? (
                  <span class="bad-iban">{t("ibanInvalid")}</span>
                ) : k === "statement_line" && d.statement_line ? (
                  <SettlingLineText line={d.statement_line} />
                ) : (
                  String(v)
                )}
                {/* What a payout's bank form asks for, copied as the form takes it. */}
                {d.type === "withdrawal" && copyOf(k, d, markPaying)}
                {k === "national_id" && isAdmin(me.role) && (
                  <NationalId key={d.id} id={d.id} t={t} onShown={reload} />
                )}
              </dd>
            </div>
          ))}
      </dl>
      <DetailHistory history={d.history} />
      <DetailRouting routing={d.routing} />
      <DetailCallbacks callbacks={d.callbacks} redeliver={redeliver} />
    </article>
  );
}

function DetailHistory({ history }: { history: Detail["history"] }) {
  const { t, lang } = useShell();
  return (
    <>
      <h3>{t("history")}</h3>
      {history.length === 0 && <p class="help empty">{t("noDecisionYet")}</p>}
      <ul id="d-history">
        {history.map((h) => (
          <li key={h.at + h.action}>
            {when(h.at, lang)} {h.actor} {historyAction(h.action, t)}
            <div class="change">
              <HistoryChange before={h.before} after={h.after} t={t} />
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

function DetailRouting({ routing }: { routing: Detail["routing"] }) {
  const { t, lang } = useShell();
  return (
    <>
      <h3>{t("routing")}</h3>
      {routing.length === 0 && <p class="help empty">{t("noRoutingYet")}</p>}
      <ul id="d-routing">
        {routing.map((s) => (
          <li key={`${s.account_id}${s.outcome}`}>
            #{s.account_id}{" "}
            {s.channel ??
              (s.channel_id == null ? word("manual", lang) : `${word("channel", lang)} #${s.channel_id}`)}
            : {word(s.outcome, lang)}
            {s.reason ? ` (${reasonText(s.reason, lang)})` : ""} {s.ms} ms
          </li>
        ))}
      </ul>
    </>
  );
}

function DetailCallbacks(props: { callbacks: Detail["callbacks"]; redeliver(callbackId: number): void }) {
  const { t, lang, me } = useShell();
  const { redeliver } = props;
  return (
    <>
      <h3>{t("callbacks")}</h3>
      <p class="help">{t("callbackUrlFixed")}</p>
      {props.callbacks.length === 0 && <p class="help empty">{t("noCallbacksYet")}</p>}
      <ul id="d-callbacks">
        {props.callbacks.map((c) => (
          <li key={c.id}>
            {c.event} → {word(c.status, lang)}, {c.attempts.length} × {lastResultText(c.last_result, lang)}
            {c.status === "pending" && c.next_attempt_at && (
              <>
                {" "}
                · {t("nextAttempt")} {when(c.next_attempt_at, lang)}
              </>
            )}{" "}
            {canDecide(me.role) && (
              <button type="button" class="redeliver secondary" onClick={() => redeliver(c.id)}>
                {t("redeliver")}
              </button>
            )}
            <ol class="attempts">
              {c.attempts.map((a) => (
                <li key={a.attempt}>
                  {when(a.started_at, lang)} · {word(a.outcome, lang)} ·{" "}
                  {a.http_status ?? (a.error === null ? "" : reasonText(a.error, lang))} · {a.duration_ms} ms
                </li>
              ))}
            </ol>
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * The detail's fields, labelled in the console's language; `data-field` keeps the API's name (tests,
 * support).
 */
function detailFields(
  d: Detail,
  t: T,
  lang: Lang,
  firmNames: Map<number, string>,
): [string, string, unknown][] {
  return [
    ["amount", t("amount"), `${money(d.amount)} TL`],
    ["original_amount", t("fOriginalAmount"), d.original_amount && `${money(d.original_amount)} TL`],
    ["type", t("type"), typeText(d.type, t)],
    ["method", t("fMethod"), d.method?.toUpperCase()],
    [
      "firm_id",
      t("firm"),
      firmNames.has(d.firm_id) ? `${firmNames.get(d.firm_id)} (#${d.firm_id})` : d.firm_id,
    ],
    ["payer", t(d.type === "withdrawal" ? "payee" : "payer"), payerName(d)],
    ["username", t("fUsername"), d.username],
    ["user_id", t("fUserId"), d.user_id],
    ["national_id", t("fNationalId"), d.national_id],
    ["bank_code", t("fBankCode"), d.bank_code],
    ["account", t("account"), d.assigned_iban ? `${d.assigned_bank_name} ${d.assigned_iban}` : null],
    ["iban", "IBAN", d.iban],
    ["iban_valid", t("fIbanValid"), d.iban_valid === null ? null : t(d.iban_valid ? "yes" : "no")],
    [
      "paying_by",
      t("fPaying"),
      d.paying_by && `${d.paying_by} · ${age(d.paying_since ?? new Date().toISOString(), t)}`,
    ],
    ["decided_by", t("fDecidedBy"), d.decided_by],
    ["decided_at", t("fDecidedAt"), d.decided_at && when(d.decided_at, lang)],
    ["created_at", t("created"), when(d.created_at, lang)],
    ["decision_note", t("note"), d.decision_note],
    ["callback_url", t("fCallbackUrl"), d.callback_url],
    ["statement_line", t("fStatementLine"), d.statement_line?.id],
    ["ignored_fields", t("fIgnoredFields"), d.ignored_fields?.join(", ")],
  ];
}

/** The line that paid the deposit, linked to its place among the bank's lines. */
function SettlingLineText({ line }: { line: NonNullable<Detail["statement_line"]> }) {
  const { t, lang } = useShell();
  return (
    <>
      <a
        href={`#/statement-lines/${line.id}?state=all`}
        aria-label={fill(t("lineDetailOf"), { id: String(line.id) })}
      >
        #{line.id}
      </a>{" "}
      · {lineAmount(line)} · {bookedText(line, lang)}
      {line.sender_name && (
        <>
          {" · "}
          <bdi>{line.sender_name}</bdi>
        </>
      )}
      {line.description && ` · ${line.description}`} · {sourceText(line.source, t)}
      {line.decided_by && ` · ${line.decided_by}`}
    </>
  );
}

/**
 * The copy button of a payout's field that goes into a bank's transfer form, if it is one; `before`
 * marks the payout as being paid by this operator, as the queue's copies do.
 */
function copyOf(field: string, d: Detail, before: () => Promise<boolean>) {
  const copied: Record<string, PayoutField> = { amount: "amount", payer: "payee", iban: "iban" };
  const payout = copied[field];
  return payout ? <CopyButton tx={d} field={payout} before={before} /> : null;
}

/** A transaction's status in the console's language (the API's word when it is not a known one). */
export function statusText(status: string, t: T): string {
  const key = { pending: "statePending", approved: "approved", rejected: "rejected" }[status];
  return key ? t(key as "statePending") : status;
}
/** What the history's actor did, in the console's language (the audit log's action otherwise). */
function historyAction(action: string, t: T): string {
  const key = (
    {
      "transaction.approve": "didApprove",
      "transaction.reject": "didReject",
      "transaction.national_id_viewed": "didViewNationalId",
      "transaction.paying": "didMarkPaying",
      "transaction.paying_released": "didReleasePaying",
    } as const
  )[action];
  return key ? t(key) : action;
}

/**
 * A decision's change as the rest of the detail reads: labels and statuses in the console's
 * language, amounts (kept in kuruş by the audit log) in TL. The audit log's own screen shows the
 * same records as they are stored.
 */
function HistoryChange(props: {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  t: T;
}) {
  const { t } = props;
  const label = (k: string) =>
    ({
      status: t("status"),
      amount: t("amount"),
      original_amount: t("fOriginalAmount"),
      note: t("note"),
      paying: t("fPaying"),
    })[k] ?? k;
  const show = (k: string, v: unknown) => {
    if (v === null || v === undefined || v === "") return "—";
    if (k === "status" && typeof v === "string") return statusText(v, t);
    if ((k === "amount" || k === "original_amount") && typeof v === "number" && Number.isSafeInteger(v))
      return `${money2(formatMinor(v))} TL`;
    return typeof v === "string" ? v : JSON.stringify(v);
  };
  return <Change before={props.before} after={props.after} label={label} show={show} />;
}

export function typeText(type: string, t: T): string {
  return type === "deposit" ? t("typeDeposit") : type === "withdrawal" ? t("typeWithdrawal") : type;
}
/**
 * An admin's "show the full national id": asked for each time (POST, written to the audit log as
 * `transaction.national_id_viewed`, in the transaction's history), never sent with the detail.
 */
function NationalId({ id, t, onShown }: { id: number; t: T; onShown(): void }) {
  const [full, setFull] = useState<string | null | undefined>(undefined);
  const [failed, setFailed] = useState("");
  if (full)
    return (
      <span id="d-national-id-full" class="full-id">
        {" "}
        → {full}
      </span>
    );
  if (full === null) return <span class="muted"> {t("nationalIdUnreadable")}</span>;
  return (
    <>
      {" "}
      <button
        type="button"
        id="d-reveal-national-id"
        class="link"
        onClick={async () => {
          const res = await api<{ national_id_full: string | null }>(
            "POST",
            `/transactions/${id}/national-id`,
          );
          if (!res.ok) return setFailed(refusalIn(res.json, res.status));
          setFull(res.json.national_id_full);
          // The history below now has the viewing: shown at once, not at the next refresh.
          onShown();
        }}
      >
        {t("revealNationalId")}
      </button>
      {failed && <span class="error"> {failed}</span>}
    </>
  );
}
