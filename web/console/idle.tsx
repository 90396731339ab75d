import { useEffect, useRef, useState } from "preact/hooks";
import { TURKEY_TIME_ZONE } from "../../src/domain/turkey-time.js";
import { idle, limit, operatorActive, sinceMarked, watchInput } from "./activity";
import { api } from "./api";
import type { Lang, T } from "./i18n";

/** The warning shows this long before the page signs out. */
const WARN_MS = 60_000;
/**
 * The page signs out this long before the server would: time for the decisions the queues hold to
 * be sent first (held-decisions.ts waits up to 10 s for their answers), while the session can still send them.
 */
const SIGN_OUT_EARLY_MS = 15_000;
/** The server writes activity at most once a minute (src/operators/idle.ts). */
const RECORD_EVERY_MS = 60_000;
/** Before warning or signing out, what the server said must be at most this old (another tab…). */
const FRESH_WARNING_MS = 15_000;
const FRESH_SIGN_OUT_MS = 2_000;
/** An ask unanswered this long is no answer: the page goes by its own reckoning. */
const ASK_GIVE_UP_MS = 10_000;
/** The session's hard end (12 hours from sign-in) is announced this long before. */
const LIMIT_WARN_MS = 10 * 60_000;

/** Whether the session's idle time is up by the page's reckoning (a 401 now is that, not expiry). */
export const idleTimeUp = () => idle.left() <= SIGN_OUT_EARLY_MS;
const toSignOut = () => idle.left() - SIGN_OUT_EARLY_MS;
/** Whether the session's 12 hours are up by the page's reckoning (a 401 now is that). */
export const limitTimeUp = () => limit.left() <= SIGN_OUT_EARLY_MS;

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
export function useIdleSignOut(signedIn: boolean, signOut: (why: "idle" | "limit") => void) {
  const [warnSeconds, setWarnSeconds] = useState<number | null>(null);
  /** When the session's 12 hours end, from ten minutes before; null: not yet. */
  const [limitAt, setLimitAt] = useState<number | null>(null);
  /** Date.now() when the ask under way was sent; null: none. */
  const asking = useRef<number | null>(null);
  /** Whether the ask under way is marked (tells the server of activity). */
  const askingActive = useRef(false);
  /** When the last ask was sent: one per freshness window at most, whatever came of it. */
  const askedAt = useRef(Number.NEGATIVE_INFINITY);
  const latestSignOut = useRef(signOut);
  latestSignOut.current = signOut;

  /**
   * Asks the server for the time left (api.ts hears it from the answer's header). Nothing follows
   * from the answer here: the next tick of `check` reads what was heard. So an answer without the
   * header (a proxy that drops it), an error or no answer at all cannot make the page ask again at
   * once: it asks again only once the freshness window has passed since this ask. A marked ask is
   * not held back by an unmarked one under way: the operator's input would be lost, and the
   * warning shown to someone typing.
   */
  const ask = (active: boolean, force = false) => {
    if (asking.current !== null && !force && (askingActive.current || !active)) return;
    const sent = Date.now();
    asking.current = sent;
    askingActive.current = active;
    askedAt.current = sent;
    // A 401 signs the page out by itself (api.ts).
    api("GET", "/me", undefined, { active })
      .catch(() => undefined)
      .finally(() => {
        if (asking.current === sent) asking.current = null;
      });
  };
  /**
   * The nearer of the two ends: for want of activity, and the 12 hours, which nothing moves (no
   * "stay signed in" for it, only a notice ten minutes before). Either way the page signs out
   * itself, so that the held decisions go first, and asks the server first whether it still stands.
   */
  function check() {
    const idleUntil = toSignOut();
    const limitUntil = limit.left() - SIGN_OUT_EARLY_MS;
    setLimitAt(limitUntil <= LIMIT_WARN_MS ? limit.at() : null);
    const until = Math.min(idleUntil, limitUntil);
    if (until > WARN_MS) return setWarnSeconds(null);
    const fresh = until > 0 ? FRESH_WARNING_MS : FRESH_SIGN_OUT_MS;
    if (idle.sinceHeard() > fresh) {
      // What the server said is old: ask once, and wait a while for its answer.
      if (asking.current === null && Date.now() - askedAt.current > fresh) return ask(false);
      if (asking.current !== null && Date.now() - asking.current < ASK_GIVE_UP_MS) return;
      // Asked, and no word came (no answer, or one without the time left): by the page's reckoning.
    }
    // Where both ends fall together it is the 12 hours that end the session: no activity could
    // have moved them, so no "stay signed in" is offered and the sign-in screen says so.
    const idleFirst = idleUntil < limitUntil;
    if (until > 0) return setWarnSeconds(idleFirst ? Math.ceil(until / 1000) : null);
    setWarnSeconds(null);
    latestSignOut.current(idleFirst ? "idle" : "limit");
  }

  useEffect(() => {
    if (!signedIn) {
      setLimitAt(null);
      return setWarnSeconds(null);
    }
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

  // Sent even while a check's ask is under way: the operator's answer to the warning.
  return { warnSeconds, limitAt, stay: () => ask(true, true) };
}

/** Ten minutes before the session's 12 hours end: when, and a way to start a new one now. */
export function LimitWarning(props: { t: T; lang: Lang; at: number; signInAgain(): void }) {
  // Türkiye time, as every other time in the console (ui.tsx), whatever the browser's zone.
  const time = new Date(props.at).toLocaleTimeString(props.lang === "en" ? "en-GB" : "tr-TR", {
    hour: "2-digit",
    minute: "2-digit",
    timeZone: TURKEY_TIME_ZONE,
  });
  return (
    <div id="limit-warning" class="idle-warning">
      <p role="status">{props.t("limitWarning").replace("{time}", time)}</p>
      <button type="button" id="sign-in-again" onClick={props.signInAgain}>
        {props.t("signInAgain")}
      </button>
    </div>
  );
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
