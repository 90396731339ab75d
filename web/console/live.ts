import { useEffect, useRef, useState } from "preact/hooks";

/** A stream the server refused or a proxy cut is tried again after this, doubling up to the most. */
const RETRY_FIRST_MS = 5_000;
const RETRY_MOST_MS = 60_000;

/**
 * The server's notices that the pending queues changed (GET /ops/api/events, server-sent events):
 * `onChange` runs on each, and each time the stream opens (notices may have been missed before
 * it did). Returns whether notices come through: the queue polls rarely while they do, and every
 * 5 s while they do not (an old browser, a proxy that holds streams back, a restart). Live only once the server's first event has arrived, not when the headers have: a
 * buffering proxy passes those and holds the events.
 *
 * The browser reconnects a dropped stream by itself, but gives up on one that is refused (a 503
 * while the server stops, a proxy's 502, too many streams): that is tried again here, less and less
 * often. A session that ended makes the page sign in again, which ends this.
 */
export function useQueueEvents(onChange: () => void): boolean {
  const [live, setLive] = useState(false);
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let wait = RETRY_FIRST_MS;
    const connect = () => {
      retry = undefined;
      source = new EventSource("/ops/api/events");
      source.addEventListener("ready", () => {
        setLive(true);
        wait = RETRY_FIRST_MS;
        latest.current();
      });
      source.addEventListener("queue", () => latest.current());
      source.onerror = () => {
        setLive(false);
        if (source?.readyState !== EventSource.CLOSED || retry) return;
        retry = setTimeout(connect, wait);
        wait = Math.min(wait * 2, RETRY_MOST_MS);
      };
    };
    connect();
    return () => {
      if (retry) clearTimeout(retry);
      source?.close();
      setLive(false);
    };
  }, []);
  return live;
}
