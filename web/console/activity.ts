/**
 * What the page knows of its session's idle timeout (the server's side: src/operators/idle.ts and
 * src/operators/http/activity.ts), kept here so that api.ts can mark and read every request.
 *
 * The server counts a read as the operator's activity only when the page marks it
 * (`X-Operator-Active: 1`); the page marks those sent within ACTIVE_WINDOW_MS of the operator's
 * input (a key, a click or tap, typing, the wheel). The page's own traffic (the live stream, the
 * summary's poll, the queue's refreshes) mostly comes unmarked, so an unattended console ends; one
 * a few seconds after the operator's input is marked, which moves the end by those seconds only.
 * Moving the mouse alone is no input: a mouse moves without anyone at the desk.
 *
 * Every answer of a live session says how many seconds it has left (`X-Session-Idle-Left`), by the
 * server's reckoning: it writes activity at most once a minute, and another tab of the same session
 * may have been used meanwhile. The page's warning and sign-out (idle.tsx) follow that.
 */
/** As src/operators/http/activity.ts names them (the page is bundled apart from the server). */
export const OPERATOR_ACTIVE_HEADER = "x-operator-active";
export const IDLE_LEFT_HEADER = "x-session-idle-left";
export const ENDS_IN_HEADER = "x-session-ends-in";
const ACTIVE_WINDOW_MS = 10_000;
const INPUT_EVENTS = ["keydown", "pointerdown", "input", "wheel"] as const;

let lastInput = Number.NEGATIVE_INFINITY;
let lastMarked = Number.NEGATIVE_INFINITY;
let idleMs = 0;
/** Date.now() at which the server ends the session for want of activity; unknown: never. */
let endsAt = Number.POSITIVE_INFINITY;
/** When the server last said so. */
let heardAt = Number.NEGATIVE_INFINITY;
/** Date.now() at which the session ends whatever the operator does (12 hours from sign-in). */
let limitAt = Number.POSITIVE_INFINITY;

/** Whether a request sent now is the operator's doing. */
export const operatorActive = () => Date.now() - lastInput < ACTIVE_WINDOW_MS;
export function markedSent() {
  lastMarked = Date.now();
}
export const sinceMarked = () => Date.now() - lastMarked;

/** The server's timeout (`session_idle_minutes`, with the other settings at sign-in and in /me). */
export function idleMinutesAre(minutes: number) {
  idleMs = minutes * 60_000;
}
/** A session just signed in: it has the whole timeout. */
export function sessionStarted(idleMinutes: number) {
  idleMinutesAre(idleMinutes);
  heardIdleLeft(String(idleMinutes * 60));
}
/**
 * What an answer said of the time left (its X-Session-Idle-Left; null: it said nothing), counted
 * from when its request was sent (`sentAt`): the server reckoned it somewhere between that and the
 * answer, and a slow answer must not move the end later than the server has it.
 */
export function heardIdleLeft(seconds: string | null, sentAt = Date.now()) {
  if (seconds === null || !/^\d+$/.test(seconds)) return;
  heardAt = Date.now();
  endsAt = sentAt + Number(seconds) * 1000;
}
/**
 * An answer without the time left (a proxy that drops the header) to a request sent at `sentAt`
 * that counted as the operator's activity: the server recorded it when it arrived, or did within
 * the minute before (it writes once a minute), so the session lasts at least the timeout less that
 * minute from when it was sent (not from its answer, which may have been slow).
 */
export function answeredActivity(sentAt: number) {
  if (idleMs > 0) endsAt = Math.max(endsAt, sentAt + idleMs - 60_000);
}
/** What an answer said of the session's hard end (its X-Session-Ends-In), as `heardIdleLeft`. */
export function heardEndsIn(seconds: string | null, sentAt = Date.now()) {
  if (seconds === null || !/^\d+$/.test(seconds)) return;
  limitAt = sentAt + Number(seconds) * 1000;
}
export const limit = {
  /** Date.now() at the hard end; Infinity while unknown. */
  at: () => limitAt,
  left: () => limitAt - Date.now(),
};
export const idle = {
  minutes: () => idleMs / 60_000,
  /** Milliseconds left before the server ends the session. */
  left: () => endsAt - Date.now(),
  sinceHeard: () => Date.now() - heardAt,
  /** How old the server's record of the operator's last activity is. */
  recordAge: () => idleMs - (endsAt - Date.now()),
};

/** Notes the operator's input anywhere in the page (captured first: no handler can hide it). */
export function watchInput(onInput: () => void): () => void {
  const seen = () => {
    lastInput = Date.now();
    onInput();
  };
  for (const type of INPUT_EVENTS) addEventListener(type, seen, { capture: true, passive: true });
  return () => {
    for (const type of INPUT_EVENTS) removeEventListener(type, seen, { capture: true });
  };
}
