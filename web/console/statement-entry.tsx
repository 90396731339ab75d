import { useState } from "preact/hooks";
import { TURKEY_ZONE, turkeyDayOf } from "../../src/domain/turkey-time.js";
import type { FeedView as Feed } from "../../src/reconciliation/feed.js";
import type { ImportSummary as Imported } from "../../src/reconciliation/import.js";
import type { RecordedLines as TypedAnswer } from "../../src/reconciliation/typed-lines.js";
import { api } from "./api";
import { refusalIn } from "./decision-text";
import { accountLabel, lineStateText, type PaymentAccount } from "./statement-words";
import { age, amountFieldsValid, amountInput, Field, formValue, listOf, useLoad, useShell } from "./ui";
import { fill } from "./words";

/**
 * The live feeds and when each last spoke: a silent one means the bank's lines stopped coming, and
 * deposits wait in the queue that the statement would have approved. Refreshed every minute.
 */
export function Feeds() {
  const { t } = useShell();
  const [feeds] = useLoad(
    async () => listOf<Feed>(await api("GET", "/statement-feeds")),
    "statement-feeds",
    60_000,
  );
  if (!feeds) return null;
  return (
    <div id="feeds" class="feeds">
      <h2>{t("feeds")}</h2>
      {feeds.length === 0 && <p class="help">{t("noFeeds")}</p>}
      <ul class="health">
        {feeds.map((f) => (
          <li key={f.account_id} data-account={f.account_id} class={f.silent ? "open" : "closed"}>
            {accountLabel({ id: f.account_id, bank_name: f.bank_name, iban: f.iban })}:{" "}
            {f.last_at === null ? t("feedNever") : fill(t("feedLast"), { age: age(f.last_at, t) })}
            {f.silent && <> · {fill(t("feedSilent"), { n: f.silence_minutes })}</>}
          </li>
        ))}
      </ul>
    </div>
  );
}

function AccountSelect({ accounts, id }: { accounts: PaymentAccount[]; id: string }) {
  const { t } = useShell();
  return (
    <Field label={t("account")}>
      <select name="account" id={id} required>
        <option value="">—</option>
        {accounts.map((a) => (
          <option key={a.id} value={String(a.id)}>
            {accountLabel(a)}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** Today in Türkiye, for the date field: the day an operator types a line from, most often. */
const todayInTurkey = () => turkeyDayOf(Date.now());

/**
 * A line typed from the bank's screen (a bank with neither feed nor file, a transfer seen before the
 * statement): matched at once as any line is, and opened, so its suggestions show.
 */
export function TypedLineForm(props: { accounts: PaymentAccount[]; here: string; onAdded(): void }) {
  const { t, notify } = useShell();
  // Said here, not in the notice line: opening the line changes the address, which clears that.
  const [done, setDone] = useState<{ text: string; bad: boolean } | null>(null);
  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    if (!amountFieldsValid(form, ["amount"], t("badAmount"))) return;
    const date = formValue(form, "date") as string;
    const time = formValue(form, "time");
    // Without a time the line is a day's, as an MT940 entry is.
    const booked_at = time ? `${date}T${time.length === 5 ? `${time}:00` : time}${TURKEY_ZONE}` : date;
    const body: Record<string, string> = { booked_at, amount: amountInput(formValue(form, "amount")) ?? "" };
    for (const name of ["sender_name", "description", "bank_ref"]) {
      const v = formValue(form, name);
      if (v) body[name] = v;
    }
    const res = await api<TypedAnswer>(
      "POST",
      `/accounts/${formValue(form, "account")}/statement-lines`,
      body,
    );
    setDone(null);
    if (!res.ok) return notify(refusalIn(res.json, res.status), true);
    const [result] = res.json.results;
    if (!result) return;
    // A duplicate's answer names no line (LineResult): known bug, its words and link say "undefined".
    const id = result.duplicate ? undefined : result.id;
    setDone({
      text: result.duplicate
        ? fill(t("duplicateLine"), { id: String(id) })
        : `#${result.id}: ${fill(t("typedLine"), { state: lineStateText(result.state, t) })}`,
      bad: result.duplicate,
    });
    form.reset();
    props.onAdded();
    location.hash = `#/statement-lines/${id}${props.here ? `?${props.here}` : ""}`;
  }
  return (
    <form id="type-line" class="form panel" onSubmit={submit}>
      <h2>{t("typeLine")}</h2>
      <AccountSelect accounts={props.accounts} id="tl-account" />
      <Field label={t("bookingDay")}>
        <input id="tl-date" name="date" type="date" required defaultValue={todayInTurkey()} />
      </Field>
      <Field label={t("time")}>
        <input id="tl-time" name="time" type="time" />
      </Field>
      <Field label={t("amount")}>
        <input id="tl-amount" name="amount" inputMode="decimal" size={10} placeholder="1.250,50" required />
      </Field>
      <Field label={t("sender")}>
        <input id="tl-sender" name="sender_name" maxLength={140} autoComplete="off" />
      </Field>
      <Field label={t("description")} wide>
        <input id="tl-description" name="description" maxLength={500} autoComplete="off" />
      </Field>
      <Field label={t("bankRef")}>
        <input id="tl-ref" name="bank_ref" maxLength={64} autoComplete="off" />
      </Field>
      <p class="help">{t("typeLineHelp")}</p>
      <button type="submit">{t("save")}</button>
      {done && (
        <p id="typed-result" role="status" class={done.bad ? "error wide-note" : "ok wide-note"}>
          {done.text}
        </p>
      )}
    </form>
  );
}

/** The file's type for the server: camt.053 is XML (it starts with "<"), MT940 plain text. */
async function statementType(file: File): Promise<string> {
  const head = (await file.slice(0, 512).text()).replace(/^\uFEFF/, "").trimStart();
  return head.startsWith("<") ? "application/xml" : "text/plain";
}

/** A statement file for an account, as the admin API takes it; its counts and doubts stay shown. */
export function StatementUpload(props: { accounts: PaymentAccount[]; onAdded(): void }) {
  const { t, notify } = useShell();
  const [result, setResult] = useState<Imported | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem("file") as HTMLInputElement).files?.[0];
    if (!file) return notify(t("chooseFile"), true);
    setBusy(true);
    try {
      const res = await api<Imported>("POST", `/accounts/${formValue(form, "account")}/statements`, file, {
        type: await statementType(file),
      });
      setResult(res.ok ? res.json : null);
      if (!res.ok) return notify(refusalIn(res.json, res.status), true);
      notify(t("saved"));
      props.onAdded();
    } finally {
      setBusy(false);
    }
  }
  const doubts = (result?.statements ?? []).flatMap((s) => s.doubts);
  return (
    <form id="upload-statement" class="form panel" onSubmit={submit}>
      <h2>{t("uploadStatement")}</h2>
      <AccountSelect accounts={props.accounts} id="us-account" />
      <Field label={t("statementFile")}>
        <input id="us-file" name="file" type="file" accept=".xml,.txt,.sta,.940,.mt940" required />
      </Field>
      <button type="submit" disabled={busy}>
        {t("upload")}
      </button>
      {result && (
        <div id="upload-result" class="wide-note" role="status">
          <p>
            {fill(t("uploaded"), {
              lines: result.lines,
              credits: result.credits,
              approved: result.approved,
              suggested: result.suggested,
              unmatched: result.unmatched,
              after: result.after_cancellation,
              duplicates: result.duplicates,
            })}
          </p>
          {doubts.length > 0 && (
            <>
              <strong>{t("doubts")}</strong>
              <ul id="upload-doubts" class="error">
                {doubts.map((d) => (
                  <li key={d}>{d}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </form>
  );
}
