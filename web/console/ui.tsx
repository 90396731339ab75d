import { type ComponentChildren, createContext } from "preact";
import { useCallback, useContext, useEffect, useRef, useState } from "preact/hooks";
import { TURKEY_TIME_ZONE, TURKEY_ZONE } from "../../src/domain/turkey-time.js";
import type { FirmNameView } from "../../src/management/service.js";
import type { ConsoleOperator, Role } from "../../src/operators/operator.js";
import { bareAmount, readAmount } from "../../src/payment-page/browser/amount.js";
import { api, query } from "./api";
import type { Lang, T } from "./i18n";

export type { Role };
/** Who is signed in. */
export type Operator = ConsoleOperator;

/** What every screen needs: words, who is signed in, and the notice line. */
export interface Shell {
  t: T;
  lang: Lang;
  me: Operator;
  /** How long the queues hold a decision before sending it (held-decisions.ts); 0: sent at once. */
  undoMs: number;
  /** The server's default share of each account's daily cap, percent (login.tsx SignedIn). */
  defaultCapShare: number;
  notify(text: string, bad?: boolean): void;
}
export const ShellContext = createContext<Shell | null>(null);
export function useShell(): Shell {
  const shell = useContext(ShellContext);
  if (!shell) throw new Error("useShell outside the signed-in app");
  return shell;
}

export const canDecide = (role: Role) => role !== "viewer";
export const isAdmin = (role: Role) => role === "admin";

/** A load unanswered this long no longer holds the next one back (useLoad). */
const LOAD_GIVE_UP_MS = 20_000;

/**
 * Loads with `load` now, whenever `key` changes, and every `everyMs` if given; `reload` for after a
 * change. One load runs at a time, and one more if reloads were asked for meanwhile: reloads asked
 * faster than a load takes (live queues under load, a slow link) would otherwise each supersede the
 * one before, and none would ever show. A load that has not answered in `LOAD_GIVE_UP_MS` (a
 * connection lost without a word, a laptop that slept) no longer holds the others back. A load of
 * a key that has since changed shows nothing.
 */
export function useLoad<V>(load: () => Promise<V | undefined>, key: string, everyMs?: number) {
  const [value, setValue] = useState<V | undefined>(undefined);
  const keyNow = useRef(key);
  keyNow.current = key;
  const flight = useRef({ key, since: 0, running: false, again: false });
  const reload = useCallback(async () => {
    // A `reload` kept from an earlier render (a decision that answered after the order changed).
    if (key !== keyNow.current) return;
    const f = flight.current;
    if (f.key === key && f.running && performance.now() - f.since < LOAD_GIVE_UP_MS) {
      f.again = true;
      return;
    }
    const mine = { key, since: performance.now(), running: true, again: false };
    flight.current = mine;
    try {
      do {
        mine.again = false;
        mine.since = performance.now();
        // A failed fetch (network down, server restarting) keeps what is shown; the next refresh retries.
        const v = await load().catch(() => undefined);
        // Replaced meanwhile (another key, a give-up, the view closed): this load is the past.
        if (flight.current !== mine) return;
        if (v !== undefined) setValue(v);
      } while (mine.again);
    } finally {
      mine.running = false;
    }
  }, [key]);
  // A closed view loads nothing more.
  useEffect(
    () => () => {
      flight.current = { key: "", since: 0, running: false, again: false };
    },
    [],
  );
  useEffect(() => {
    setValue(undefined);
    reload();
  }, [reload]);
  // Apart from the first load: a new interval keeps what is shown.
  useEffect(() => {
    if (!everyMs) return;
    const timer = setInterval(reload, everyMs);
    return () => clearInterval(timer);
  }, [reload, everyMs]);
  return [value, reload] as const;
}

export function Notice({ text, bad }: { text: string; bad: boolean }) {
  return (
    // Always in the page (an empty live region takes no room), so each new text is announced.
    <p id="message" role="status" class={bad ? "error" : "ok"}>
      {text}
    </p>
  );
}

export function Field(props: { label: string; children: ComponentChildren; wide?: boolean }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control comes in as children
    <label class={props.wide ? "field wide" : "field"}>
      <span>{props.label}</span>
      {props.children}
    </label>
  );
}

/**
 * A select whose choice is set once, not on every render: the screens refresh their data by
 * themselves and must not undo what the operator is choosing.
 */
export function Options(props: {
  name: string;
  id?: string;
  chosen?: string | null;
  values: string[];
  any: string;
  /** What each value shows as; the value itself when it has none. */
  labels?: (value: string) => string;
}) {
  // A chosen value not (yet) among the values keeps its place, so a search by it still says so.
  const values =
    props.chosen && !props.values.includes(props.chosen) ? [...props.values, props.chosen] : props.values;
  return (
    <select name={props.name} id={props.id}>
      <option value="">{props.any}</option>
      {values.map((v) => (
        <option key={v} value={v} selected={v === props.chosen}>
          {props.labels ? props.labels(v) : v}
        </option>
      ))}
    </select>
  );
}

/**
 * The firms' names by id, for screens that list transactions (which carry the id alone): an
 * operator knows "Demo Shop", not "firm 4". Refreshed every minute; empty until the first answer.
 */
export function useFirmNames(): Map<number, string> {
  const [firms] = useLoad(
    async () => listOf<FirmNameView>(await api("GET", "/firm-names")),
    "firm-names",
    60_000,
  );
  return new Map((firms ?? []).map((f) => [f.id, f.name]));
}

/** A small stacked bar: the share of each part, labelled for screen readers. */
/**
 * A day's transactions by outcome as one coloured bar, with its legend: each colour named with its
 * count in the console's language (the bar alone says nothing to a screen reader or to someone who
 * does not tell the colours apart).
 */
export function Bars({ parts }: { parts: [key: string, label: string, count: number][] }) {
  const total = parts.reduce((a, [, , n]) => a + n, 0) || 1;
  return (
    <>
      <div class="bars" aria-hidden="true">
        {parts.map(([k, , n]) => (
          <span key={k} class={k} style={{ width: `${(100 * n) / total}%` }} />
        ))}
      </div>
      <ul class="legend">
        {parts.map(([k, label, n]) => (
          <li key={k} data-part={k}>
            <span class={`swatch ${k}`} aria-hidden="true" />
            {label}: {n}
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * A change through the API, as every management screen makes it: the notice says saved or why
 * not; on success the form is cleared and the screen's data read again. Answers the API's answer.
 */
export function useChange(reload: () => void) {
  const { t, notify } = useShell();
  return async <T,>(method: string, path: string, body?: unknown, form?: HTMLFormElement) => {
    const res = await api<T>(method, path, body);
    notify(res.ok ? t("saved") : (res.json.message ?? String(res.status)), !res.ok);
    if (res.ok) {
      form?.reset();
      reload();
    }
    return res;
  };
}

/** A secret or password shown once, with a button to put it away. */
export function ShownOnce(props: { label: string; value: string; onClose?: () => void }) {
  return (
    <p id="secret" class="secret" role="status">
      {props.label} <code>{props.value}</code>{" "}
      {props.onClose && (
        <button type="button" class="link" onClick={props.onClose}>
          ×
        </button>
      )}
    </p>
  );
}

/** A filter form's fields as the API's query: Türkiye's days become instants, `to` exclusive. */
export function filterQuery(form: HTMLFormElement, names: readonly string[]): string {
  const values: Record<string, string | undefined> = {};
  for (const n of names) values[n] = formValue(form, n);
  if (values.from) values.from = `${values.from}T00:00:00${TURKEY_ZONE}`;
  if (values.to) values.to = nextDay(values.to);
  return query(values);
}

/** A list answer, or undefined when the server answered an error instead (kept as not loaded). */
export const listOf = <T,>(res: { ok: boolean; json: unknown }): T[] | undefined =>
  res.ok && Array.isArray(res.json) ? (res.json as T[]) : undefined;

/** The value of a form's named field, trimmed; empty as undefined. */
export function formValue(form: HTMLFormElement, name: string): string | undefined {
  const el = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
  const v = el?.value.trim();
  return v ? v : undefined;
}
export function formChecked(form: HTMLFormElement, name: string): boolean {
  return (form.elements.namedItem(name) as HTMLInputElement | null)?.checked ?? false;
}

/**
 * The payer's whole name, the middle name too when the merchant sent a valid one: a bank statement
 * line reads "AYSE GUL YILMAZ", and the operator compares it with this.
 */
export function payerName(p: { first_name: string; middle_name?: string | null; last_name: string }): string {
  return p.middle_name ? `${p.first_name} ${p.middle_name} ${p.last_name}` : `${p.first_name} ${p.last_name}`;
}

/** An API amount ("149.5", "12515") as the console shows money, always with its two decimals. */
export function money2(amount: string): string {
  const [whole = "", cents = ""] = amount.split(".");
  return money(`${whole}.${cents.padEnd(2, "0")}`);
}

/** An API amount ("1250.50") as a Turkish reader writes it ("1.250,50"), without floating point. */
export function money(amount: string): string {
  const [whole = "", cents] = amount.split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ".");
  return cents === undefined ? grouped : `${grouped},${cents}`;
}

/**
 * An amount as typed (Turkish "1.250,50", plain "1250,5" or "1250.50", with or without "TL") in the
 * API's form ("1250.50"), by the rules the payment page holds payers to (src/payment-page/browser/amount.js).
 * What cannot be read, such as "1.500" (1500 with a thousands dot, or 1.5 with three decimals?), is
 * passed on as typed: the API refuses it, and `isAmountInput` says so first.
 */
export function amountInput(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  return readAmount(v) ?? bareAmount(v);
}
/** Whether `amountInput` reads `v` as an amount above zero (an empty field is no amount either). */
export function isAmountInput(v: string | undefined): boolean {
  return v !== undefined && readAmount(v) !== null;
}

/**
 * Checks a form's amount fields before it is sent: the first that holds something other than an
 * amount is marked with `message` where it is (the browser's bubble, in the console's language, not
 * the API's English refusal) and focused. True when every one is empty or an amount.
 */
export function amountFieldsValid(form: HTMLFormElement, names: readonly string[], message: string): boolean {
  for (const name of names) {
    const el = form.elements.namedItem(name) as HTMLInputElement | null;
    if (!el) continue;
    el.setCustomValidity("");
    if (el.value.trim() === "" || isAmountInput(el.value)) continue;
    el.setCustomValidity(message);
    el.addEventListener("input", () => el.setCustomValidity(""), { once: true });
    el.reportValidity();
    el.focus();
    return false;
  }
  return true;
}

/** How long ago, in the console's language's short units (sn/dk/sa, s/min/h). */
export function age(iso: string, t: T): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 90
    ? `${s} ${t("unitSeconds")}`
    : s < 5400
      ? `${Math.round(s / 60)} ${t("unitMinutes")}`
      : `${Math.round(s / 3600)} ${t("unitHours")}`;
}

/** The API's `to` is exclusive: the day after a Türkiye date, at its midnight. */
export function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return `${d.toISOString().slice(0, 10)}T00:00:00${TURKEY_ZONE}`;
}
/** The last day a `to` made by nextDay includes, for the date field. */
export function lastDay(to: string | null): string {
  if (!to) return "";
  const d = new Date(`${to.slice(0, 10)}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

export const when = (iso: string, lang: Lang) =>
  new Date(iso).toLocaleString(lang === "tr" ? "tr-TR" : "en-GB", { timeZone: TURKEY_TIME_ZONE });
/** The day of a time, in Türkiye: "29.10.2026" / "29/10/2026". */
export const dayText = (iso: string, lang: Lang) =>
  new Date(iso).toLocaleDateString(lang === "tr" ? "tr-TR" : "en-GB", { timeZone: TURKEY_TIME_ZONE });
