import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, query } from "./api";
import {
  CopyButton,
  copiedNotice,
  copyText,
  IbanText,
  type PayoutField,
  payingElsewhere as payingElsewhereText,
  payoutField,
} from "./copy";
import { approveLabel, refusalIn, typedApproval } from "./decision-text";
import { markUnsent, useHeld } from "./held";
import { useQueueEvents } from "./live";
import { fill } from "./manage";
import {
  age,
  amountInput,
  canDecide,
  Field,
  formValue,
  isAmountInput,
  money,
  money2,
  Options,
  payerName,
  useFirmNames,
  useLoad,
  useShell,
} from "./ui";

/** In the withdrawal queue, copy the selected payout's IBAN, payee's name or amount (tutar). */
const COPY_KEYS = ["i", "n", "t"];
type CopyKey = "i" | "n" | "t";

/** How long a row must have held still for a pointer's click on its approve or reject to count. */
const MOVED_GUARD_MS = 800;
/**
 * After an approval by key the next row is selected: `a` for it within this long is a second press
 * aimed at the row just approved (a double tap), not a decision about a row the operator has not
 * looked at yet. (`r` only opens the note; the reject still takes Enter.)
 */
const NEXT_ROW_GUARD_MS = 700;

export interface QueueRow {
  id: number;
  type: "deposit" | "withdrawal";
  created_at: string;
  amount: string;
  first_name: string;
  /** Only a valid one the merchant sent (the API's rules), else null. */
  middle_name?: string | null;
  last_name: string;
  username: string;
  user_id: string;
  firm_id: number;
  reference: string;
  assigned_bank_name: string | null;
  assigned_iban: string | null;
  iban: string | null;
  iban_valid: boolean | null;
  /** How the merchant asked for the payout to be sent: the operator pays it out that way. */
  method: string;
  /** Withdrawals: the operator paying it out now (the first to copy its fields), and since when. */
  paying_by?: string | null;
  paying_since?: string | null;
}

/**
 * Pending deposits or withdrawals, shown as they change: the server tells the page at once
 * (live.ts), and the page also asks every 30 s (every 5 s while the server cannot tell it, as
 * before). A click on a row's approve or reject just after that row moved is not taken (below).
 * Decisions happen in the row: approve (with another amount typed in), or reject with a note
 * typed in place. j/k select, a approves, r opens the note, Enter confirms, Esc cancels. A row
 * decided elsewhere drops out on refresh, and a second decision is refused by the server (409),
 * shown as the notice.
 *
 * The keys act only on the row the operator selected (or focused) and can see: a held key decides
 * once, one decision runs at a time, and a selected row that leaves the list (decided by someone
 * else, auto-cancelled) is not silently replaced by another one.
 *
 * Where the server says so (`decision_undo_seconds`, 5 by default), a decision is held that long
 * before it is sent (held.ts): its row leaves the list at once, the bar below the list counts down,
 * and "Geri al" (or `u` for the last one) brings the row back with nothing sent.
 */
export function Queue({ type }: { type: "deposit" | "withdrawal" }) {
  const { t, me, notify: shellNotify, undoMs } = useShell();
  /**
   * Whether the notice shown is about a try the page refused (an amount it cannot read, a double
   * tap, the list just moved): a decision that then goes clears it, where a notice about a decision
   * (one the server refused, say) stays until the next one.
   */
  const refusedTry = useRef(false);
  const notify = (text: string, bad = false) => {
    refusedTry.current = false;
    shellNotify(text, bad);
  };
  const refuse = (text: string) => {
    shellNotify(text, true);
    refusedTry.current = true;
  };
  const [order, setOrder] = useState<"oldest" | "newest">("oldest");
  const deciding = useRef(false);
  const reloadNow = useRef(() => {});
  const live = useQueueEvents(() => {
    // A decision of this page's own is followed by its own reload (decide below).
    if (!deciding.current) reloadNow.current();
  });
  /** The filter applied (firm, amount, payer name) as a query string; "" for the whole queue. */
  const [filter, setFilter] = useState("");
  const [page, reload] = useLoad(
    async () => {
      const res = await api<QueueRow[]>("GET", `/queue?type=${type}&order=${order}&${filter}`);
      // A filter the server cannot read (a name of punctuation alone, six words): said so, no rows.
      if (res.status === 400) return { rows: [] as QueueRow[], total: 0, refused: true };
      if (!res.ok || !Array.isArray(res.json)) return undefined;
      // The server shows at most 500; the header says how many the (filtered) queue holds.
      const total = Number(res.headers.get("x-total-count") ?? res.json.length);
      return { rows: res.json, total: Number.isFinite(total) ? total : res.json.length, refused: false };
    },
    `${type}:${order}:${filter}`,
    live ? 30_000 : 5_000,
  );
  const rows = page?.rows;
  reloadNow.current = reload;
  const firmNames = useFirmNames();
  const [selected, setSelected] = useState<number | null>(null);
  const [rejecting, setRejecting] = useState<number | null>(null);
  /** The note of a rejection taken back, shown again in its row's note field. */
  const [noteBack, setNoteBack] = useState<{ id: number; note: string } | null>(null);
  const [amounts, setAmounts] = useState<Record<number, string>>({});
  const [busy, setBusy] = useState(false);
  /** Rows this page decided that are held, being sent, or sent and not yet gone from the list. */
  const hidden = useRef(new Set<number>());
  const [, setHiddenChanged] = useState(0);
  const held = useHeld(undoMs, (id: number, d: Decision) => sendHeld(id, d));
  const list = Array.isArray(rows) ? rows.filter((r) => !hidden.current.has(r.id)) : [];
  /** How many the (filtered) queue holds besides the rows this page decided and hides meanwhile. */
  const waiting = page ? page.total - page.rows.filter((r) => hidden.current.has(r.id)).length : 0;
  // A row that moved just before a click may have put itself under a pointer aimed at another:
  // its approve and reject by pointer wait until it has held still a moment (the keys, and Enter
  // on a focused button, act on the row chosen, wherever it is).
  const moved = useRef({ ids: [] as number[], at: new Map<number, number>(), own: new Set<number>() });
  // A row this page decided is hidden until the list no longer has it (or it comes back).
  useEffect(() => {
    if (!Array.isArray(rows)) return;
    for (const id of hidden.current)
      if (!held.has(id) && !rows.some((r) => r.id === id)) hidden.current.delete(id);
  }, [rows]);
  // Before the browser paints the moved rows, so no click on them can come first. On the rows shown:
  // a row hidden by a held decision, or back after an undo, moves the rows below it as a load does.
  const shown = list.map((r) => r.id).join(",");
  useLayoutEffect(() => {
    const ids = list.map((r) => r.id);
    const m = moved.current;
    const now = performance.now();
    // Rows this page decided leave as the operator expects; rows added after the last ones (oldest
    // first) move none. Any other change of place is a move.
    const before = m.ids.filter((id) => !m.own.has(id));
    const placeBefore = new Map(before.map((id, i) => [id, i]));
    const placeNow = new Map(ids.filter((id) => !m.own.has(id)).map((id, i) => [id, i]));
    for (const [id, i] of placeNow)
      if (placeBefore.has(id) ? placeBefore.get(id) !== i : i < before.length)
        // Moved, or put in among the rows already shown (a row back after an undo or a refused
        // send, a new one on top): either may now be under a pointer aimed at another.
        m.at.set(id, now);
    for (const id of m.at.keys())
      if (!placeNow.has(id) || now - (m.at.get(id) ?? 0) > MOVED_GUARD_MS) m.at.delete(id);
    for (const id of m.own) if (!ids.includes(id)) m.own.delete(id);
    m.ids = ids;
  }, [shown]);
  const settled = (id: number, e: MouseEvent): boolean => {
    // The second click of a double click: the row it was aimed at may have left from under it.
    if (e.detail > 1) return false;
    // `detail` 0: Enter or Space on the focused button, not a pointer.
    if (e.detail === 0 || performance.now() - (moved.current.at.get(id) ?? -Infinity) >= MOVED_GUARD_MS)
      return true;
    refuse(t("listMoved"));
    return false;
  };
  const current = list.find((r) => r.id === selected);

  // A selected row or an open note whose row left the list: say so, select nothing.
  useEffect(() => {
    if (!Array.isArray(rows) || deciding.current) return;
    if (selected !== null && !rows.some((r) => r.id === selected)) {
      setSelected(null);
      notify(`#${selected}: ${t("goneElsewhere")}`, true);
    }
    if (rejecting !== null && !rows.some((r) => r.id === rejecting)) setRejecting(null);
  }, [rows]);
  // The selected row is kept in view and takes the focus, so the keys act on what is on screen.
  // Before the browser paints, not after: an effect still waiting when the next key changes the
  // selection would focus the row selected before, and the focus would select it again. In view means
  // clear of the held decisions' bar too: a row behind it is not, and `a` would approve what the
  // operator cannot see (found by an operator's review at 1366 × 768).
  useLayoutEffect(() => {
    if (selected === null) return;
    const tr = document.querySelector<HTMLElement>(`#rows tr[data-id="${selected}"]`);
    if (!tr) return;
    keepInView(tr);
    if (!tr.contains(document.activeElement)) tr.focus({ preventScroll: true });
  }, [selected]);
  // The bar changed under the selected row: scrolled, never focused, and only while the operator is
  // working the list. Focus taken from the filter's name field would turn the name being typed into
  // keys (found by review: "AYSE" approved the selected row).
  useLayoutEffect(() => {
    if (selected === null) return;
    const tr = document.querySelector<HTMLElement>(`#rows tr[data-id="${selected}"]`);
    const active = document.activeElement;
    if (tr && (active === document.body || active?.closest("#rows"))) keepInView(tr);
  }, [held.list.length]);

  const refusalText = (message: string | undefined) => refusalIn(message, t);

  async function decide(row: QueueRow, kind: "approve" | "reject", note?: string, byKey = false) {
    if (deciding.current) return;
    const body: Record<string, string> = {};
    if (kind === "approve") {
      const typed = typedApproval(row, amounts[row.id], t, me.role);
      if (!typed.ok) return refuse(typed.message);
      if (typed.change && !confirm(`${typed.change}\n${t("confirmAmount")}`)) return;
      if (typed.amount) body.amount = typed.amount;
    }
    if (kind === "approve" && row.iban_valid === false && !confirm(`#${row.id}: ${t("confirmBadIban")}`))
      return;
    // A colleague said they are paying it: deciding it here may be deciding their payout.
    if (
      row.paying_by &&
      row.paying_by !== me.email &&
      !confirm(`${payingElsewhere(row)}\n${t("confirmDecidePaying")}`)
    )
      return;
    if (kind === "reject" && note?.trim()) body.note = note.trim();
    if (undoMs > 0) {
      // Held (nothing is sent yet): the row leaves now, as it will once sent. Not marked as the
      // page's own: the rows below move up under the pointer, and a click there must wait.
      hidden.current.add(row.id);
      setRejecting(null);
      selectNext(row, byKey);
      // A notice about an earlier try (a refused amount, a double tap) would contradict this one.
      if (refusedTry.current) notify("");
      held.hold(row.id, { kind, body, amount: body.amount ?? row.amount, payer: payerOf(row) });
      return;
    }
    deciding.current = true;
    setBusy(true);
    // Marked before it is sent: a load under way may come back without the row before the answer.
    moved.current.own.add(row.id);
    let leaves = false;
    try {
      const res = await api("POST", `/transactions/${row.id}/${kind}`, body);
      notify(
        `#${row.id}: ${res.ok ? t(kind === "approve" ? "approved" : "rejected") : refusalText(res.json.message)}`,
        !res.ok,
      );
      // Refused because it was decided already: the row is gone, and the notice above says why.
      if (res.status === 409) setSelected((s) => (s === row.id ? null : s));
      // Either way the row leaves, as the operator now expects; otherwise it stays where it was.
      leaves = res.ok || res.status === 409;
      if (res.ok) {
        setRejecting(null);
        selectNext(row, byKey);
      }
      reload();
    } finally {
      if (!leaves) moved.current.own.delete(row.id);
      deciding.current = false;
      setBusy(false);
    }
  }

  /** After a decision, the row below it (or above, at the end) is the next one to look at. */
  function selectNext(row: QueueRow, byKey: boolean) {
    const index = list.indexOf(row);
    const next = list[index + 1]?.id ?? list[index - 1]?.id ?? null;
    setSelected(next);
    if (byKey) autoSelected.current = { id: next, at: performance.now() };
  }

  /**
   * A held decision whose time is up, or whose screen or page is being left (so keepalive). Its row
   * stays hidden unless the server did not take it: then it comes back, with the reason.
   */
  async function sendHeld(id: number, d: Decision) {
    let back = true;
    try {
      const res = await api("POST", `/transactions/${id}/${d.kind}`, d.body, { keepalive: true });
      // The session ended (this page is going to sign-in): the sign-in names what was not sent.
      if (res.status === 401) return markUnsent({ id, kind: d.kind, operator: me.email });
      back = !(res.ok || res.status === 409);
      notify(
        `#${id}: ${res.ok ? t(d.kind === "approve" ? "approved" : "rejected") : refusalText(res.json.message)}`,
        !res.ok,
      );
    } catch {
      notify(`#${id}: ${t("notSent")}`, true);
    }
    if (back) {
      hidden.current.delete(id);
      moved.current.own.delete(id);
      setHiddenChanged((v) => v + 1);
    }
    reloadNow.current();
  }

  /** Takes a held decision back: nothing was sent, and the row is where it was, selected. */
  function undo(id: number) {
    const decision = held.undo(id);
    if (decision === undefined) return notify(`#${id}: ${t("nothingToUndo")}`, true);
    hidden.current.delete(id);
    moved.current.own.delete(id);
    // Not selected when the list shown has no such row (the filter changed since): the keys would
    // act on a row the operator cannot see, and a refresh would call it decided elsewhere.
    if (!rows?.some((r) => r.id === id)) return notify(`#${id}: ${t("undoneElsewhere")}`);
    // A rejection comes back as it was being written: its note open, with what was typed.
    if (decision.kind === "reject") {
      setNoteBack({ id, note: decision.body.note ?? "" });
      setRejecting(id);
    }
    setSelected(id);
    notify(`#${id}: ${t("undone")}`);
  }

  /**
   * A payout's field onto the clipboard by key, as a bank's form takes it, for the operator who
   * works the list from the keyboard: the notice names what was copied, to be checked against the
   * bank's screen.
   */
  async function copyField(row: QueueRow, key: CopyKey) {
    const field: PayoutField = key === "i" ? "iban" : key === "n" ? "payee" : "amount";
    const copied = payoutField(row, field);
    if (copied === null) return refuse(`#${row.id}: ${t("ibanMissing")}`);
    if (!(await markPaying(row))) return;
    if (!(await copyText(copied.value))) return refuse(t("copyValueFailed"));
    notify(copiedNotice(t, row.id, field, copied.shown));
  }

  /**
   * Before a payout's field is copied (the start of paying it out): marked as this operator's, so a
   * colleague does not send the same money. Someone else's already: said so, nothing copied (they
   * may be sending it now); "Bırak" on their mark lets go of it first. Viewers copy without a mark.
   */
  async function markPaying(row: QueueRow): Promise<boolean> {
    if (row.type !== "withdrawal" || !canDecide(me.role)) return true;
    if (row.paying_by && row.paying_by !== me.email) {
      refuse(payingElsewhere(row));
      return false;
    }
    // Asked even when the list shows this operator's own mark: a list a few seconds old may not
    // yet show that a colleague let it go and took it (the server answers at once for one's own).
    const res = await api<{ paying_by?: string; paying_since?: string }>(
      "POST",
      `/transactions/${row.id}/paying`,
      {
        paying: true,
      },
    );
    if (res.ok) {
      if (row.paying_by !== me.email) reloadNow.current();
      return true;
    }
    const { paying_by: by, paying_since: since } = res.json;
    refuse(
      by
        ? payingElsewhere({ ...row, paying_by: by, paying_since: since ?? null })
        : `#${row.id}: ${refusalText(res.json.message)}`,
    );
    reloadNow.current();
    return false;
  }
  const payingElsewhere = (row: QueueRow) =>
    payingElsewhereText(t, row, row.paying_by ?? "", row.paying_since ?? null);
  /** Lets go of a payout's mark: one's own at once, a colleague's after asking. */
  async function releasePaying(row: QueueRow) {
    if (row.paying_by !== me.email && !confirm(`${payingElsewhere(row)}\n${t("confirmReleasePaying")}`))
      return;
    // Named: if the holder let go and a colleague took it meanwhile, that colleague's mark stays.
    const res = await api<{ paying_by?: string; paying_since?: string }>(
      "POST",
      `/transactions/${row.id}/paying`,
      { paying: false, holder: row.paying_by },
    );
    if (!res.ok) {
      const { paying_by: by, paying_since: since } = res.json;
      notify(
        by
          ? payingElsewhere({ ...row, paying_by: by, paying_since: since ?? null })
          : `#${row.id}: ${refusalText(res.json.message)}`,
        true,
      );
    }
    reloadNow.current();
  }

  /** The row a decision selected, and when (NEXT_ROW_GUARD_MS). */
  const autoSelected = useRef({ id: null as number | null, at: -Infinity });
  const keys = useRef({ list, current, rejecting, decide, undo, held, copyField });
  keys.current = { list, current, rejecting, decide, undo, held, copyField };
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const target = e.target as HTMLElement;
      if (["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) || e.ctrlKey || e.metaKey || e.altKey)
        return;
      // Caps Lock on (names from bank statements are typed in capitals) or Shift: the same keys.
      // A Turkish keyboard's capital of i is İ, whose toLowerCase() is "i̇" (two characters).
      const key = e.key === "İ" ? "i" : e.key.length === 1 ? e.key.toLowerCase() : e.key;
      if (!["j", "k", "a", "r", "u", ...(type === "withdrawal" ? COPY_KEYS : [])].includes(key)) return;
      e.preventDefault();
      // A key held down decides once: its repeats are ignored.
      if (e.repeat) return;
      const { list, current, rejecting, decide, undo, held, copyField } = keys.current;
      const i = current ? list.indexOf(current) : -1;
      if (key === "j") setSelected(list[Math.min(list.length - 1, i + 1)]?.id ?? null);
      else if (key === "k") setSelected(list[Math.max(0, i - 1)]?.id ?? null);
      else if (COPY_KEYS.includes(key)) {
        // Reading, not deciding: viewers too.
        if (!current) refuse(t("selectFirst"));
        else void copyField(current, key as CopyKey);
      } else if (!canDecide(me.role)) return;
      else if (key === "u") {
        const last = held.last();
        if (last === undefined) refuse(t("nothingToUndo"));
        else undo(last);
      } else if (!current) refuse(t("selectFirst"));
      else if (key === "a" && rejecting === null) {
        const { id, at } = autoSelected.current;
        if (id === current.id && performance.now() - at < NEXT_ROW_GUARD_MS)
          refuse(`#${current.id}: ${t("nextJustSelected")}`);
        else decide(current, "approve", undefined, true);
      } else if (key === "r") setRejecting(current.id);
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  return (
    <section id="queue">
      <div class="bar">
        <h1>{t(type === "deposit" ? "pendingDeposits" : "pendingWithdrawals")}</h1>
        <span class="count" id="queue-count">
          {!page ? "" : page.total > page.rows.length ? `${list.length} / ${waiting}` : list.length}
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
      <QueueFilter
        type={type}
        onApply={(q) => {
          setSelected(null);
          setFilter(q);
        }}
        active={filter !== ""}
        firmNames={firmNames}
      />
      {page && page.total > page.rows.length && (
        <p class="help" id="queue-more">
          {t("queueMore").replace("{shown}", String(list.length)).replace("{total}", String(waiting))}
        </p>
      )}
      {page?.refused && (
        <p class="help error" id="queue-refused">
          {t("badQueueFilter")}
        </p>
      )}
      {canDecide(me.role) && (
        <p class="help keys">
          {t(type === "deposit" ? "keys" : "keysWithdrawal")}
          {undoMs > 0 && `, ${t("keysUndo")}`}
        </p>
      )}
      <table class="queue">
        <thead>
          <tr>
            <th>#</th>
            <th>{t("age")}</th>
            <th>{t("amount")}</th>
            {/* A withdrawal's person is paid, not paying: the bank's form calls them the recipient. */}
            <th>{t(type === "deposit" ? "payer" : "payee")}</th>
            <th>{t("firm")}</th>
            <th>{type === "deposit" ? t("account") : "IBAN"}</th>
            <th>{t("actions")}</th>
          </tr>
        </thead>
        <tbody id="rows">
          {list.map((r) => (
            <tr
              key={r.id}
              data-id={r.id}
              tabIndex={-1}
              class={`${r === current ? "selected" : ""}${r.paying_by && r.paying_by !== me.email ? " paying-other" : ""}`.trim()}
              aria-current={r === current ? "true" : undefined}
              // Not a click on its approve or reject: that decision has selected the next row by
              // then (the button's focus selected this one before).
              onClick={(e) => {
                if (!(e.target as Element).closest("button")) setSelected(r.id);
              }}
              onFocusIn={() => setSelected(r.id)}
            >
              <td class="id">
                <a href={`#/transactions/${r.id}`}>{r.id}</a>
              </td>
              <td class="age" data-label={t("age")}>
                {age(r.created_at, t)}
              </td>
              <td class="amount">
                {money(r.amount)} TL
                {r.type === "withdrawal" && <CopyButton tx={r} field="amount" before={() => markPaying(r)} />}
              </td>
              <td class="payer">
                {payerName(r)}
                {r.type === "withdrawal" && <CopyButton tx={r} field="payee" before={() => markPaying(r)} />}
                <div class="sub">
                  {r.username} · {r.user_id}
                </div>
              </td>
              <td data-label={t("firm")} class="firm">
                {firmNames.get(r.firm_id) ?? `#${r.firm_id}`}
                <div class="sub">{r.reference}</div>
              </td>
              {r.type === "deposit" ? (
                <td data-label={t("account")}>
                  {r.assigned_bank_name}
                  <div class="sub">{r.assigned_iban}</div>
                </td>
              ) : (
                <td data-label="IBAN" class="payout-iban">
                  {r.iban !== null && (
                    <>
                      <IbanText iban={r.iban} />
                      <CopyButton tx={r} field="iban" before={() => markPaying(r)} />
                    </>
                  )}
                  <div class="sub method">{r.method.toUpperCase()}</div>
                  {r.iban === null ? (
                    <div class="sub bad-iban">{t("ibanMissing")}</div>
                  ) : (
                    r.iban_valid === false && <div class="sub bad-iban">{t("ibanInvalid")}</div>
                  )}
                  {r.paying_by && (
                    <div class={`sub paying${r.paying_by === me.email ? " mine" : ""}`}>
                      {r.paying_by === me.email ? t("payingMine") : fill(t("payingBy"), { who: r.paying_by })}{" "}
                      · {age(r.paying_since ?? new Date().toISOString(), t)}{" "}
                      {canDecide(me.role) && (
                        <button type="button" class="link release-paying" onClick={() => releasePaying(r)}>
                          {t("releasePaying")}
                        </button>
                      )}
                    </div>
                  )}
                </td>
              )}
              <td class="actions">
                {!canDecide(me.role) ? null : rejecting === r.id ? (
                  <RejectForm
                    note={noteBack?.id === r.id ? noteBack.note : ""}
                    onReject={(note) => decide(r, "reject", note)}
                    onCancel={() => setRejecting(null)}
                    busy={busy}
                  />
                ) : (
                  <>
                    {r.type === "deposit" && (
                      <input
                        class="edit-amount"
                        inputMode="decimal"
                        placeholder={t("otherAmount")}
                        aria-label={`${t("amount")} #${r.id}`}
                        value={amounts[r.id] ?? ""}
                        onInput={(e) => setAmounts({ ...amounts, [r.id]: e.currentTarget.value })}
                        // Typed from the bank statement, decided without the mouse: Enter approves
                        // with it (confirmed first, as the button is), Esc takes it back and gives
                        // the keys back to the row.
                        onKeyDown={(e) => {
                          if (e.key === "Enter") {
                            e.preventDefault();
                            if (!e.repeat) decide(r, "approve", undefined, true);
                          } else if (e.key === "Escape") {
                            const { [r.id]: _, ...rest } = amounts;
                            setAmounts(rest);
                            e.currentTarget.closest("tr")?.focus();
                          }
                        }}
                      />
                    )}{" "}
                    <button
                      type="button"
                      class="approve"
                      disabled={busy}
                      onClick={(e) => settled(r.id, e) && decide(r, "approve")}
                    >
                      {/* A payout is approved once its money has left: the button says so. */}
                      {r.type === "withdrawal" ? t("approvePaid") : approveLabel(amounts[r.id], t)}
                    </button>{" "}
                    <button
                      type="button"
                      class="reject"
                      disabled={busy}
                      onClick={(e) => settled(r.id, e) && setRejecting(r.id)}
                    >
                      {t("reject")}
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows && list.length === 0 && <p class="help empty">{t("empty")}</p>}
      {held.list.length > 0 && (
        <div id="held" class="held" role="status">
          {held.list.map((h) => (
            <div key={h.id} class="held-item" data-id={h.id}>
              <span>
                #{h.id} · {money2(h.decision.amount)} TL · {h.decision.payer} ·{" "}
                <strong>
                  {t(
                    h.decision.kind === "reject"
                      ? "willReject"
                      : type === "withdrawal"
                        ? "willApprovePaid"
                        : "willApprove",
                  )}
                </strong>{" "}
                <span class="countdown">
                  {Math.max(1, Math.ceil((h.sendsAt - Date.now()) / 1000))} {t("unitSeconds")}
                </span>
              </span>
              <button type="button" class="undo secondary" onClick={() => undo(h.id)}>
                {t("undo")}
              </button>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

/** A decision as the queue holds it: what to send, and what the bar shows meanwhile. */
interface Decision {
  kind: "approve" | "reject";
  body: Record<string, string>;
  /** The amount approved (the one typed in, else the one asked for), for the bar. */
  amount: string;
  payer: string;
}

const payerOf = (row: QueueRow) => payerName(row);

function RejectForm(props: { note: string; onReject(note: string): void; onCancel(): void; busy: boolean }) {
  const { t } = useShell();
  const input = useRef<HTMLInputElement>(null);
  // Before the browser paints: the key typed right after `r` lands in the note, not the page.
  useLayoutEffect(() => input.current?.focus(), []);
  return (
    <form
      class="reject-form"
      onSubmit={(e) => {
        e.preventDefault();
        props.onReject(input.current?.value ?? "");
      }}
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        // The keys go back to the row, as from the amount field (not to the page's body).
        const row = e.currentTarget.closest("tr");
        props.onCancel();
        row?.focus();
      }}
    >
      <input
        ref={input}
        class="note"
        maxLength={500}
        placeholder={t("note")}
        aria-label={t("note")}
        defaultValue={props.note}
      />{" "}
      <button type="submit" class="reject" disabled={props.busy}>
        {t("confirmReject")}
      </button>{" "}
      <button type="button" class="link" onClick={props.onCancel}>
        {t("cancel")}
      </button>
    </form>
  );
}

/**
 * Narrows a queue to one firm, one amount (as a bank statement shows it) or a payer's name: how an
 * operator finds the deposit a transfer on the statement pays, and how the rows past the first
 * 500 are reached.
 */
function QueueFilter(props: {
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

/**
 * Scrolls `row` into view clear of what stays on screen over the list: the message line at the top
 * and the held decisions' bar at the bottom (both sticky), which `scrollIntoView` does not know of.
 */
function keepInView(row: HTMLElement) {
  row.scrollIntoView({ block: "nearest" });
  const box = row.getBoundingClientRect();
  const bar = document.getElementById("held")?.getBoundingClientRect();
  const message = document.getElementById("message")?.getBoundingClientRect();
  const GAP = 8;
  if (bar && box.bottom > bar.top - GAP) window.scrollBy(0, box.bottom - bar.top + GAP);
  else if (message && message.height > 0 && box.top < message.bottom + GAP)
    window.scrollBy(0, box.top - message.bottom - GAP);
}
