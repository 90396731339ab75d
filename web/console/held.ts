import { useEffect, useRef, useState } from "preact/hooks";

/** Every mounted queue's "send all held now", for a sign-out (which must not strand them). */
const flushers = new Set<() => Promise<unknown>>();

/** Sends every decision any queue holds, now; resolves once the server has answered each. */
export function sendHeldNow(): Promise<unknown> {
  return Promise.all([...flushers].map((flush) => flush()));
}

/** A decision the console holds before sending it, and when it goes. */
export interface Held<D> {
  id: number;
  decision: D;
  /** Date.now() at which it is sent. */
  sendsAt: number;
}

/**
 * Decisions held for a few seconds before they are sent, so that an operator can take one back,
 * as a mail client's "undo send" does: until it is sent nothing has reached the server, so neither
 * the merchant (callback, query) nor anyone else has seen it, and taking it back changes nothing
 * anywhere. A decision the server had recorded and then took back would have been visible to a
 * merchant polling meanwhile.
 *
 * Each is sent when its time is up, or at once when the screen is left (another tab, sign-out) or
 * the page is closed or reloaded (`pagehide`; `send` is told to use a keepalive request, which
 * the browser finishes after the page is gone). `holdMs` 0 holds nothing: the caller sends at once.
 */
export function useHeld<D>(holdMs: number, send: (id: number, decision: D) => Promise<void>) {
  const held = useRef(new Map<number, { decision: D; sendsAt: number; timer: number }>());
  const [, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  const sendNow = useRef(send);
  sendNow.current = send;

  function release(id: number): Promise<void> {
    const h = held.current.get(id);
    if (!h) return Promise.resolve();
    clearTimeout(h.timer);
    held.current.delete(id);
    changed();
    return sendNow.current(id, h.decision);
  }

  // The countdown shown with each held decision.
  const holding = held.current.size > 0;
  useEffect(() => {
    if (!holding) return;
    const tick = setInterval(changed, 250);
    return () => clearInterval(tick);
  }, [holding]);

  useEffect(() => {
    const leaving = () => Promise.all([...held.current.keys()].map(release));
    addEventListener("pagehide", leaving);
    flushers.add(leaving);
    return () => {
      removeEventListener("pagehide", leaving);
      flushers.delete(leaving);
      void leaving();
    };
  }, []);

  return {
    /** Oldest first. */
    list: [...held.current].map(([id, h]): Held<D> => ({ id, decision: h.decision, sendsAt: h.sendsAt })),
    has: (id: number) => held.current.has(id),
    hold(id: number, decision: D) {
      const timer = window.setTimeout(() => release(id), holdMs);
      held.current.set(id, { decision, sendsAt: Date.now() + holdMs, timer });
      changed();
    },
    /** Takes a held decision back; undefined when it was sent already. */
    undo(id: number): D | undefined {
      const h = held.current.get(id);
      if (!h) return undefined;
      clearTimeout(h.timer);
      held.current.delete(id);
      changed();
      return h.decision;
    },
    /** The decision held last, which the undo key takes back. */
    last: (): number | undefined => [...held.current.keys()].at(-1),
  };
}
