import { isPlainHttpLiveWebhook } from "../../src/domain/firm.js";
import type { FirmView as Firm } from "../../src/management/views.js";
import { api } from "./api";
import { refusalIn } from "./decision-text";
import { typedAmount } from "./manage";
import { amountFieldsValid, amountInput, Field, formChecked, formValue, useShell } from "./ui";
import { fill } from "./words";

/** The form's fields as the API takes them; compared with the firm, only changes are sent. */
function wantedOf(form: HTMLFormElement, firm: Firm): Partial<Record<keyof Firm, unknown>> {
  const count = formValue(form, "max_pending_count");
  const share = formValue(form, "max_cap_share");
  return {
    webhook_url: formValue(form, "webhook_url") ?? null,
    legacy_http: formChecked(form, "legacy_http"),
    callback_middle_name: formChecked(form, "callback_middle_name"),
    deposits: formChecked(form, "deposits") ? "open" : "closed",
    withdrawals: formChecked(form, "withdrawals") ? "open" : "closed",
    deposit_min: amountInput(formValue(form, "deposit_min")) ?? null,
    deposit_max: amountInput(formValue(form, "deposit_max")) ?? null,
    rate_limit_per_second: Number(formValue(form, "rate") ?? firm.rate_limit_per_second),
    // An empty field takes the bound off; for the share, the server's default (docs/console.md).
    max_pending_count: count === undefined ? null : Number(count),
    max_pending_amount: amountInput(formValue(form, "max_pending_amount")) ?? null,
    max_cap_share: share === undefined ? null : Number(share),
    // An empty field: the firm's name, and the usual amount judged by the firm's recent deposits.
    display_name: formValue(form, "display_name") ?? null,
    usual_amount_max: amountInput(formValue(form, "usual_amount_max")) ?? null,
    reconcile_auto: formChecked(form, "reconcile_auto"),
    reconcile_by_name: formChecked(form, "reconcile_by_name"),
    answer_payment_code: formChecked(form, "answer_payment_code"),
    active: formChecked(form, "active"),
  };
}

/** A firm's settings, as an admin edits them. */
export function FirmForm({ firm, saved }: { firm: Firm; saved(): void }) {
  const { t, notify } = useShell();
  async function save(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const amounts = ["deposit_min", "deposit_max", "max_pending_amount", "usual_amount_max"];
    if (!amountFieldsValid(form, amounts, t("badAmount"))) return;
    const wanted = wantedOf(form, firm);
    // Only what the operator changed: a save never undoes someone else's change to another field,
    // and closing deposits does not depend on the webhook still passing its checks.
    const changes = Object.fromEntries(
      Object.entries(wanted).filter(([k, v]) => firm[k as keyof Firm] !== v),
    );
    if (Object.keys(changes).length === 0) return notify(`#${firm.id}: ${t("saved")}`);
    if (!confirmRoutingChanges(changes)) return;
    const res = await api("PATCH", `/firms/${firm.id}`, changes);
    notify(res.ok ? `#${firm.id}: ${t("saved")}` : refusalIn(res.json, res.status), !res.ok);
    if (res.ok) saved();
  }
  /**
   * Closing deposits or withdrawals, or switching the firm off, refuses the firm's new requests
   * from then on: asked first, naming each, so that a checkbox clicked by mistake is not saved with
   * the rest. Opening them again is not asked.
   */
  function confirmRoutingChanges(changes: Record<string, unknown>): boolean {
    const stops = [
      changes.deposits === "closed" && t("mgmtFirmDepositsOff"),
      changes.withdrawals === "closed" && t("mgmtFirmWithdrawalsOff"),
      changes.active === false && t("mgmtFirmOff"),
    ].filter((line): line is string => typeof line === "string");
    if (stops.length === 0) return true;
    return confirm(
      fill(t("mgmtConfirmFirm"), {
        id: firm.id,
        name: firm.name,
        changes: stops.map((l) => `• ${l}`).join("\n"),
      }),
    );
  }
  return (
    <form id="firm-edit" class="panel form" onSubmit={save}>
      <h2>
        #{firm.id} <bdi>{firm.name}</bdi>
      </h2>
      <Field label={t("mgmtWebhook")} wide>
        <input name="webhook_url" type="url" defaultValue={firm.webhook_url ?? ""} />
      </Field>
      {isPlainHttpLiveWebhook(firm.sandbox, firm.webhook_url) && (
        <p class="error plain-http-webhook" role="alert">
          {t("mgmtPlainHttpWebhook")}
        </p>
      )}
      <LimitFields firm={firm} />
      <PageFields firm={firm} />
      <SwitchFields firm={firm} />
      <button type="submit">{t("save")}</button>
    </form>
  );
}

/** Deposit limits, the request rate, the bounds of pending deposits and the share of the caps. */
function LimitFields({ firm }: { firm: Firm }) {
  const { t, defaultCapShare } = useShell();
  const shareDefault =
    defaultCapShare < 100
      ? t("mgmtCapShareDefault").replace("{n}", String(defaultCapShare))
      : t("mgmtCapShareWhole");
  return (
    <>
      <Field label={t("mgmtDepositMin")}>
        <input
          name="deposit_min"
          inputMode="decimal"
          size={10}
          defaultValue={typedAmount(firm.deposit_min)}
        />
      </Field>
      <Field label={t("mgmtDepositMax")}>
        <input
          name="deposit_max"
          inputMode="decimal"
          size={10}
          defaultValue={typedAmount(firm.deposit_max)}
        />
      </Field>
      <Field label={t("mgmtRate")}>
        <input name="rate" type="number" min={1} size={6} defaultValue={firm.rate_limit_per_second} />
      </Field>
      <Field label={t("mgmtMaxPendingCount")}>
        <input
          name="max_pending_count"
          type="number"
          min={1}
          step={1}
          size={7}
          placeholder={t("mgmtNoBound")}
          defaultValue={firm.max_pending_count === null ? "" : String(firm.max_pending_count)}
        />
      </Field>
      <Field label={t("mgmtMaxPendingAmount")}>
        <input
          name="max_pending_amount"
          inputMode="decimal"
          size={12}
          placeholder={t("mgmtNoBound")}
          defaultValue={typedAmount(firm.max_pending_amount)}
        />
      </Field>
      <Field label={t("mgmtMaxCapShare")}>
        <input
          name="max_cap_share"
          type="number"
          min={1}
          max={100}
          step={1}
          size={14}
          placeholder={shareDefault}
          title={t("mgmtCapShareHint").replace("{n}", String(defaultCapShare))}
          defaultValue={firm.max_cap_share === null ? "" : String(firm.max_cap_share)}
        />
      </Field>
    </>
  );
}

/**
 * What the payment page says of the firm: the shop's name (empty: the firm's name, shown as the
 * placeholder) and the amount above which it warns the payer (empty: judged by recent deposits).
 */
function PageFields({ firm }: { firm: Firm }) {
  const { t } = useShell();
  return (
    <>
      <Field label={t("mgmtDisplayName")} wide>
        <input
          name="display_name"
          maxLength={100}
          placeholder={firm.name}
          defaultValue={firm.display_name ?? ""}
        />
      </Field>
      <Field label={t("mgmtUsualAmountMax")}>
        <input
          name="usual_amount_max"
          inputMode="decimal"
          size={12}
          placeholder={t("mgmtUsualByDeposits")}
          defaultValue={typedAmount(firm.usual_amount_max)}
        />
      </Field>
    </>
  );
}

/** The firm's switches: open or closed, callbacks, reconciliation, active. */
function SwitchFields({ firm }: { firm: Firm }) {
  const { t } = useShell();
  return (
    <>
      <div class="checks">
        <label>
          <input type="checkbox" name="deposits" defaultChecked={firm.deposits === "open"} />{" "}
          {t("mgmtDepositsOpen")}
        </label>
        <label>
          <input type="checkbox" name="withdrawals" defaultChecked={firm.withdrawals === "open"} />{" "}
          {t("mgmtWithdrawalsOpen")}
        </label>
        <label>
          <input type="checkbox" name="legacy_http" defaultChecked={firm.legacy_http} /> {t("mgmtLegacy")}
        </label>
        <label>
          <input type="checkbox" name="callback_middle_name" defaultChecked={firm.callback_middle_name} />{" "}
          {t("mgmtMiddleName")}
        </label>
        <label>
          <input type="checkbox" name="active" defaultChecked={firm.active} /> {t("mgmtFirmActive")}
        </label>
      </div>
      <fieldset class="checks reconcile">
        <legend>{t("mgmtReconciliation")}</legend>
        <label>
          <input type="checkbox" name="reconcile_auto" defaultChecked={firm.reconcile_auto} />{" "}
          {t("mgmtReconcileAuto")}
        </label>
        <label>
          <input type="checkbox" name="reconcile_by_name" defaultChecked={firm.reconcile_by_name} />{" "}
          {t("mgmtReconcileByName")}
        </label>
        <label>
          <input type="checkbox" name="answer_payment_code" defaultChecked={firm.answer_payment_code} />{" "}
          {t("mgmtAnswerPaymentCode")}
        </label>
      </fieldset>
    </>
  );
}

export type { Firm };
