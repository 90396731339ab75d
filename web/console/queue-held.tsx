import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import { refusalIn } from "./decision-text";
import { markUnsent, useHeld } from "./held-decisions";
import type { MovedRows } from "./queue-moved";
import type { QueueRow } from "./queue-row";
import { money2, type Shell } from "./ui";

/** A decision as the queue holds it: what to send, and what the bar shows meanwhile. */
export interface Decision {
  kind: "approve" | "reject";
  body: Record<string, string>;
  /** The amount approved (the one typed in, else the one asked for), for the bar. */
  amount: string;
  payer: string;
}

/**
 * The decisions this page holds before sending them (held-decisions.ts), and the rows it hides
 * meanwhile: `hidden` holds the rows this page decided that are held, being sent, or sent and not
 * yet gone from the list.
 */
export function useHeldRows(props: {
  undoMs: number;
  rows: QueueRow[] | undefined;
  hidden: { current: Set<number> };
  moved: { current: MovedRows };
  reloadNow: { current: () => void };
  me: Shell["me"];
  t: Shell["t"];
  notify(text: string, bad?: boolean): void;
}) {
  const { rows, hidden, moved, reloadNow, me, t, notify } = props;
  const [, setHiddenChanged] = useState(0);
  const held = useHeld(props.undoMs, (id: number, d: Decision) => sendHeld(id, d));
  // A row this page decided is hidden until the list no longer has it (or it comes back).
  useEffect(() => {
    if (!Array.isArray(rows)) return;
    for (const id of hidden.current)
      if (!held.has(id) && !rows.some((r) => r.id === id)) hidden.current.delete(id);
  }, [rows]);

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
        `#${id}: ${res.ok ? t(d.kind === "approve" ? "approved" : "rejected") : refusalIn(res.json, res.status)}`,
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
  return held;
}

export type HeldDecisions = ReturnType<typeof useHeldRows>;

/** The bar below the list: each held decision, its countdown, and "Geri al". */
export function HeldBar(props: {
  held: HeldDecisions;
  type: "deposit" | "withdrawal";
  t: Shell["t"];
  undo(id: number): void;
}) {
  const { held, type, t, undo } = props;
  return (
    <div id="held" class="held" role="status">
      {held.list.map((h) => (
        <div key={h.id} class="held-item" data-id={h.id}>
          <span>
            #{h.id} · {money2(h.decision.amount)} TL · <bdi>{h.decision.payer}</bdi> ·{" "}
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
  );
}
