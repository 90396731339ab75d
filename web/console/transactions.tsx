import { useEffect } from "preact/hooks";
import { TURKEY_ZONE, turkeyDayOf } from "../../src/domain/turkey-time.js";
import { api, query } from "./api";
import { refusalIn } from "./decision-text";
import { statusText, TransactionDetail, type TransactionRow, typeText } from "./transaction-detail";
import {
  amountInput,
  dayText,
  Field,
  filterQuery,
  lastDay,
  money,
  Options,
  payerName,
  useFirmNames,
  useLoad,
  useShell,
  when,
} from "./ui";
import { fill } from "./words";

const STATUSES = ["pending", "approved", "rejected"];
const TYPES = ["deposit", "withdrawal"];
const FILTERS = [
  "reference",
  "id",
  "user_id",
  "username",
  "iban",
  "status",
  "type",
  "firm",
  "amount",
  "name",
  "from",
  "to",
] as const;

/** What one search shows (the server's default page); the CSV export gives up to 50,000 rows. */
const SEARCH_PAGE = 200;

/** Midnight today in Istanbul, the day the console's dates are in (filterQuery's `from`). */
const todayFrom = () => `${turkeyDayOf(Date.now())}T00:00:00${TURKEY_ZONE}`;

/**
 * Search with every filter operators use for reconciliation and the same filter as CSV; a result
 * opens its detail on a screen of its own.
 * Without a filter it shows today's transactions, newest first: a screen that opens empty, with a
 * button that does nothing until something is typed, reads as broken.
 */
export function Transactions({ filter, id }: { filter: URLSearchParams; id?: number }) {
  const q = query(Object.fromEntries(FILTERS.map((f) => [f, filter.get(f) ?? undefined])));
  return id === undefined ? <SearchList filter={filter} q={q} /> : <DetailScreen id={id} q={q} />;
}

/**
 * Where the list was when a row was opened: its search, its scroll and the row, so that coming
 * back (the browser's Back or the detail's link) shows the list as it was, with focus on that row.
 */
interface LeftList {
  q: string;
  id: number;
  y: number;
}
/** Set while a detail opened from the list is shown: the browser's Back is then the way back. */
let left: LeftList | null = null;

const detailHref = (id: number, q: string) => `#/transactions/${id}${q ? `?${q}` : ""}`;

function openDetail(id: number, q: string) {
  left = { q, id, y: window.scrollY };
  location.hash = detailHref(id, q);
}

/**
 * A transaction's detail on a screen of its own (its own address): on a tablet it opened under the
 * whole search form, out of sight. Its link back returns to the list it came from.
 */
function DetailScreen({ id, q }: { id: number; q: string }) {
  const { t } = useShell();
  const list = `#/transactions${q ? `?${q}` : ""}`;
  return (
    <section id="transaction">
      <p class="back">
        <a
          id="d-back"
          href={list}
          onClick={(e) => {
            // Opened from the list: the browser's own way back keeps the list's place in history.
            if (left?.id === id) {
              e.preventDefault();
              history.back();
            }
          }}
        >
          ← {t("backToSearch")}
        </a>
      </p>
      <TransactionDetail id={id} />
    </section>
  );
}

function SearchList({ filter, q }: { filter: URLSearchParams; q: string }) {
  const { t, lang, notify } = useShell();
  const firmNames = useFirmNames();
  const [found, reloadRows] = useLoad(async () => {
    const res = await api<TransactionRow[]>("GET", `/transactions?${q || query({ from: todayFrom() })}`);
    // A refused search (an id that is not a number, say) says why instead of "no results".
    if (!res.ok) notify(refusalIn(res.json, res.status), true);
    // A search without dates and without a key covers the last days only (X-Search-From): said.
    return res.ok ? { rows: res.json, since: res.headers.get("x-search-from") } : undefined;
  }, q);
  const rows = found?.rows;
  const since = found?.since ?? null;
  // Back from a detail opened here: the list where it was, the row it opened focused.
  useEffect(() => {
    if (!rows || !left || left.q !== q) return;
    const { id, y } = left;
    left = null;
    window.scrollTo(0, y);
    (document.querySelector(`#results tr[data-id="${id}"] a`) as HTMLElement | null)?.focus({
      preventScroll: true,
    });
  }, [rows, q]);

  return (
    <section id="search">
      <SearchForm filter={filter} q={q} firmNames={firmNames} onSame={reloadRows} />
      <p class="help" id="search-shown" aria-live="polite">
        {t(q ? "searchFiltered" : "searchToday").replace("{n}", String(SEARCH_PAGE))}
        {since && ` ${t("searchSince").replace("{date}", dayText(since, lang))}`}
      </p>
      <div>
        <table>
          <thead>
            <tr>
              <th>#</th>
              <th>{t("created")}</th>
              <th>{t("type")}</th>
              <th>{t("status")}</th>
              <th>{t("amount")}</th>
              <th>{t("reference")}</th>
              <th>{t("payer")}</th>
            </tr>
          </thead>
          <tbody id="results">
            {(rows ?? []).map((r) => (
              <tr
                key={r.id}
                data-id={r.id}
                // The whole row opens it for a mouse; the link in its first cell is the keyboard's way.
                onClick={() => openDetail(r.id, q)}
              >
                <td>
                  <a
                    href={detailHref(r.id, q)}
                    aria-label={fill(t("detailOf"), {
                      id: r.id,
                      name: payerName(r),
                      amount: `${money(r.amount)} TL`,
                    })}
                    onClick={(e) => {
                      e.preventDefault();
                      e.stopPropagation();
                      openDetail(r.id, q);
                    }}
                  >
                    {r.id}
                  </a>
                </td>
                <td>{when(r.created_at, lang)}</td>
                <td>{typeText(r.type, t)}</td>
                <td>
                  <span class={`status ${r.status}`}>{statusText(r.status, t)}</span>
                </td>
                <td class="amount">{money(r.amount)} TL</td>
                <td>{r.reference}</td>
                <td>{payerName(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows && rows.length === 0 && (
          <p class="help" id="no-results">
            {t(q ? "noResults" : "noneToday")}
            {filter.get("reference") ? ` ${t("referenceExact")}` : ""}
          </p>
        )}
        {rows && rows.length >= SEARCH_PAGE && (
          <p id="more" class="help error">
            {t("firstResults").replace("{n}", String(SEARCH_PAGE))}
          </p>
        )}
      </div>
    </section>
  );
}

/** Every filter of the search, filled in from the address, with the CSV links for the same filter. */
function SearchForm({
  filter,
  q,
  firmNames,
  onSame,
}: {
  filter: URLSearchParams;
  q: string;
  firmNames: Map<number, string>;
  /** The same search asked for again (the address does not change): its rows are fetched anew. */
  onSame(): void;
}) {
  const { t } = useShell();
  function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    // The amount as typed by a person (1.250,50, with TL) in the API's form; unreadable: as typed,
    // and the server's refusal says so.
    const params = new URLSearchParams(filterQuery(form, FILTERS));
    const amount = params.get("amount");
    if (amount) params.set("amount", amountInput(amount) as string);
    const asked = params.toString();
    if (asked === q) onSame();
    else location.hash = asked ? `#/transactions?${asked}` : "#/transactions";
  }
  const day = (v: string | null) => v?.slice(0, 10) ?? "";
  return (
    <form id="search-form" class="filters" onSubmit={submit}>
      <Field label={t("reference")}>
        <input id="s-reference" name="reference" defaultValue={filter.get("reference") ?? ""} />
      </Field>
      <Field label={t("fTxId")}>
        <input name="id" inputMode="numeric" defaultValue={filter.get("id") ?? ""} />
      </Field>
      <Field label={t("fUserId")}>
        <input id="s-user" name="user_id" defaultValue={filter.get("user_id") ?? ""} />
      </Field>
      <Field label={t("fUsername")}>
        <input name="username" defaultValue={filter.get("username") ?? ""} />
      </Field>
      <Field label="IBAN">
        <input id="s-iban" name="iban" defaultValue={filter.get("iban") ?? ""} />
      </Field>
      <Field label={t("status")}>
        <Options
          name="status"
          id="s-status"
          chosen={filter.get("status")}
          values={STATUSES}
          labels={(v) => statusText(v, t)}
          any={t("any")}
        />
      </Field>
      <Field label={t("type")}>
        {/* In the console's language, as the list shows them (they read `withdrawal`, `pending`). */}
        <Options
          name="type"
          chosen={filter.get("type")}
          values={TYPES}
          labels={(v) => typeText(v, t)}
          any={t("any")}
        />
      </Field>
      <Field label={t("firm")}>
        {/* By name; the filter takes the id. */}
        <Options
          name="firm"
          chosen={filter.get("firm")}
          values={[...firmNames.keys()].map(String)}
          labels={(id) => (firmNames.has(Number(id)) ? `${firmNames.get(Number(id))} (#${id})` : `#${id}`)}
          any={t("any")}
        />
      </Field>
      <Field label={t("amount")}>
        <input
          name="amount"
          inputMode="decimal"
          size={9}
          placeholder="1.250,50"
          defaultValue={filter.get("amount") ? money(filter.get("amount") ?? "") : ""}
        />
      </Field>
      <Field label={t("payer")}>
        {/* As a bank statement writes it: "SUKRU OZTURK" finds Şükrü Öztürk, words in any order. */}
        <input
          id="s-name"
          name="name"
          size={14}
          placeholder="SUKRU OZTURK"
          autoComplete="off"
          defaultValue={filter.get("name") ?? ""}
        />
      </Field>
      <Field label={t("from")}>
        <input name="from" type="date" defaultValue={day(filter.get("from"))} />
      </Field>
      <Field label={t("to")}>
        <input name="to" type="date" defaultValue={lastDay(filter.get("to"))} />
      </Field>
      <button type="submit">{t("find")}</button>
      <a id="csv" class="button secondary" href={`/ops/api/transactions.csv?${q}`} download>
        {t("csv")}
      </a>
      {/* The plain CSV stays as machines read it; this one is for a Turkish Excel's double click. */}
      <a
        id="csv-excel"
        class="button secondary"
        href={`/ops/api/transactions.csv?${q ? `${q}&` : ""}format=excel`}
        title={t("csvExcelHint")}
        download
      >
        {t("csvExcel")}
      </a>
    </form>
  );
}
