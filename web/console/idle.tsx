import { useEffect, useRef, useState } from "preact/hooks";
import { idle, operatorActive, sinceMarked, watchInput } from "./activity";
import { api } from "./api";
import type { T } from "./i18n";

/** The warning shows this long before the page signs out. */
const WARN_MS = 60_000;
/**
 * The page signs out this long before the server would: time for the decisions the queues hold to
 * be sent first (held.ts waits up to 10 s for their answers), while the session can still send them.
 */
const SIGN_OUT_EARLY_MS = 15_000;
/** The server writes activity at most once a minute (src/console/idle.ts). */
const RECORD_EVERY_MS = 60_000;
/** Before warning or signing out, what the server said must be at most this old (another tab…). */
const FRESH_WARNING_MS = 15_000;
const FRESH_SIGN_OUT_MS = 2_000;
/** An ask unanswered this long is no answer: the page goes by its own reckoning. */
const ASK_GIVE_UP_MS = 10_000;

/** Whether the session's idle time is up by the page's reckoning (a 401 now is that, not expiry). */
export const idleTimeUp = () => idle.left() <= SIGN_OUT_EARLY_MS;
const toSignOut = () => idle.left() - SIGN_OUT_EARLY_MS;

/**
 * The idle sign-out, while an operator is signed in (activity.ts says what counts). Input that
 * sends nothing (typing a note, the wheel, the queue's keys) is told to the server, with a marked
 * GET /me, once the server's record of it is a minute old. A minute before the end a warning shows
 * (`warnSeconds`), whose `stay` counts as activity; at the end the page signs out (`signOut`: the
 * held decisions go first). Before either, the page asks the server whether the end still stands
 * (an unmarked /me, which is no activity): the operator may have worked in another tab of the same
 * session, or the computer slept since the last word. It goes by its own reckoning only when the
 * server does not answer. The check runs every second on Date.now(), so a computer that slept past
 * the end wakes up to the sign-in screen.
 */
export function useIdleSignOut(signedIn: boolean, signOut: () => void) {
  const [warnSeconds, setWarnSeconds] = useState<number | null>(null);
  /** Date.now() when the ask under way was sent; null: none. */
  const asking = useRef<number | null>(null);
  /** When asking last got no word on the time left (no answer, or one without it). */
  const askFailedAt = useRef(Number.NEGATIVE_INFINITY);
  const latestSignOut = useRef(signOut);
  latestSignOut.current = signOut;

  const ask = (active: boolean) => {
    if (asking.current !== null) return;
    asking.current = Date.now();
    api("GET", "/me", undefined, { active })
      .then(
        // A 401 signs the page out by itself (api.ts).
        (res) => {
          if (!res.ok && res.status !== 401) askFailedAt.current = Date.now();
        },
        () => {
          askFailedAt.current = Date.now();
        },
      )
      .finally(() => {
        asking.current = null;
        check();
      });
  };
  function check() {
    const until = toSignOut();
    if (until > WARN_MS) return setWarnSeconds(null);
    const sinceWord = idle.sinceHeard();
    const stale = sinceWord > (until > 0 ? FRESH_WARNING_MS : FRESH_SIGN_OUT_MS);
    if (asking.current !== null && Date.now() - asking.current > ASK_GIVE_UP_MS)
      askFailedAt.current = Date.now();
    // Asked since the last word, and no word came: the server is out of reach.
    const unanswered = askFailedAt.current > Date.now() - sinceWord;
    if (stale && !unanswered) return ask(false);
    if (until > 0) return setWarnSeconds(Math.ceil(until / 1000));
    setWarnSeconds(null);
    latestSignOut.current();
  }

  useEffect(() => {
    if (!signedIn) return setWarnSeconds(null);
    let pending: ReturnType<typeof setTimeout> | undefined;
    const stopWatching = watchInput(() => {
      // A moment later: the request the input itself caused goes first, marked, and says it.
      pending ??= setTimeout(() => {
        pending = undefined;
        // Not if this runs late (a computer that slept): the input is then long past.
        if (operatorActive() && idle.recordAge() >= RECORD_EVERY_MS && sinceMarked() > 1_000) ask(true);
      }, 1_000);
    });
    const tick = setInterval(check, 1_000);
    return () => {
      stopWatching();
      clearInterval(tick);
      clearTimeout(pending);
    };
  }, [signedIn]);

  return { warnSeconds, stay: () => ask(true) };
}

/** The warning a minute before an idle sign-out, with its button to stay signed in. */
export function IdleWarning({ t, seconds, stay }: { t: T; seconds: number; stay(): void }) {
  return (
    <div id="idle-warning" class="idle-warning">
      <p role="alert">{t("idleWarning")}</p>
      <span class="idle-countdown" aria-hidden="true">
        {seconds} {t("unitSeconds")}
      </span>
      <button type="button" id="stay-signed-in" onClick={stay}>
        {t("staySignedIn")}
      </button>
    </div>
  );
}
