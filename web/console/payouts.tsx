/**
 * "Ödemeler" (docs/console.md, "Ödemeler / Payouts"): withdrawals of firms paid in batches, from
 * waiting to the bank. What needs a person first (flagged payouts across batches, payouts the bank
 * sent back or that failed), the payouts waiting (each that cannot be batched says why), making a
 * batch from a paying account, and the batches by stage with what may be done at each; a batch
 * opens on its own screen (#/payouts/12, payouts-batch.tsx). Firms paid by hand keep the
 * withdrawal queue.
 */
import { useState } from "preact/hooks";
import type { AccountView } from "../../src/management/views.js";
import type { FlaggedPayoutView, PayoutBatchView, WaitingPayoutView } from "../../src/payouts/views.js";
import { api, query } from "./api";
import { IbanText } from "./copy";
import { refusalIn } from "./decision-text";
import { BatchCard, BatchDetail, useFileFormats } from "./payouts-batch";
import { FlaggedList } from "./payouts-flagged";
import {
  attemptStageText,
  BATCH_STAGES,
  batchStageText,
  notBatchableText,
  type PW,
  payoutWords,
  returnReasonText,
} from "./payouts-words";
import { accountLabel } from "./statement-words";
import { age, canDecide, Field, formValue, listOf, money2, useLoad, useShell } from "./ui";

/** Payouts move by colleagues' hands and the bank's statement: the screen follows. */
const REFRESH_MS = 15_000;
/** The batches still in someone's hands: the list's first choice. */
const OPEN_STAGES: readonly string[] = ["second_approval", "batched", "sent"];
/** An earlier attempt that came back: the payout needs a person's look before it goes again. */
const needsAttention = (p: WaitingPayoutView) =>
  p.last_attempt !== null && (p.last_attempt.stage === "returned" || p.last_attempt.stage === "failed");

export function Payouts({ filter, id }: { filter: URLSearchParams; id?: number }) {
  const [accounts] = useLoad(async () => listOf<AccountView>(await api("GET", "/accounts")), "accounts");
  const names = new Map((accounts ?? []).map((a) => [a.id, accountLabel(a)]));
  if (id !== undefined) return <BatchDetail key={id} id={id} accounts={names} />;
  return <Overview stage={filter.get("stage") ?? "open"} accounts={accounts ?? []} names={names} />;
}

function Overview(props: { stage: string; accounts: AccountView[]; names: Map<number, string> }) {
  const { lang, notify } = useShell();
  const w = payoutWords(lang);
  const { stage, names } = props;
  const formats = useFileFormats();
  // The paying account chosen for a batch: the waiting payouts' methods are judged by its FAST limit.
  const [account, setAccount] = useState("");
  const [waiting, reloadWaiting] = useLoad(
    async () => {
      const q = query({ account: account || undefined });
      const res = await api<{ waiting: WaitingPayoutView[] }>("GET", `/payouts/waiting${q ? `?${q}` : ""}`);
      if (!res.ok) notify(refusalIn(res.json, res.status, lang), true);
      return res.ok ? res.json.waiting : undefined;
    },
    `payouts-waiting-${account}`,
    REFRESH_MS,
  );
  const [flagged, reloadFlagged] = useLoad(
    async () => {
      const res = await api<{ flagged: FlaggedPayoutView[] }>("GET", "/payouts/flagged");
      if (!res.ok) notify(refusalIn(res.json, res.status, lang), true);
      return res.ok ? res.json.flagged : undefined;
    },
    "payouts-flagged",
    REFRESH_MS,
  );
  const [batches, reloadBatches] = useLoad(
    async () => {
      const q = query({ stage: stage === "open" ? undefined : stage });
      const res = await api<{ batches: PayoutBatchView[] }>("GET", `/payouts/batches${q ? `?${q}` : ""}`);
      if (!res.ok) notify(refusalIn(res.json, res.status, lang), true);
      return res.ok
        ? res.json.batches.filter((b) => stage !== "open" || OPEN_STAGES.includes(b.stage))
        : undefined;
    },
    `payout-batches-${stage}`,
    REFRESH_MS,
  );
  const reload = () => {
    reloadWaiting();
    reloadFlagged();
    reloadBatches();
  };
  const attention = (waiting ?? []).filter(needsAttention);
  const rest = (waiting ?? []).filter((p) => !needsAttention(p));
  return (
    <section id="payouts">
      <h1>{w("payouts")}</h1>
      <p class="help">{w("payoutsIntro")}</p>
      {(attention.length > 0 || (flagged ?? []).length > 0) && (
        <section id="payouts-attention" class="panel alert" aria-labelledby="payouts-attention-h">
          <h2 id="payouts-attention-h">{w("attention")}</h2>
          {(flagged ?? []).length > 0 && <FlaggedList list={flagged ?? []} onChanged={reload} />}
          {attention.length > 0 && (
            <>
              <p class="help">{w("attentionHelp")}</p>
              <WaitingList list={attention} w={w} />
            </>
          )}
        </section>
      )}
      <section id="payouts-waiting" aria-labelledby="payouts-waiting-h">
        <h2 id="payouts-waiting-h">{w("waiting")}</h2>
        {waiting && (
          <p class="help" id="waiting-count">
            {w("waitingCount", { n: waiting.length, ok: waiting.filter((p) => !p.not_batchable).length })}
          </p>
        )}
        {waiting && waiting.length > 0 && (
          <p class="help" id="waiting-method">
            {w(waiting[0]?.method_judged_by === "account" ? "methodAccount" : "methodService")}
          </p>
        )}
        {waiting && waiting.length === 0 && <p class="help">{w("noWaiting")}</p>}
        <WaitingList list={rest} w={w} />
      </section>
      <MakeBatch
        accounts={props.accounts}
        waiting={waiting ?? []}
        account={account}
        onAccount={setAccount}
        onMade={reload}
      />
      <section id="payout-batches" aria-labelledby="payout-batches-h">
        <h2 id="payout-batches-h">{w("batches")}</h2>
        <StageTabs stage={stage} />
        {batches && batches.length === 0 && <p class="help">{w("noBatches")}</p>}
        <ul class="batches">
          {(batches ?? []).map((b) => (
            <BatchCard
              key={b.batch}
              b={b}
              account={names.get(b.account_id) ?? `#${b.account_id}`}
              formats={formats}
              onChanged={reload}
            />
          ))}
        </ul>
      </section>
    </section>
  );
}

function StageTabs({ stage }: { stage: string }) {
  const { lang } = useShell();
  const w = payoutWords(lang);
  const choices = ["open", ...BATCH_STAGES];
  return (
    <nav class="stage-tabs" aria-label={w("stageFilter")}>
      {choices.map((s) => (
        <a
          key={s}
          class="tab"
          data-stage={s}
          href={s === "open" ? "#/payouts" : `#/payouts?stage=${s}`}
          aria-current={s === stage ? "page" : undefined}
        >
          {s === "open" ? w("openBatches") : batchStageText(s, lang)}
        </a>
      ))}
    </nav>
  );
}

/** Payouts waiting, each a card: its amount on top, the payee and IBAN, why it cannot go, how it came back. */
function WaitingList({ list, w }: { list: WaitingPayoutView[]; w: PW }) {
  const { lang, t } = useShell();
  return (
    <ul class="payouts-waiting">
      {list.map((p) => (
        <li
          key={p.transaction_id}
          data-tx={p.transaction_id}
          class={p.not_batchable ? "payout not-batchable" : "payout"}
        >
          <div class="b-head">
            <a
              href={`#/transactions/${p.transaction_id}`}
              aria-label={w("openTransaction", { id: p.transaction_id })}
            >
              #{p.transaction_id}
            </a>
            <strong class="p-amount">{money2(p.amount)} TL</strong>
            <span class="tag">{p.method}</span>
            <span class="muted">{age(p.created_at, t)}</span>
          </div>
          <div>
            <bdi>{p.payee_name || "—"}</bdi> · {p.iban ? <IbanText iban={p.iban} /> : w("noIban")}
          </div>
          <div class="muted">
            <bdi>{p.firm}</bdi> · <bdi>{p.reference}</bdi>
          </div>
          {p.not_batchable && <p class="why-not">{w("notBatchable", { why: notBatchableText(p, lang) })}</p>}
          {p.last_attempt && (
            <p class="last-attempt">
              {w("lastAttempt", { stage: attemptStageText(p.last_attempt.stage, lang) })}
              {p.last_attempt.reason &&
                ` — ${w("bankReason", { reason: returnReasonText(p.last_attempt.reason, lang) })}`}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * A batch from the waiting payouts that may go: the paying account (the company's own, never the
 * sandbox's or an inactive one), optionally one firm and a count. The new batch shows among the open
 * ones, with what comes next.
 */
function MakeBatch(props: {
  accounts: AccountView[];
  waiting: WaitingPayoutView[];
  account: string;
  onAccount(account: string): void;
  onMade(): void;
}) {
  const { lang, me, notify } = useShell();
  const w = payoutWords(lang);
  if (!canDecide(me.role)) return null;
  const paying = props.accounts.filter((a) => a.active && !a.sandbox);
  const firms = [...new Map(props.waiting.map((p) => [p.firm_id, p.firm])).entries()];
  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const account = formValue(form, "account");
    const firm = formValue(form, "firm");
    const max = formValue(form, "max_count");
    if (!account) return;
    const body = {
      account: Number(account),
      ...(firm ? { firm: Number(firm) } : {}),
      ...(max ? { max_count: Number(max) } : {}),
    };
    const res = await api<{ batch: number; payouts: number; total: string; stage: string }>(
      "POST",
      "/payouts/batches",
      body,
    );
    if (!res.ok) return notify(refusalIn(res.json, res.status, lang), true);
    const { batch, payouts, total, stage } = res.json;
    const values = { id: batch, n: payouts, total: money2(total) };
    form.reset();
    props.onAccount("");
    props.onMade();
    notify(w(stage === "second_approval" ? "batchMadeSecond" : "batchMade", values));
  }
  return (
    <form id="make-batch" class="panel form" onSubmit={submit} aria-labelledby="make-batch-h">
      <h2 id="make-batch-h">{w("makeBatch")}</h2>
      <p class="help wide-note">{w("makeBatchHelp")}</p>
      <Field label={w("payingAccount")}>
        <select
          name="account"
          id="mb-account"
          required
          value={props.account}
          onChange={(e) => props.onAccount((e.currentTarget as HTMLSelectElement).value)}
        >
          <option value="">{w("chooseAccount")}</option>
          {paying.map((a) => (
            <option key={a.id} value={String(a.id)}>
              {accountLabel(a)}
            </option>
          ))}
        </select>
      </Field>
      <Field label={w("firm")}>
        <select name="firm" id="mb-firm">
          <option value="">{w("allFirms")}</option>
          {firms.map(([fid, name]) => (
            <option key={fid} value={String(fid)}>
              {name}
            </option>
          ))}
        </select>
      </Field>
      <Field label={w("maxCount")}>
        <input name="max_count" id="mb-max" type="number" min={1} max={10000} inputMode="numeric" />
      </Field>
      <button type="submit" id="make-batch-submit">
        {w("makeBatch")}
      </button>
    </form>
  );
}
