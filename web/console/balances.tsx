/**
 * "Bakiyeler" (docs/console.md, "Bakiyeler / Balances"), for admins: every live firm's balance, in
 * transit, held and available, sortable, with their totals; every bank account's last check against
 * the ledger, one line per IBAN, a difference or a statement without a closing balance marked as an
 * error, and its explanation opened under the list (#/balances?account=3); a firm's days on their
 * own screen (#/balances/7, balances-days.tsx).
 */
import { useState } from "preact/hooks";
import type {
  AccountCheckView,
  BalancesView,
  BankAccountLine,
  FirmBalanceLine,
} from "../../src/backoffice/operator-services.js";
import { api } from "./api";
import { FirmDays } from "./balances-days";
import { accountStateText, type BW, balanceWords } from "./balances-words";
import { IbanText } from "./copy";
import { refusalIn } from "./decision-text";
import { lineStateText } from "./statement-words";
import { money2, useLoad, useShell, when } from "./ui";

/** Balances move with every decision: the screen reads itself again this often. */
const REFRESH_MS = 30_000;

export function Balances({ filter, id }: { filter: URLSearchParams; id?: number }) {
  if (id !== undefined) return <FirmDays key={id} firmId={id} filter={filter} />;
  const account = Number(filter.get("account"));
  return <Overview account={Number.isInteger(account) && account > 0 ? account : undefined} />;
}

function Overview({ account }: { account?: number }) {
  const { lang, notify } = useShell();
  const w = balanceWords(lang);
  const [balances] = useLoad(
    async () => {
      const res = await api<BalancesView>("GET", "/ledger/balances");
      if (!res.ok) notify(refusalIn(res.json, res.status, lang), true);
      return res.ok ? res.json : undefined;
    },
    "ledger-balances",
    REFRESH_MS,
  );
  const [accounts] = useLoad(
    async () => {
      const res = await api<{ accounts: BankAccountLine[] }>("GET", "/ledger/bank-accounts");
      if (!res.ok) notify(refusalIn(res.json, res.status, lang), true);
      return res.ok ? res.json.accounts : undefined;
    },
    "ledger-bank-accounts",
    REFRESH_MS,
  );
  const opened = accounts?.find((a) => a.accounts.some((x) => x.id === account));
  return (
    <section id="balances">
      <h1>{w("balances")}</h1>
      <p class="help">{w("balancesIntro")}</p>
      <section aria-labelledby="balances-firms-h">
        <h2 id="balances-firms-h">{w("firmsTitle")}</h2>
        <p class="help">{w("balancesHelp")}</p>
        {balances && <FirmTable view={balances} w={w} />}
      </section>
      <section aria-labelledby="balances-accounts-h">
        <h2 id="balances-accounts-h">{w("accountsTitle")}</h2>
        <p class="help">{w("accountsHelp")}</p>
        {accounts && <AccountTable list={accounts} w={w} />}
      </section>
      {account !== undefined && opened && <AccountCheck key={account} line={opened} w={w} />}
    </section>
  );
}

type SortKey = "name" | "balance" | "in_transit" | "available";

/** An API amount's value, for ordering only (what is shown stays the API's text). */
const orderOf = (amount: string) => Number(amount);
/** A figure below zero, marked: a firm owing the service, or a payout taking more than it has. */
const signClass = (amount: string) => (amount.startsWith("-") ? "amount negative" : "amount");

function FirmTable({ view, w }: { view: BalancesView; w: BW }) {
  const [sort, setSort] = useState<{ key: SortKey; down: boolean }>({ key: "name", down: false });
  if (view.firms.length === 0) return <p class="help">{w("noFirms")}</p>;
  const rows = [...view.firms].sort((a, b) => {
    const order =
      sort.key === "name" ? a.name.localeCompare(b.name, "tr") : orderOf(a[sort.key]) - orderOf(b[sort.key]);
    return sort.down ? -order : order;
  });
  const header = (key: SortKey, label: string, numeric = true) => {
    const current = sort.key === key;
    return (
      <th
        scope="col"
        class={numeric ? "num" : undefined}
        aria-sort={current ? (sort.down ? "descending" : "ascending") : undefined}
      >
        <button
          type="button"
          class="link sort"
          data-sort={key}
          title={w("sortBy", { column: label })}
          onClick={() => setSort({ key, down: current ? !sort.down : numeric })}
        >
          {label}
          {current ? (sort.down ? " ▼" : " ▲") : ""}
        </button>
      </th>
    );
  };
  return (
    <table id="balance-firms">
      <thead>
        <tr>
          {header("name", w("firm"), false)}
          {header("balance", w("balance"))}
          {header("in_transit", w("inTransit"))}
          <th scope="col" class="num">
            {w("held")}
          </th>
          {header("available", w("available"))}
        </tr>
      </thead>
      <tbody>
        {rows.map((f) => (
          <FirmRow key={f.firm} f={f} w={w} />
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">{w("total")}</th>
          <td class={signClass(view.totals.balance)}>{money2(view.totals.balance)} TL</td>
          <td class="amount">{money2(view.totals.in_transit)} TL</td>
          <td />
          <td class={signClass(view.totals.available)}>{money2(view.totals.available)} TL</td>
        </tr>
      </tfoot>
    </table>
  );
}

function FirmRow({ f, w }: { f: FirmBalanceLine; w: BW }) {
  return (
    <tr data-firm={f.firm}>
      <th scope="row">
        <a href={`#/balances/${f.firm}`} aria-label={w("firmDaysOf", { name: f.name })}>
          <bdi>{f.name}</bdi>
        </a>{" "}
        {!f.active && <span class="tag">{w("closedFirm")}</span>}
      </th>
      <td class={signClass(f.balance)} data-col="balance">
        {money2(f.balance)} TL
      </td>
      <td class="amount" data-col="in_transit">
        {money2(f.in_transit)} TL
      </td>
      <td class="amount" data-col="held">
        {money2(f.held)} TL
      </td>
      <td class={signClass(f.available)} data-col="available">
        {money2(f.available)} TL
      </td>
    </tr>
  );
}

/** A figure the ledger or the bank did not give: a dash, never a zero that reads as balanced. */
const orDash = (amount: string | null) => (amount === null ? "—" : `${money2(amount)} TL`);
const isError = (state: string) => state === "difference" || state === "no_closing_balance";

function AccountTable({ list, w }: { list: BankAccountLine[]; w: BW }) {
  const { lang } = useShell();
  if (list.length === 0) return <p class="help">{w("noAccounts")}</p>;
  return (
    <table id="balance-accounts">
      <thead>
        <tr>
          <th scope="col">{w("iban")}</th>
          <th scope="col">{w("accounts")}</th>
          <th scope="col" class="num">
            {w("expected")}
          </th>
          <th scope="col" class="num">
            {w("lastStatement")}
          </th>
          <th scope="col">{w("statementEnd")}</th>
          <th scope="col" class="num">
            {w("difference")}
          </th>
          <th scope="col">{w("state")}</th>
        </tr>
      </thead>
      <tbody>
        {list.map((a) => {
          const first = a.accounts[0]?.id;
          return (
            <tr
              key={a.iban}
              data-iban={a.iban}
              data-state={a.state}
              class={isError(a.state) ? "mismatch" : ""}
            >
              <th scope="row">
                <IbanText iban={a.iban} />
              </th>
              <td>
                {a.accounts.map((x) => (
                  <div key={x.id}>
                    #{x.id} <bdi>{x.bank_name}</bdi>
                  </div>
                ))}
              </td>
              <td class="amount">{orDash(a.expected)}</td>
              <td class="amount">{orDash(a.last_statement)}</td>
              <td>{a.statement_end ? when(a.statement_end, lang) : "—"}</td>
              <td class={isError(a.state) ? "amount error" : "amount"} data-col="difference">
                {orDash(a.difference)}
              </td>
              <td class={isError(a.state) ? "error" : undefined} data-col="state">
                {accountStateText(a.state, lang)}
                {first !== undefined && a.state !== "no_iban" && a.state !== "not_checked" && (
                  <>
                    {" "}
                    <a
                      class="explain"
                      href={`#/balances?account=${first}`}
                      aria-label={w("explainOf", { iban: a.iban })}
                    >
                      {w("explain")}
                    </a>
                  </>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The last check of one IBAN, with what makes its difference up (GET …/ledger/accounts/{id}/check). */
function AccountCheck({ line, w }: { line: BankAccountLine; w: BW }) {
  const { lang, notify } = useShell();
  const id = line.accounts[0]?.id ?? 0;
  const [check] = useLoad(async () => {
    const res = await api<AccountCheckView>("GET", `/ledger/accounts/${id}/check`);
    if (!res.ok && res.status !== 404) notify(refusalIn(res.json, res.status, lang), true);
    return res.ok ? res.json : res.status === 404 ? null : undefined;
  }, `ledger-check-${id}`);
  return (
    <section id="account-check" class="panel" aria-labelledby="account-check-h">
      <h2 id="account-check-h">{w("checkTitle", { iban: line.iban })}</h2>
      <a class="link" href="#/balances">
        {w("closeCheck")}
      </a>
      {check === null && <p class="help">{w("checkNone")}</p>}
      {check && <CheckFigures check={check} w={w} />}
    </section>
  );
}

function CheckFigures({ check, w }: { check: AccountCheckView; w: BW }) {
  const { lang, t } = useShell();
  const bad = check.problem !== null || check.difference === null || !/^-?0\.00$/.test(check.difference);
  return (
    <>
      <dl class="figures">
        <dt>{w("statementEnd")}</dt>
        <dd>{when(check.at, lang)}</dd>
        <dt>{w("bankClosing")}</dt>
        <dd>{orDash(check.bank_closing)}</dd>
        <dt>{w("expectedThen")}</dt>
        <dd>{money2(check.expected)} TL</dd>
        <dt>{w("difference")}</dt>
        <dd class={bad ? "error" : undefined} id="check-difference">
          {check.problem ? accountStateText(check.problem, lang) : orDash(check.difference)}
        </dd>
        <dt>{w("unposted")}</dt>
        <dd>{money2(check.unposted)} TL</dd>
        <dt>{w("unbanked")}</dt>
        <dd>{money2(check.unbanked)} TL</dd>
        <dt>{w("unexplained")}</dt>
        <dd id="check-unexplained">{orDash(check.unexplained)}</dd>
      </dl>
      <p class="help">{w("unexplainedHelp")}</p>
      {check.unposted_lines.count > 0 && (
        <>
          <h3>{w("unposted")}</h3>
          <p class="help">
            {w("countShown", { count: check.unposted_lines.count, shown: check.unposted_lines.lines.length })}
          </p>
          <ul class="check-list" id="unposted-lines">
            {check.unposted_lines.lines.map((l) => (
              <li key={l.line_id}>
                <a href={`#/statement-lines/${l.line_id}`}>#{l.line_id}</a> {when(l.booked_at, lang)} ·{" "}
                <strong>{money2(l.amount)} TL</strong> · {lineStateText(l.state, t)} ·{" "}
                <bdi>{l.description}</bdi>
              </li>
            ))}
          </ul>
        </>
      )}
      {check.unbanked_postings.count > 0 && (
        <>
          <h3>{w("unbanked")}</h3>
          <p class="help">
            {w("countShown", {
              count: check.unbanked_postings.count,
              shown: check.unbanked_postings.postings.length,
            })}
          </p>
          <ul class="check-list" id="unbanked-postings">
            {check.unbanked_postings.postings.map((p) => (
              <li key={p.posting_id}>
                {when(p.at, lang)} · <code>{p.key}</code> · <strong>{money2(p.amount)} TL</strong>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
