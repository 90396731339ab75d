import type { LineDetailView, LineView } from "../../src/reconciliation/line-views.js";
import { api } from "./api";
import { refusalIn } from "./decision-text";
import { bookedText, lineAmount } from "./statement-words";
import { formValue, money2, useShell } from "./ui";
import { fill } from "./words";

/** Two IBANs as the bank's form writes them (no spaces, upper case), both present. */
const bare = (iban: string | null) => (iban ?? "").replace(/\s+/g, "").toUpperCase();
const sameIban = (a: string | null, b: string | null) => bare(a) !== "" && bare(a) === bare(b);

/**
 * "Bir iade mi?" on a debit no payout, fee or refund has taken: the credits marked not ours it may
 * have paid back (the server offers those of its amount, sent from the IBAN it went to first), each
 * with its button, and any other credit by its number. The server checks everything again
 * (docs/ledger.md, "A refund paid").
 */
export function RefundOffer(props: { line: LineDetailView; candidates: LineView[]; onChanged(): void }) {
  const { t, lang, notify } = useShell();
  const { line, candidates } = props;
  async function record(creditId: number) {
    const amount = money2(line.amount);
    if (!confirm(fill(t("refundConfirm"), { debit: line.id, credit: creditId, amount }))) return;
    const res = await api("POST", `/statement-lines/${line.id}/refund`, { of: creditId });
    if (!res.ok) return notify(`#${line.id}: ${refusalIn(res.json, res.status)}`, true);
    notify(`#${line.id}: ${fill(t("refundRecorded"), { credit: creditId })}`);
    props.onChanged();
  }
  function submit(e: Event) {
    e.preventDefault();
    const creditId = Number(formValue(e.currentTarget as HTMLFormElement, "credit_id"));
    if (Number.isSafeInteger(creditId) && creditId > 0) void record(creditId);
  }
  return (
    <section id="refund-offer" aria-labelledby="refund-title">
      <h3 id="refund-title">{t("refundTitle")}</h3>
      <p class="help">{t("refundHelp")}</p>
      {candidates.length === 0 && (
        <p class="help" id="refund-none">
          {t("refundNone")}
        </p>
      )}
      <ul id="refund-candidates" class="candidates">
        {candidates.map((c) => (
          <li key={c.id} data-line={c.id} class="candidate">
            <div>
              <a href={`#/statement-lines/${c.id}`}>#{c.id}</a> · <strong>{lineAmount(c)}</strong>
              {c.sender_name && (
                <>
                  {" "}
                  · <bdi>{c.sender_name}</bdi>
                </>
              )}
            </div>
            <div class="muted">
              {bookedText(c, lang)}
              {sameIban(c.sender_iban, line.sender_iban) && ` · ${t("refundSameIban")}`}
            </div>
            <button
              type="button"
              class="refund-this"
              aria-label={fill(t("refundThisOneOf"), { credit: c.id })}
              onClick={() => record(c.id)}
            >
              {t("refundThisOne")}
            </button>
          </li>
        ))}
      </ul>
      <form id="refund-by-id" class="inline-form" onSubmit={submit}>
        <label class="field">
          <span>{t("refundById")}</span>
          <input name="credit_id" inputMode="numeric" pattern="[0-9]+" size={8} required />
        </label>
        <button type="submit" class="secondary">
          {t("refundRecord")}
        </button>
      </form>
    </section>
  );
}
