/**
 * A firm's days in "Bakiyeler" (#/balances/7?from=…&to=…&day=…): each Türkiye day's opening, what
 * moved the balance by kind, and its closing, over a range (the last seven days unless asked), as
 * CSV too; a day opened shows its postings, page by page, and downloads them as CSV.
 */
import { useState } from "preact/hooks";
import type { DayPosting, FirmDaysView, FirmDayView } from "../../src/backoffice/operator-services.js";
import { api, query } from "./api";
import { type BW, balanceWords, postingKindText } from "./balances-words";
import { refusalIn } from "./decision-text";
import { Field, formValue, money2, useLoad, useShell, when } from "./ui";

/** The day's figures in the report's order (src/ledger/day-report.ts DAY_MOVEMENTS), opening to closing. */
const COLUMNS = [
  "opening",
  "deposits",
  "withdrawals",
  "commissions",
  "returns",
  "settlements",
  "adjustments",
  "opening_balance",
  "closing",
] as const;

export function FirmDays({ firmId, filter }: { firmId: number; filter: URLSearchParams }) {
  const { lang, notify } = useShell();
  const w = balanceWords(lang);
  const asked = { from: filter.get("from") ?? undefined, to: filter.get("to") ?? undefined };
  const day = filter.get("day");
  const [view] = useLoad(
    async () => {
      const q = query(asked);
      const res = await api<FirmDaysView>("GET", `/ledger/firms/${firmId}/days${q ? `?${q}` : ""}`);
      if (!res.ok) notify(refusalIn(res.json, res.status, lang), true);
      return res.ok ? res.json : undefined;
    },
    `ledger-days-${firmId}-${asked.from ?? ""}-${asked.to ?? ""}`,
  );
  const range = view ? `from=${view.from}&to=${view.to}` : "";
  function show(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const q = query({ from: formValue(form, "from"), to: formValue(form, "to") });
    location.hash = `#/balances/${firmId}${q ? `?${q}` : ""}`;
  }
  return (
    <section id="firm-days">
      <a class="link" href="#/balances">
        {w("backToBalances")}
      </a>
      <h1>{view ? w("firmDaysOf", { name: view.name }) : w("balances")}</h1>
      <p class="help">{w("daysHelp")}</p>
      {view && (
        <form id="days-range" class="form" onSubmit={show}>
          <Field label={w("from")}>
            <input type="date" name="from" defaultValue={view.from} required />
          </Field>
          <Field label={w("to")}>
            <input type="date" name="to" defaultValue={view.to} required />
          </Field>
          <button type="submit">{w("show")}</button>
          <a
            id="days-csv"
            class="button secondary"
            href={`/ops/api/ledger/firms/${firmId}/days.csv?${range}`}
            download
          >
            {w("csv")}
          </a>
          <a
            id="days-csv-excel"
            class="button secondary"
            href={`/ops/api/ledger/firms/${firmId}/days.csv?${range}&format=excel`}
            title={w("csvExcelHint")}
            download
          >
            {w("csvExcel")}
          </a>
        </form>
      )}
      {view && <DaysTable view={view} day={day} w={w} />}
      {day && <DayPostings key={day} firmId={firmId} date={day} w={w} />}
    </section>
  );
}

function DaysTable({ view, day, w }: { view: FirmDaysView; day: string | null; w: BW }) {
  const base = `#/balances/${view.firm}?from=${view.from}&to=${view.to}`;
  return (
    <table id="days">
      <thead>
        <tr>
          <th scope="col">{w("date")}</th>
          {COLUMNS.map((c) => (
            <th key={c} scope="col" class="num">
              {w(c)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {view.days.map((d) => (
          <tr key={d.date} data-date={d.date} class={d.date === day ? "selected" : ""}>
            <th scope="row">
              <a href={`${base}&day=${d.date}`} aria-label={w("openDay", { date: d.date })}>
                {d.date}
              </a>
            </th>
            {COLUMNS.map((c) => (
              <td key={c} class={d[c].startsWith("-") ? "amount negative" : "amount"} data-col={c}>
                {money2(d[c])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One day's postings, a page at a time (`next` says where the next one starts). */
function DayPostings({ firmId, date, w }: { firmId: number; date: string; w: BW }) {
  const { lang, notify } = useShell();
  const [more, setMore] = useState<{ postings: DayPosting[]; next: string | null } | null>(null);
  const [first] = useLoad(async () => {
    const res = await api<FirmDayView>("GET", `/ledger/firms/${firmId}/days/${date}`);
    if (!res.ok) notify(refusalIn(res.json, res.status, lang), true);
    return res.ok ? res.json : undefined;
  }, `ledger-day-${firmId}-${date}`);
  const postings = [...(first?.postings ?? []), ...(more?.postings ?? [])];
  const next = more ? more.next : (first?.next ?? null);
  async function loadMore() {
    if (next === null) return;
    const res = await api<FirmDayView>(
      "GET",
      `/ledger/firms/${firmId}/days/${date}?after=${encodeURIComponent(next)}`,
    );
    if (!res.ok) return notify(refusalIn(res.json, res.status, lang), true);
    setMore({ postings: [...(more?.postings ?? []), ...res.json.postings], next: res.json.next });
  }
  const csv = `/ops/api/ledger/firms/${firmId}/days/${date}/postings.csv`;
  return (
    <section id="day-postings" class="panel" aria-labelledby="day-postings-h">
      <h2 id="day-postings-h">{w("dayPostings", { date })}</h2>
      <p>
        <a id="day-csv" class="button secondary" href={csv} download>
          {w("dayCsv")}
        </a>{" "}
        <a id="day-csv-excel" class="button secondary" href={`${csv}?format=excel`} download>
          {w("dayCsvExcel")}
        </a>
      </p>
      {first && postings.length === 0 && <p class="help">{w("noPostings")}</p>}
      {postings.length > 0 && (
        <table id="postings">
          <thead>
            <tr>
              <th scope="col">{w("at")}</th>
              <th scope="col">{w("kind")}</th>
              <th scope="col">{w("key")}</th>
              <th scope="col" class="num">
                {w("amount")}
              </th>
              <th scope="col">{w("memo")}</th>
            </tr>
          </thead>
          <tbody>
            {postings.map((p) => (
              <tr key={p.id} data-posting={p.id}>
                <td>{when(p.at, lang)}</td>
                <td>{postingKindText(p.kind, lang)}</td>
                <td>
                  <code>{p.key}</code>
                </td>
                <td class={p.amount.startsWith("-") ? "amount negative" : "amount"}>{money2(p.amount)} TL</td>
                <td>
                  <bdi>{p.memo ?? ""}</bdi>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next !== null && (
        <button type="button" class="secondary" id="more-postings" onClick={loadMore}>
          {w("more")}
        </button>
      )}
    </section>
  );
}
