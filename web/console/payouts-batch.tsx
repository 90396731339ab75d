/**
 * A payout batch as operators work it (docs/console.md, "Ödemeler / Payouts"): its card in the
 * list, its detail with its payouts, and what may be done at its stage: the second approval, the
 * bank file in each format the server offers, marking it uploaded (after a confirmation:
 * downloading is not sending), or, for an account on a payout channel, sending it to the channel
 * (after a confirmation); cancelling it before it is sent.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { ReleaseView } from "../../src/payouts/channel-release.js";
import type { FileNotice } from "../../src/payouts/file-download.js";
import type { Pain001Version } from "../../src/payouts/files/pain001.js";
import type { TemplateListing } from "../../src/payouts/templates.js";
import type { PayoutAttemptView, PayoutBatchView } from "../../src/payouts/views.js";
import { api } from "./api";
import { IbanText } from "./copy";
import { refusalIn } from "./decision-text";
import {
  actorText,
  attemptStageText,
  batchStageText,
  fileNoticeText,
  flagText,
  payoutWords,
  releaseOutcomesText,
  returnReasonText,
  secondRuleText,
} from "./payouts-words";
import { canDecide, money2, type Shell, useLoad, useShell, when } from "./ui";

/** pain.001's versions (src/payouts/files/pain001.ts PAIN001_VERSIONS); the bank templates come from the server. */
const PAIN001: readonly Pain001Version[] = ["pain.001.001.09", "pain.001.001.03"];

/**
 * The formats a batch's file is offered in: pain.001, then the bank templates the server knows
 * (the shipped ones and those an admin added), read when the screen opens.
 */
export function useFileFormats(): string[] {
  const [templates] = useLoad(async () => {
    const res = await api<{ templates: TemplateListing[] }>("GET", "/payouts/templates");
    return res.ok ? res.json.templates.map((t) => t.code) : undefined;
  }, "payout-templates");
  return [...PAIN001, ...(templates ?? [])];
}
/** A batch's detail follows what colleagues and the bank's statement do to it. */
const REFRESH_MS = 15_000;

const tl = (amount: string) => money2(amount);
const batchValues = (b: PayoutBatchView) => ({ id: b.batch, total: tl(b.total), n: b.payouts });
const madeByMe = (b: PayoutBatchView, me: Shell["me"]) => b.created_by === `operator:${me.email}`;

/** The batch's bank file, saved as the browser saves a download; what the server noted, said. */
async function downloadFile(shell: Shell, b: PayoutBatchView, format: string): Promise<void> {
  const { lang, notify } = shell;
  const w = payoutWords(lang);
  const res = await fetch(`/ops/api/payouts/batches/${b.batch}/file?format=${encodeURIComponent(format)}`, {
    credentials: "same-origin",
    cache: "no-store",
  });
  if (!res.ok) {
    const json: unknown = await res.json().catch(() => ({}));
    // A session that ended: the ordinary call hands the console back to sign-in.
    if (res.status === 401) await api("GET", "/me");
    return notify(refusalIn(json, res.status, lang), true);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? format;
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  const notices = noticesOf(res.headers.get("x-payout-notices")).map((n) => fileNoticeText(n, lang));
  const done = w("downloaded", { id: b.batch, file: name });
  notify(
    notices.length ? `${done} ${w("fileNotices", { notices: notices.join("; ") })}` : done,
    notices.length > 0,
  );
}

/** The file's notices: `{code, message}` each (src/payouts/file-download.ts FileNotice). */
function noticesOf(header: string | null): FileNotice[] {
  if (!header) return [];
  try {
    const parsed: unknown = JSON.parse(decodeURIComponent(header));
    return Array.isArray(parsed)
      ? parsed.filter(
          (n): n is FileNotice =>
            typeof n === "object" && n !== null && typeof (n as FileNotice).message === "string",
        )
      : [];
  } catch {
    return [];
  }
}

/**
 * What may be done to a batch at its stage, each button named with the batch and its total. A
 * viewer sees none. A move is sent once at a time; the list or detail reads the batch again after.
 */
export function BatchActions(props: { b: PayoutBatchView; formats: readonly string[]; onChanged(): void }) {
  const { b, onChanged } = props;
  const shell = useShell();
  const { lang, me, notify } = shell;
  const w = payoutWords(lang);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState("");
  if (!canDecide(me.role)) return null;
  const v = batchValues(b);
  async function move(kind: "approve" | "sent" | "cancel", question: string | null, done: string) {
    if (question && !confirm(question)) return;
    setBusy(true);
    try {
      const body = kind === "cancel" && note.trim() ? { note: note.trim() } : undefined;
      const res = await api("POST", `/payouts/batches/${b.batch}/${kind}`, body);
      notify(res.ok ? done : refusalIn(res.json, res.status, lang), !res.ok);
      if (res.ok) setNote("");
      onChanged();
    } finally {
      setBusy(false);
    }
  }
  /** Sent through the channel once: the answers, counted, say what became of each payout. */
  async function release(channel: string) {
    if (!confirm(w("confirmRelease", { ...v, channel }))) return;
    setBusy(true);
    try {
      const res = await api<ReleaseView>("POST", `/payouts/batches/${b.batch}/release`);
      if (res.ok)
        notify(w("released", { ...v, channel, outcomes: releaseOutcomesText(res.json.outcomes, lang) }));
      else notify(refusalIn(res.json, res.status, lang), true);
      onChanged();
    } finally {
      setBusy(false);
    }
  }
  const cancellable = b.stage === "second_approval" || b.stage === "batched";
  // A batch on a payout channel goes to the channel, never as a file: a file uploaded beside it
  // would pay it twice.
  const files = b.channel === null && (b.stage === "batched" || b.stage === "sent" || b.stage === "closed");
  return (
    <div class="batch-actions" data-batch={b.batch}>
      {b.stage === "second_approval" && (
        <div class="batch-approve">
          {madeByMe(b, me) && <p class="help">{w("yourBatch")}</p>}
          <button
            type="button"
            class="approve-batch"
            disabled={busy}
            onClick={() => move("approve", null, w("approved", v))}
          >
            {w("approveBatch", v)}
          </button>
        </div>
      )}
      {files && (
        <fieldset class="batch-files">
          <legend>
            {w("files")} — {w("batchTitle", v)}
          </legend>
          {b.stage === "batched" && <p class="help">{w("filesHelp")}</p>}
          <div class="file-buttons">
            {props.formats.map((f) => (
              <button
                key={f}
                type="button"
                class="secondary download"
                data-format={f}
                aria-label={w("downloadName", { id: b.batch, format: f })}
                onClick={() => void downloadFile(shell, b, f)}
              >
                {w("download", { format: f })}
              </button>
            ))}
          </div>
        </fieldset>
      )}
      {b.stage === "batched" && b.channel !== null && (
        <div class="batch-release">
          <p class="help">{w("releaseHelp")}</p>
          <button
            type="button"
            class="release-batch"
            disabled={busy}
            aria-label={w("releaseName", v)}
            onClick={() => b.channel && void release(b.channel.code)}
          >
            {w("release")}
          </button>
        </div>
      )}
      {b.stage === "batched" && b.channel === null && (
        <button
          type="button"
          class="mark-sent"
          disabled={busy}
          aria-label={w("markSentName", v)}
          onClick={() => move("sent", w("confirmSent", v), w("sentDone", v))}
        >
          {w("markSent")}
        </button>
      )}
      {cancellable && (
        <div class="inline-form batch-cancel">
          <label class="field">
            <span>{w("cancelNote")}</span>
            <input
              name="note"
              maxLength={500}
              value={note}
              onInput={(e) => setNote((e.currentTarget as HTMLInputElement).value)}
            />
          </label>
          <button
            type="button"
            class="danger cancel-batch"
            disabled={busy}
            aria-label={w("cancelName", v)}
            onClick={() => move("cancel", w("confirmCancel", v), w("cancelled", v))}
          >
            {w("cancelBatch")}
          </button>
        </div>
      )}
    </div>
  );
}

/** A batch in the list: its number (a link to its detail), stage, total, account, who made it, and its actions. */
export function BatchCard(props: {
  b: PayoutBatchView;
  account: string;
  formats: readonly string[];
  onChanged(): void;
}) {
  const { lang } = useShell();
  const w = payoutWords(lang);
  const { b } = props;
  const v = batchValues(b);
  return (
    <li class="batch" data-batch={b.batch} data-stage={b.stage}>
      <div class="b-head">
        <a href={`#/payouts/${b.batch}`} aria-label={w("openBatch", v)}>
          #{b.batch}
        </a>
        <strong class="b-total">{v.total} TL</strong>
        <span class={`b-stage ${b.stage}`}>{batchStageText(b.stage, lang)}</span>
      </div>
      <div class="b-meta muted">
        {w("payoutsCount", v)} · {props.account}
        {b.channel && ` (${w("byChannel", { channel: b.channel.code })})`} · {actorText(b.created_by)} ·{" "}
        {when(b.created_at, lang)}
      </div>
      {b.second_reason && <p class="b-reason">{w("secondReason", { reason: secondRuleText(b, lang) })}</p>}
      <BatchActions b={b} formats={props.formats} onChanged={props.onChanged} />
    </li>
  );
}

/** A batch's own screen (#/payouts/12): its fields, its actions, and each payout in it with its stage. */
export function BatchDetail(props: { id: number; accounts: Map<number, string> }) {
  const { lang, notify } = useShell();
  const w = payoutWords(lang);
  const formats = useFileFormats();
  const [b, reload] = useLoad(
    async () => {
      const res = await api<PayoutBatchView>("GET", `/payouts/batches/${props.id}`);
      if (!res.ok) notify(refusalIn(res.json, res.status, lang), true);
      return res.ok ? res.json : undefined;
    },
    `batch-${props.id}`,
    REFRESH_MS,
  );
  return (
    <section id="payout-batch">
      <a class="back" href="#/payouts">
        {w("backToPayouts")}
      </a>
      <h1>{w("batchTitle", { id: props.id })}</h1>
      {b && (
        <>
          <dl class="fields">
            <Row label={w("stage")}>
              <span class={`b-stage ${b.stage}`} id="batch-stage">
                {batchStageText(b.stage, lang)}
              </span>
            </Row>
            <Row label={w("total")}>{tl(b.total)} TL</Row>
            <Row label={w("count")}>{b.payouts}</Row>
            <Row label={w("account")}>{props.accounts.get(b.account_id) ?? `#${b.account_id}`}</Row>
            {b.channel && <Row label={w("channel")}>{b.channel.code}</Row>}
            <Row label={w("madeBy")}>
              {actorText(b.created_by)} · {when(b.created_at, lang)}
            </Row>
            {b.second_reason && <Row label={w("reason")}>{secondRuleText(b, lang)}</Row>}
            {b.approved_by && (
              <Row label={w("approvedBy")}>
                {actorText(b.approved_by)} · {b.approved_at ? when(b.approved_at, lang) : ""}
              </Row>
            )}
            {b.sent_by && (
              <Row label={w("sentBy")}>
                {actorText(b.sent_by)} · {b.sent_at ? when(b.sent_at, lang) : ""}
              </Row>
            )}
          </dl>
          <BatchActions b={b} formats={formats} onChanged={reload} />
          <h2>{w("items")}</h2>
          <ul class="payout-items">
            {(b.items ?? []).map((a) => (
              <AttemptItem key={a.attempt} a={a} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Row(props: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

function AttemptItem({ a }: { a: PayoutAttemptView }) {
  const { lang } = useShell();
  const w = payoutWords(lang);
  return (
    <li class="payout-item" data-tx={a.transaction_id} data-stage={a.stage}>
      <div class="b-head">
        <a
          href={`#/transactions/${a.transaction_id}`}
          aria-label={w("openTransaction", { id: a.transaction_id })}
        >
          #{a.transaction_id}
        </a>
        <strong>{tl(a.amount)} TL</strong>
        <span class={`a-stage ${a.stage}`}>{attemptStageText(a.stage, lang)}</span>
      </div>
      <div>
        <bdi>{a.payee_name}</bdi> · <IbanText iban={a.payee_iban} /> · {a.method}
      </div>
      <div class="muted">
        {w("paymentId")}: <code>{a.payment_id}</code>
      </div>
      {a.reason && <p class="a-reason">{w("bankReason", { reason: returnReasonText(a.reason, lang) })}</p>}
      {a.flag && <p class="a-flag">{w("flagged", { flag: flagText(a.flag, lang) })}</p>}
    </li>
  );
}
