import { useRef } from "preact/hooks";
import { query } from "./api";
import { amountInput, Field, formValue, isAmountInput, Options, useShell } from "./ui";

/** The queue's title, how many it holds, whether it is live, and its order. */
export function QueueHeading(props: {
  type: "deposit" | "withdrawal";
  count: string | number;
  live: boolean;
  order: "oldest" | "newest";
  setOrder(order: "oldest" | "newest"): void;
}) {
  const { t } = useShell();
  const { type, live, order, setOrder } = props;
  return (
    <div class="bar">
      <h1>{t(type === "deposit" ? "pendingDeposits" : "pendingWithdrawals")}</h1>
      <span class="count" id="queue-count">
        {props.count}
      </span>
      <span class="live" data-live={live ? "on" : "off"} title={t(live ? "liveOnHelp" : "liveOffHelp")}>
        {t(live ? "liveOn" : "liveOff")}
      </span>
      <label class="inline">
        {t("order")}{" "}
        <select id="order" value={order} onChange={(e) => setOrder(e.currentTarget.value as "oldest")}>
          <option value="oldest">{t("oldest")}</option>
          <option value="newest">{t("newest")}</option>
        </select>
      </label>
    </div>
  );
}

/**
 * Narrows a queue to one firm, one amount (as a bank statement shows it) or a payer's name: how an
 * operator finds the deposit a transfer on the statement pays, and how the rows past the first
 * 500 are reached.
 */
export function QueueFilter(props: {
  type: "deposit" | "withdrawal";
  onApply: (query: string) => void;
  active: boolean;
  firmNames: Map<number, string>;
}) {
  const { t, notify } = useShell();
  const form = useRef<HTMLFormElement>(null);
  function apply(e: Event) {
    e.preventDefault();
    const f = form.current;
    if (!f) return;
    const amount = formValue(f, "amount");
    if (amount !== undefined && !isAmountInput(amount)) return notify(t("badAmount"), true);
    props.onApply(
      query({
        firm: formValue(f, "firm"),
        amount: amountInput(amount),
        name: formValue(f, "name"),
        method: formValue(f, "method"),
      }),
    );
  }
  function clear() {
    form.current?.reset();
    props.onApply("");
  }
  return (
    <form id="queue-filter" class="filters" ref={form} onSubmit={apply}>
      <Field label={t("firm")}>
        <Options
          name="firm"
          values={[...props.firmNames.keys()].map(String)}
          labels={(id) => `${props.firmNames.get(Number(id)) ?? ""} (#${id})`}
          any={t("any")}
        />
      </Field>
      {/* Payouts are sent in batches by method: FAST at any hour, EFT within the banks' hours. */}
      {props.type === "withdrawal" && (
        <Field label={t("fMethod")}>
          <Options
            name="method"
            values={["fast", "eft", "havale"]}
            labels={(m) => m.toUpperCase()}
            any={t("any")}
          />
        </Field>
      )}
      <Field label={t("amount")}>
        <input name="amount" inputMode="decimal" size={9} placeholder="1.250,50" autoComplete="off" />
      </Field>
      <Field label={t(props.type === "deposit" ? "payer" : "payee")}>
        <input name="name" size={14} placeholder="SUKRU OZTURK" autoComplete="off" />
      </Field>
      <button type="submit">{t("filterQueue")}</button>
      {props.active && (
        <button type="button" class="secondary" id="queue-filter-clear" onClick={clear}>
          {t("clearFilter")}
        </button>
      )}
    </form>
  );
}
