import { Fragment } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { TransactionView } from "../../src/transactions/views.js";
import type { T } from "./i18n";
import { age, money, payerName, useShell } from "./ui";
import { fill } from "./words";

/**
 * A withdrawal's IBAN as a bank's form takes it: no spaces, dashes or lower case. It is kept as the
 * merchant sent it (never refused, the contract), so `tr33 0006 1005 …` arrives as often as
 * `TR330006100519786457841326`, and a bank's IBAN field refuses the first or cuts it at 26.
 */
export function ibanPlain(iban: string): string {
  return iban.replace(/[\s\u00a0-]+/g, "").toUpperCase();
}

/**
 * Whether `plain` is shaped like an IBAN, its check digits right or not: a Turkish one is TR and 24
 * digits; another country's, two letters, two digits and 11 to 30 letters or digits. Only such a
 * value is grouped and copied without its spaces: `TR00 not an iban` stays as it came.
 */
const ibanShaped = (plain: string) =>
  plain.startsWith("TR") ? /^TR\d{24}$/.test(plain) : /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(plain);

/** What the IBAN copy button copies: the IBAN as a bank's field takes it, or what came, trimmed. */
export function ibanForBank(iban: string): string {
  const plain = ibanPlain(iban);
  return ibanShaped(plain) ? plain : iban.trim();
}

/**
 * An IBAN for reading: in groups of four, as banks print it (`TR33 0006 1005 1978 6457 8413 26`),
 * so that an operator comparing it with a bank's screen finds the group that differs. The groups are
 * spaced by the stylesheet, not by space characters (a narrow table wraps them at a <wbr>):
 * selected by hand and copied (a double click takes it all), it is still the 26 characters a bank's
 * field takes. A value that is no IBAN at all (`TR00 not an iban`) is shown as it came.
 */
export function IbanText({ iban }: { iban: string }) {
  const plain = ibanPlain(iban);
  if (!ibanShaped(plain)) return <span class="iban">{iban}</span>;
  const groups = plain.match(/.{1,4}/g) ?? [];
  return (
    <span class="iban grouped" title={plain}>
      {groups.map((g, i) => (
        // The groups are the IBAN's, in its order: the index is their key.
        <Fragment key={i}>
          {/* Where a narrow table may wrap it: between groups, with nothing copied there. */}
          {i > 0 && <wbr />}
          <span>{g}</span>
        </Fragment>
      ))}
    </span>
  );
}

/** The fields of a payout that go into a bank's transfer form, each with its copy key in the queue. */
export type PayoutField = "iban" | "payee" | "amount";
const LABEL = { iban: "copyIban", payee: "copyPayee", amount: "copyAmount" } as const;
const COPIED = { iban: "copiedIban", payee: "copiedPayee", amount: "copiedAmount" } as const;

/** What a payout's copy needs of it (a queue row or a transaction's detail). */
export type Payout = Pick<
  TransactionView,
  "id" | "amount" | "iban" | "first_name" | "middle_name" | "last_name"
>;

/**
 * A payout's field as a bank's transfer form takes it (`value`) and as the notice shows it
 * (`shown`: the amount with its thousands dots and TL); null for an IBAN the payout has not got.
 */
export function payoutField(tx: Payout, field: PayoutField): { value: string; shown: string } | null {
  if (field === "iban") {
    if (tx.iban === null) return null;
    const plain = ibanForBank(tx.iban);
    return { value: plain, shown: plain };
  }
  if (field === "payee") return { value: payerName(tx), shown: payerName(tx) };
  return { value: amountForBank(tx.amount), shown: `${money(tx.amount)} TL` };
}

/** `#12: ayse@… bu çekimi ödüyor (2 dk): …`: whose mark a payout carries, where one is about to act on it. */
export function payingElsewhere(t: T, tx: { id: number }, who: string, since: string | null): string {
  return `#${tx.id}: ${fill(t("payingElsewhere"), { who, age: age(since ?? new Date().toISOString(), t) })}`;
}

/**
 * What the notice says once a payout's field is copied (`#12: IBAN kopyalandı: TR33…`), by button
 * or key: the value, to be checked against the bank's screen, and for a screen reader the word that
 * the copy happened (the notice line is read out).
 */
export function copiedNotice(t: T, id: number, field: PayoutField, shown: string) {
  return `#${id}: ${t(COPIED[field])}: ${shown}`;
}

/**
 * A small button that puts `value` on the clipboard, exactly as a bank's form takes it, shows a tick
 * for a moment and says what was copied in the notice line. Its label names the field for screen
 * readers and the tooltip ("IBAN'ı kopyala"). Outside a secure context (the console over plain http
 * on a private address) the browser has no clipboard API: the value is copied through a hidden
 * field, as browsers have always allowed for a click.
 */
export function CopyButton(props: {
  tx: Payout;
  field: PayoutField;
  class?: string;
  /** Asked first (a payout is marked as being paid by this operator): false copies nothing. */
  before?: () => Promise<boolean>;
}) {
  const { t, notify } = useShell();
  const [done, setDone] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const label = t(LABEL[props.field]);
  const copied = payoutField(props.tx, props.field);
  if (copied === null) return null;
  return (
    <button
      type="button"
      class={`copy link${props.class ? ` ${props.class}` : ""}`}
      title={label}
      // Many rows have the same buttons: a screen reader hears whose value each one copies.
      aria-label={`${label} — #${props.tx.id}, ${payerName(props.tx)}`}
      data-copy={copied.value}
      onClick={async () => {
        if (props.before && !(await props.before())) return;
        if (!(await copyText(copied.value))) return notify(t("copyValueFailed"), true);
        notify(copiedNotice(t, props.tx.id, props.field, copied.shown));
        setDone(true);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? (
        "✓"
      ) : (
        // Two sheets, one over the other: the usual copy sign (a font's ⧉ is often missing).
        <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true" focusable="false">
          <rect
            x="5"
            y="5"
            width="9"
            height="9"
            rx="1.5"
            fill="none"
            stroke="currentColor"
            stroke-width="1.6"
          />
          <path
            d="M11 3.5V3a1 1 0 0 0-1-1H3a1 1 0 0 0-1 1v7a1 1 0 0 0 1 1h.5"
            fill="none"
            stroke="currentColor"
            stroke-width="1.6"
          />
        </svg>
      )}
    </button>
  );
}

/** Puts `text` on the clipboard; false when the browser refused. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, the page not focused): the old way below may still work.
  }
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.style.position = "fixed";
  field.style.opacity = "0";
  document.body.appendChild(field);
  const focused = document.activeElement as HTMLElement | null;
  field.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  field.remove();
  focused?.focus({ preventScroll: true });
  return ok;
}

/** An API amount ("1250.50") as a bank's amount field takes it: no thousands dots ("1250,50"). */
export function amountForBank(amount: string): string {
  const [whole = "", cents = ""] = amount.split(".");
  return `${whole},${cents.padEnd(2, "0")}`;
}
