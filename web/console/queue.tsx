import { useRef, useState } from "preact/hooks";
import { api } from "./api";
import { useQueueEvents } from "./live";
import { decideInRow } from "./queue-decide";
import { QueueFilter, QueueHeading } from "./queue-filter";
import { HeldBar, useHeldRows } from "./queue-held";
import { type AutoSelected, useQueueKeys } from "./queue-keys";
import { type MovedRows, noRowsMoved, useMovedGuard } from "./queue-moved";
import { queuePaying } from "./queue-paying";
import type { QueueRow } from "./queue-row";
import { useSelectionOnList } from "./queue-selection";
import { QueueTable } from "./queue-table";
import { canDecide, useFirmNames, useLoad, useShell } from "./ui";

/**
 * Pending deposits or withdrawals, shown as they change: the server tells the page at once
 * (live.ts), and the page also asks every 30 s (every 5 s while the server cannot tell it). A click on a row's approve or reject just after that row moved is not taken (below).
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
 * before it is sent (held-decisions.ts): its row leaves the list at once, the bar below the list
 * counts down, and "Geri al" (or `u` for the last one) brings the row back with nothing sent.
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
    // A decision of this page's own is followed by its own reload (decide).
    if (!deciding.current) reloadNow.current();
  });
  /** The filter applied (firm, amount, payer name) as a query string; "" for the whole queue. */
  const [filter, setFilter] = useState("");
  const [page, reload] = useQueuePage(type, order, filter, live);
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
  const moved = useRef<MovedRows>(noRowsMoved());
  /** The row a decision selected, and when (useQueueKeys). */
  const autoSelected = useRef<AutoSelected>({ id: null, at: -Infinity });
  const held = useHeldRows({ undoMs, rows, hidden, moved, reloadNow, me, t, notify });
  const list = Array.isArray(rows) ? rows.filter((r) => !hidden.current.has(r.id)) : [];
  /** How many the (filtered) queue holds besides the rows this page decided and hides meanwhile. */
  const waiting = page ? page.total - page.rows.filter((r) => hidden.current.has(r.id)).length : 0;
  const settled = useMovedGuard(moved, list, refuse, t);
  const current = list.find((r) => r.id === selected);
  useSelectionOnList({
    rows,
    deciding,
    selected,
    setSelected,
    rejecting,
    setRejecting,
    heldCount: held.list.length,
    t,
    notify,
  });

  const paying = queuePaying({ me, t, notify, refuse, reloadNow });
  const { decide, undo } = decideInRow({
    list,
    rows,
    amounts,
    me,
    t,
    undoMs,
    notify,
    refuse,
    refusedTry,
    payingElsewhere: paying.payingElsewhere,
    hidden,
    moved,
    held,
    deciding,
    autoSelected,
    setBusy,
    setSelected,
    setRejecting,
    setNoteBack,
    reload,
  });
  useQueueKeys(
    { type, me, t, refuse, setSelected, setRejecting, autoSelected },
    { list, current, rejecting, decide, undo, held, copyField: paying.copyField },
  );

  return (
    <section id="queue">
      <QueueHeading
        type={type}
        count={!page ? "" : page.total > page.rows.length ? `${list.length} / ${waiting}` : list.length}
        live={live}
        order={order}
        setOrder={setOrder}
      />
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
      <QueueTable
        type={type}
        list={list}
        current={current}
        rejecting={rejecting}
        noteBack={noteBack}
        amounts={amounts}
        busy={busy}
        firmNames={firmNames}
        actions={{
          select: setSelected,
          decide,
          settled,
          setRejecting,
          markPaying: paying.markPaying,
          releasePaying: paying.releasePaying,
          setAmounts,
        }}
      />
      {rows && list.length === 0 && <p class="help empty">{t("empty")}</p>}
      {held.list.length > 0 && <HeldBar held={held} type={type} t={t} undo={undo} />}
    </section>
  );
}

/**
 * One page of the queue as the server sends it (at most 500, with how many the filtered queue
 * holds), asked for again every 30 s, or every 5 s while the server cannot tell the page at once.
 */
function useQueuePage(
  type: "deposit" | "withdrawal",
  order: "oldest" | "newest",
  filter: string,
  live: boolean,
) {
  return useLoad(
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
}
