/**
 * The console's idle timeout: a session also ends once it has seen nothing of its operator for
 * PAYINTAKE_CONSOLE_IDLE_MINUTES (15 by default, as PCI DSS 8.2.8 asks: re-authentication after
 * 15 minutes idle), besides its 12 hours from sign-in (sessions.ts).
 *
 * Activity is what the operator does: every change, and the reads the operator's own input caused
 * (opening a screen, a search), which the page marks (operators/http/activity.ts says how). The
 * traffic an open page makes by itself (the live stream, the summary's poll, the queue's refreshes)
 * is not: it would keep an unattended console, and its power to approve, signed in for 12 hours.
 *
 * Activity is written at most once a minute per session: a busy operator's every click would
 * otherwise be a write, on PostgreSQL to the database every instance shares. So a session may end
 * up to a minute sooner after its operator's last act than the timeout says; every answer tells
 * the page how long is left by the server's reckoning, which its warning and sign-out follow.
 */
import type { Repositories } from "../store/index.js";

export const DEFAULT_IDLE_MINUTES = 15;
/** The longest idle timeout config.ts accepts: what the purge goes by (below). */
export const MAX_IDLE_MINUTES = 720;
export const ACTIVITY_WRITE_EVERY_MS = 60_000;

export function createIdleTimeout(repos: Repositories, idleMinutes: number, now: () => number) {
  const idleMs = idleMinutes * 60_000;
  return {
    minutes: idleMinutes,
    /** A session is live only if its operator was active after this. */
    activeAfter: (at: number) => at - idleMs,
    /**
     * Sessions idle since before this are forgotten. By the longest timeout, not this instance's:
     * instances whose settings differ (a worker started without it, a rolling change of it) must
     * not delete the sessions another instance still keeps. Each answers by its own setting.
     */
    forgetBefore: (at: number) => at - MAX_IDLE_MINUTES * 60_000,
    /**
     * A request of a live session whose last activity was recorded at `lastActiveAt`: records this
     * one if `active` and the record is a minute old. Answers the milliseconds left before the
     * session ends for want of activity.
     */
    async seen(tokenHash: string, lastActiveAt: number, active: boolean): Promise<number> {
      const at = now();
      if (active && at - lastActiveAt >= ACTIVITY_WRITE_EVERY_MS) {
        // Not written when another request of the session wrote it meanwhile: then it is as new.
        await repos.operators.recordActivity(tokenHash, at, at - ACTIVITY_WRITE_EVERY_MS, at - idleMs);
        return idleMs;
      }
      return Math.max(0, lastActiveAt + idleMs - at);
    },
  };
}
