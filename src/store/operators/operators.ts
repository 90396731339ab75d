import { type Kysely, type Selectable, sql } from "kysely";
import { countFailure, type LockColumns, takeBackFailure } from "../engine/lock-counting.js";
import type { Dialect } from "../engine/open.js";
import type { Database, OperatorTable } from "../schema.js";

export type OperatorRow = Selectable<OperatorTable>;

/** What a sign-in checked: the password hash, and the second factor's sealed secret (null: none). */
export interface CheckedCredentials {
  passwordHash: string;
  totpSealed: string | null;
}

export interface OperatorRepository {
  byEmail(email: string): Promise<OperatorRow | undefined>;
  /**
   * Counts a login attempt as failed before its password is checked, unless the account is locked at
   * `now` (then false); the attempt that reaches `limit` failures in a row locks it until `lockUntil`.
   * One statement, so attempts made at once are counted one by one: however many arrive together,
   * no more than `limit` get their password checked. A success resets the count (recordSuccess);
   * so does a last failure before `forgetBefore` (the count starts again at this one).
   */
  claimAttempt(
    id: number,
    now: number,
    limit: number,
    lockUntil: number,
    forgetBefore: number,
  ): Promise<boolean>;
  recordSuccess(id: number): Promise<void>;
  /**
   * Takes back an attempt that guessed nothing wrong (the password was right; the code is asked
   * next), claimed with `lockUntil`, and the lock if that claim set it: the count is as if the
   * attempt never came. No attempt is counted while a lock holds, so a lock ending at `lockUntil`
   * was set by this claim, or at the same millisecond by one that counted this one to reach the
   * limit (and would not have locked without it); a lock with another end stays.
   */
  giveBackAttempt(id: number, lockUntil: number): Promise<void>;
  /**
   * Keeps an authenticator secret being set up (sealed), replacing any earlier one not confirmed;
   * false (nothing kept) while a second factor is on, checked in the same statement, so one being
   * confirmed at the same moment is not followed by a pending secret that could replace it.
   */
  setTotpPending(id: number, sealed: string): Promise<boolean>;
  /**
   * Takes a code's time step if it is later than the last one taken, in one statement: false for a
   * code already used (or an earlier one), also when two sign-ins send it at once.
   */
  takeTotpStep(id: number, step: number): Promise<boolean>;
  /**
   * Opens a session if the operator is active and its password hash and second factor (sealed, or
   * null: none) are still the ones the sign-in checked (false otherwise): a sign-in whose check
   * overlapped a password change, or turning the second factor on, must not outlive it. The
   * operator row is share-locked meanwhile, so a change waits for the insert and then ends the
   * session with the others.
   */
  createSession(
    values: {
      token_hash: string;
      operator_id: number;
      csrf_token: string;
      device_hash: string | null;
      expires_at: number;
      created_at: number;
      last_active_at: number;
    },
    checked: CheckedCredentials,
    /** Also record that the operator signed in from this browser, in the same transaction. */
    browser?: { tokenHash: string; now: number },
  ): Promise<boolean>;
  /**
   * The live session, its operator, the browser it was signed in from and when it last saw its
   * operator act; undefined when unknown, expired, idle (no activity after `activeAfter`) or the
   * operator is inactive.
   */
  session(
    tokenHash: string,
    now: number,
    activeAfter: number,
  ): Promise<
    | {
        operator: OperatorRow;
        csrfToken: string;
        deviceHash: string | null;
        lastActiveAt: number;
        /** When the session ends whatever the operator does (12 hours from sign-in). */
        expiresAt: number;
      }
    | undefined
  >;
  /**
   * Records the operator's activity at `now` if the last record is from `writtenBefore` or earlier
   * (false otherwise), and only in a session still live (not expired, active after `activeAfter`):
   * a request racing the idle timeout cannot bring an ended session back. One statement, so
   * requests arriving together, on any instance, write it once.
   */
  recordActivity(
    tokenHash: string,
    now: number,
    writtenBefore: number,
    activeAfter: number,
  ): Promise<boolean>;
  deleteSession(tokenHash: string): Promise<void>;
  deleteSessionsOf(operatorId: number): Promise<void>;
  /**
   * Forgets console sessions that expired before `now` or saw no activity after `activeAfter` (they
   * no longer open anything; gone, an idle one stays ended if the idle timeout is later raised).
   */
  purgeExpiredSessions(now: number, activeAfter: number): Promise<void>;
  list(): Promise<OperatorRow[]>;
  get(id: number): Promise<OperatorRow | undefined>;
}

/** The account's lock, kept on the operator's row (operators/sign-in-attempts.ts). */
const OPERATOR_LOCK: LockColumns = {
  failures: "failed_logins",
  lockedUntil: "locked_until",
  lastFailure: "last_failed_at",
};

/**
 * When a session last saw its operator act. A session an instance from before the idle timeout
 * opened during a rolling upgrade has no record (0, the column's default): its sign-in is its last
 * activity, so it is neither refused at once nor purged by the upgraded instances.
 */
const lastActive = sql<number>`CASE WHEN operator_sessions.last_active_at = 0 THEN operator_sessions.created_at ELSE operator_sessions.last_active_at END`;

export function createOperatorRepository(db: Kysely<Database>, dialect: Dialect): OperatorRepository {
  return {
    byEmail(email) {
      return db.selectFrom("operators").selectAll().where("email", "=", email).executeTakeFirst();
    },
    async claimAttempt(id, now, limit, lockUntil, forgetBefore) {
      const counted = countFailure(OPERATOR_LOCK, limit, lockUntil, forgetBefore);
      const claimed = await db
        .updateTable("operators")
        .set({ failed_logins: counted.failures, locked_until: counted.lockedUntil, last_failed_at: now })
        .where("id", "=", id)
        .where("locked_until", "<=", now)
        .returning("id")
        .executeTakeFirst();
      return claimed !== undefined;
    },
    async recordSuccess(id) {
      await db
        .updateTable("operators")
        .set({ failed_logins: 0, locked_until: 0 })
        .where("id", "=", id)
        .execute();
    },
    async giveBackAttempt(id, lockUntil) {
      const taken = takeBackFailure(OPERATOR_LOCK, lockUntil);
      await db
        .updateTable("operators")
        .set({ failed_logins: taken.failures, locked_until: taken.lockedUntil })
        .where("id", "=", id)
        .where("failed_logins", ">", 0)
        .execute();
    },
    async setTotpPending(id, sealed) {
      const kept = await db
        .updateTable("operators")
        .set({ totp_pending_sealed: sealed })
        .where("id", "=", id)
        .where("totp_sealed", "is", null)
        .returning("id")
        .executeTakeFirst();
      return kept !== undefined;
    },
    async takeTotpStep(id, step) {
      const taken = await db
        .updateTable("operators")
        .set({ totp_last_step: step })
        .where("id", "=", id)
        .where("totp_last_step", "<", step)
        .returning("id")
        .executeTakeFirst();
      return taken !== undefined;
    },
    createSession(values, checked, browser) {
      return db.transaction().execute(async (trx) => {
        const current = trx
          .selectFrom("operators")
          .select(["password_hash", "totp_sealed"])
          .where("id", "=", values.operator_id)
          .where("active", "=", 1);
        const row = await (dialect === "postgres" ? current.forShare() : current).executeTakeFirst();
        if (row?.password_hash !== checked.passwordHash || row.totp_sealed !== checked.totpSealed)
          return false;
        await trx.insertInto("operator_sessions").values(values).execute();
        // Here, not after: a password change that forgets the operator's other browsers waits for
        // this transaction (the row is share-locked) and then forgets this one with the session.
        if (browser) {
          const { tokenHash, now } = browser;
          await trx
            .insertInto("operator_devices")
            .values({ token_hash: tokenHash, operator_id: values.operator_id, created_at: now, seen_at: now })
            .onConflict((oc) => oc.columns(["token_hash", "operator_id"]).doUpdateSet({ seen_at: now }))
            .execute();
        }
        return true;
      });
    },
    async session(tokenHash, now, activeAfter) {
      const row = await db
        .selectFrom("operator_sessions")
        .innerJoin("operators", "operators.id", "operator_sessions.operator_id")
        .selectAll("operators")
        .select([
          "operator_sessions.csrf_token",
          "operator_sessions.device_hash",
          "operator_sessions.expires_at as session_expires_at",
          lastActive.as("last_active_at"),
        ])
        .where("operator_sessions.token_hash", "=", tokenHash)
        .where("operator_sessions.expires_at", ">", now)
        .where(lastActive, ">", activeAfter)
        .where("operators.active", "=", 1)
        .executeTakeFirst();
      if (!row) return undefined;
      const { csrf_token, device_hash, last_active_at, session_expires_at, ...operator } = row;
      return {
        operator,
        csrfToken: csrf_token,
        deviceHash: device_hash,
        lastActiveAt: last_active_at,
        expiresAt: session_expires_at,
      };
    },
    async recordActivity(tokenHash, now, writtenBefore, activeAfter) {
      const written = await db
        .updateTable("operator_sessions")
        .set({ last_active_at: now })
        .where("token_hash", "=", tokenHash)
        .where(lastActive, "<=", writtenBefore)
        .where(lastActive, ">", activeAfter)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      return Number(written.numUpdatedRows) === 1;
    },
    async deleteSession(tokenHash) {
      await db.deleteFrom("operator_sessions").where("token_hash", "=", tokenHash).execute();
    },
    async deleteSessionsOf(operatorId) {
      await db.deleteFrom("operator_sessions").where("operator_id", "=", operatorId).execute();
    },
    async purgeExpiredSessions(now, activeAfter) {
      await db
        .deleteFrom("operator_sessions")
        .where((eb) => eb.or([eb("expires_at", "<", now), eb(lastActive, "<=", activeAfter)]))
        .execute();
    },
    list() {
      return db.selectFrom("operators").selectAll().orderBy("id").execute();
    },
    get(id) {
      return db.selectFrom("operators").selectAll().where("id", "=", id).executeTakeFirst();
    },
  };
}
