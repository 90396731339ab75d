import { useEffect, useRef, useState } from "preact/hooks";

/**
 * The server's notices that the pending queues changed (GET /ops/api/events, server-sent events):
 * `onChange` runs on each, and again each time the stream opens anew (notices may have been
 * missed while it was down). Returns whether the stream is open: the queue polls rarely while it
 * is, and every 5 s while it is not (an old browser, a proxy that cuts streams, a restart).
 */
export function useQueueEvents(onChange: () => void): boolean {
  const [live, setLive] = useState(false);
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    const source = new EventSource("/ops/api/events");
    let openedBefore = false;
    source.onopen = () => {
      setLive(true);
      if (openedBefore) latest.current();
      openedBefore = true;
    };
    // The browser reconnects on its own; a refused stream (signed out, too many) stays closed.
    source.onerror = () => setLive(false);
    source.addEventListener("queue", () => latest.current());
    return () => {
      source.close();
      setLive(false);
    };
  }, []);
  return live;
}
