import { useEffect, useRef, useState } from "preact/hooks";

/** A sign-out waits this long at most for held decisions to be answered. */
const SIGN_OUT_WAIT_MS = 10_000;

/** Every mounted queue's "send all held now", for a sign-out. */
const flushers = new Set<() => void>();
/** Sends under way, of any queue, mounted or not: a sign-out waits for them too. */
const inFlight = new Set<Promise<void>>();

/**
 * Sends every decision any queue holds, now, and resolves once the server has answered each one
 * sent, including those already on their way (a sign-out must not overtake them), or after
 * SIGN_OUT_WAIT_MS.
 */
export function sendHeldNow(): Promise<unknown> {
  for (const flush of flushers) flush();
  return Promise.race([
    Promise.all([...inFlight]),
    new Promise((resolve) => setTimeout(resolve, SIGN_OUT_WAIT_MS)),
  ]);
}

/** A decision not sent because the session had ended: named at the next sign-in. */
export interface Unsent {
  id: number;
  kind: "approve" | "reject";
  /** Whose it was: only they are told after signing in (a shared computer's next operator is not). */
  operator: string;
}
let unsent: Unsent[] = [];
const unsentListeners = new Set<() => void>();
export function markUnsent(decision: Unsent) {
  unsent = [...unsent.filter((u) => u.id !== decision.id), decision];
  for (const listener of unsentListeners) listener();
}
/**
 * The decisions not sent since the last `take`, kept across sign-in; `take` hands an operator's over
 * once and forgets everyone's.
 */
export function useUnsent(): { list: Unsent[]; take(operator: string): Unsent[] } {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((v) => v + 1);
    unsentListeners.add(listener);
    return () => void unsentListeners.delete(listener);
  }, []);
  return {
    list: unsent,
    take(operator: string) {
      const taken = unsent.filter((u) => u.operator === operator);
      unsent = [];
      return taken;
    },
  };
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
 * Each is sent when its time is up, or at once when the screen is left (another tab, sign-out),
 * the page is hidden (another browser tab, a phone's home screen: a hidden page's timers may be
 * frozen, and a phone may discard it without another word) or closed or reloaded (`pagehide`);
 * `send` uses a keepalive request, which the browser finishes after the page is gone. `holdMs` 0
 * holds nothing: the caller sends at once.
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
    const sending = sendNow.current(id, h.decision).finally(() => inFlight.delete(sending));
    inFlight.add(sending);
    return sending;
  }

  // The countdown shown with each held decision.
  const holding = held.current.size > 0;
  useEffect(() => {
    if (!holding) return;
    const tick = setInterval(changed, 250);
    return () => clearInterval(tick);
  }, [holding]);

  useEffect(() => {
    const sendAll = () => {
      for (const id of [...held.current.keys()]) void release(id);
    };
    const hidden = () => {
      if (document.visibilityState === "hidden") sendAll();
    };
    addEventListener("pagehide", sendAll);
    document.addEventListener("visibilitychange", hidden);
    flushers.add(sendAll);
    return () => {
      removeEventListener("pagehide", sendAll);
      document.removeEventListener("visibilitychange", hidden);
      flushers.delete(sendAll);
      sendAll();
    };
  }, []);

  return {
    /** Oldest first. */
    list: [...held.current].map(([id, h]): Held<D> => ({ id, decision: h.decision, sendsAt: h.sendsAt })),
    has: (id: number) => held.current.has(id),
    hold(id: number, decision: D) {
      const timer = window.setTimeout(() => void release(id), holdMs);
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
