import { api, query } from "./api";
import { refusalIn } from "./decision-text";
import { Feeds, StatementUpload, TypedLineForm } from "./statement-entry";
import { LineDetail } from "./statement-line-detail";
import {
  accountLabel,
  bookedText,
  lineAmount,
  lineStateText,
  OPEN_STATES,
  type PaymentAccount,
  STATE_FILTERS,
  type StatementLine,
} from "./statement-words";
import { canDecide, Field, formValue, listOf, useLoad, useShell } from "./ui";

/** How many lines one look shows: a day's open lines fit; more is narrowed by account or day. */
const PAGE = 200;
/** Lines arrive by themselves (the live feed, a colleague's upload): the list follows. */
const REFRESH_MS = 15_000;

/**
 * "Hesap hareketleri" (docs/console.md): the bank's lines, those still waiting for a person first
 * (suggestions, unmatched credits, paid after cancellation), filtered by account, booking day and
 * state; a line opens beside the list (under it on a phone) with its candidates and actions. The
 * filter lives in the address, as the search's does, so a view can be reloaded and shared.
 */
export function StatementLines({ filter, id }: { filter: URLSearchParams; id?: number }) {
  const { t, me, notify } = useShell();
  const account = filter.get("account") ?? undefined;
  const day = filter.get("day") ?? undefined;
  const state = filter.get("state") ?? "open";
  const q = query({ account, day, state: state === "all" ? undefined : state, limit: String(PAGE) });
  const [lines, reload] = useLoad(
    async () => {
      const res = await api<StatementLine[]>("GET", `/statement-lines?${q}`);
      if (!res.ok) notify(refusalIn(res.json, res.status), true);
      return res.ok ? openFirst(res.json) : undefined;
    },
    q,
    REFRESH_MS,
  );
  const [accounts] = useLoad(async () => listOf<PaymentAccount>(await api("GET", "/accounts")), "accounts");
  const here = query({ account, day, state: filter.get("state") ?? undefined });
  const names = new Map((accounts ?? []).map((a) => [a.id, accountLabel(a)]));
  return (
    <section id="statement-lines">
      <h1>{t("statementLines")}</h1>
      <Feeds />
      <LineFilter filter={filter} accounts={accounts ?? []} />
      <p class="help keys">{t("linesKeys")}</p>
      <div class={id === undefined ? "" : "split"}>
        <div>
          <LineList lines={lines ?? []} id={id} here={here} names={names} />
          {lines && lines.length === 0 && (
            <p class="help" id="no-lines">
              {t("noLines")}
            </p>
          )}
          {lines && lines.length >= PAGE && (
            <p class="help error" id="more-lines">
              {t("firstLines").replace("{n}", String(PAGE))}
            </p>
          )}
        </div>
        {id !== undefined && <LineDetail key={id} id={id} names={names} onChanged={reload} />}
      </div>
      {canDecide(me.role) && (
        <div class="entry">
          <TypedLineForm accounts={accounts ?? []} here={here} onAdded={reload} />
          <StatementUpload accounts={accounts ?? []} onAdded={reload} />
        </div>
      )}
    </section>
  );
}

/** With every state shown, those still waiting for a person come first; else the server's order. */
function openFirst(lines: StatementLine[]): StatementLine[] {
  const waiting = (l: StatementLine) => (OPEN_STATES.includes(l.state) ? 0 : 1);
  return [...lines].sort((a, b) => waiting(a) - waiting(b));
}

function LineFilter({ filter, accounts }: { filter: URLSearchParams; accounts: PaymentAccount[] }) {
  const { t } = useShell();
  function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const state = formValue(form, "state");
    const q = query({
      state: state === "open" ? undefined : state,
      account: formValue(form, "account"),
      day: formValue(form, "day"),
    });
    location.hash = `#/statement-lines${q ? `?${q}` : ""}`;
  }
  const chosen = filter.get("state") ?? "open";
  return (
    <form id="lines-filter" class="filters" onSubmit={submit}>
      <Field label={t("account")}>
        <select name="account" id="l-account">
          <option value="">{t("any")}</option>
          {accounts.map((a) => (
            <option key={a.id} value={String(a.id)} selected={String(a.id) === filter.get("account")}>
              {accountLabel(a)}
            </option>
          ))}
        </select>
      </Field>
      <Field label={t("bookingDay")}>
        <input id="l-day" name="day" type="date" defaultValue={filter.get("day") ?? ""} />
      </Field>
      <Field label={t("status")}>
        <select name="state" id="l-state">
          {STATE_FILTERS.map((s) => (
            <option key={s} value={s} selected={s === chosen}>
              {lineStateText(s, t)}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit">{t("find")}</button>
    </form>
  );
}

/**
 * The lines as cards, each a link to itself: Tab and Enter open one, j/k move between them, and a
 * phone shows each whole without scrolling sideways (a table would need a row's five columns).
 */
function LineList(props: { lines: StatementLine[]; id?: number; here: string; names: Map<number, string> }) {
  const { t, lang } = useShell();
  function keys(e: KeyboardEvent) {
    if (e.key !== "j" && e.key !== "k") return;
    const links = [...(e.currentTarget as HTMLElement).querySelectorAll<HTMLAnchorElement>("a.line")];
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    const next = links[Math.max(0, Math.min(links.length - 1, at + (e.key === "j" ? 1 : -1)))];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  }
  return (
    <ul id="lines" class="lines" onKeyDown={keys}>
      {props.lines.map((l) => (
        <li key={l.id} data-id={l.id} data-state={l.state} class={l.id === props.id ? "selected" : ""}>
          <a class="line" href={`#/statement-lines/${l.id}${props.here ? `?${props.here}` : ""}`}>
            <span class="l-head">
              <span class="l-booked">{bookedText(l, lang)}</span>
              <strong class="l-amount">
                {l.direction === "debit" ? "−" : ""}
                {lineAmount(l)}
              </strong>
            </span>
            <span class="l-sender">{l.sender_name === null ? "—" : <bdi>{l.sender_name}</bdi>}</span>
            {l.description && <span class="l-desc">{l.description}</span>}
            <span class="l-foot">
              <span class={`l-state ${l.state}`}>{lineStateText(l.state, t)}</span>
              <span class="muted">
                {" "}
                · #{l.id} · {props.names.get(l.account_id) ?? `#${l.account_id}`}
              </span>
            </span>
          </a>
        </li>
      ))}
    </ul>
  );
}
