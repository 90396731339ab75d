/**
 * Flagged payouts across batches, in "Ödemeler"'s "Needing attention" (docs/console.md): a payout
 * returned after approval, a possible double payment, an overdue debit, a channel's unclear or
 * mismatched answer. Each names its flag in words, its withdrawal and its batch (links), and, once
 * the payout has ended, lets an operator clear the flag after checking (audited; a sent payout's
 * flag is the watch's and the channel's to lift).
 */
import { useState } from "preact/hooks";
import type { FlaggedPayoutView } from "../../src/payouts/views.js";
import { api } from "./api";
import { refusalIn } from "./decision-text";
import { attemptStageText, flagText, payoutWords, returnReasonText } from "./payouts-words";
import { canDecide, money2, useShell } from "./ui";

/** Stages whose flag is still the watch's or the channel's: never cleared by hand. */
const LIVE: readonly string[] = ["second_approval", "batched", "sent"];

export function FlaggedList(props: { list: FlaggedPayoutView[]; onChanged(): void }) {
  const { lang } = useShell();
  const w = payoutWords(lang);
  return (
    <div id="payouts-flagged">
      <h3>{w("flaggedTitle")}</h3>
      <p class="help">{w("flaggedHelp")}</p>
      <ul class="payouts-waiting">
        {props.list.map((a) => (
          <FlaggedItem key={a.attempt} a={a} onChanged={props.onChanged} />
        ))}
      </ul>
    </div>
  );
}

function FlaggedItem({ a, onChanged }: { a: FlaggedPayoutView; onChanged(): void }) {
  const { lang, me, notify } = useShell();
  const w = payoutWords(lang);
  const [busy, setBusy] = useState(false);
  const flag = a.flag ?? "";
  const values = { tx: a.transaction_id, amount: money2(a.amount), flag: flagText(flag, lang) };
  async function clear() {
    if (!confirm(w("confirmClearFlag", values))) return;
    setBusy(true);
    try {
      const res = await api("POST", `/payouts/attempts/${a.attempt}/clear-flag`, { flag });
      notify(res.ok ? w("flagCleared", values) : refusalIn(res.json, res.status, lang), !res.ok);
      onChanged();
    } finally {
      setBusy(false);
    }
  }
  return (
    <li class="payout flagged" data-attempt={a.attempt} data-tx={a.transaction_id} data-flag={flag}>
      <div class="b-head">
        <a
          href={`#/transactions/${a.transaction_id}`}
          aria-label={w("openTransaction", { id: a.transaction_id })}
        >
          #{a.transaction_id}
        </a>
        <strong class="p-amount">{money2(a.amount)} TL</strong>
        <span class={`a-stage ${a.stage}`}>{attemptStageText(a.stage, lang)}</span>
        <a class="batch-link" href={`#/payouts/${a.batch}`} aria-label={w("openBatchOf", { id: a.batch })}>
          {w("batchTitle", { id: a.batch })}
        </a>
      </div>
      <p class="a-flag">{w("flagged", { flag: flagText(flag, lang) })}</p>
      <div>
        <bdi>{a.payee_name}</bdi> · <bdi>{a.reference}</bdi> · {w("paymentId")}: <code>{a.payment_id}</code>
      </div>
      {a.reason && <p class="a-reason">{w("bankReason", { reason: returnReasonText(a.reason, lang) })}</p>}
      {canDecide(me.role) && !LIVE.includes(a.stage) && (
        <button
          type="button"
          class="secondary clear-flag"
          disabled={busy}
          aria-label={w("clearFlagName", values)}
          onClick={() => void clear()}
        >
          {w("clearFlag")}
        </button>
      )}
    </li>
  );
}
