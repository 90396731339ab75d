import { sealContext } from "../crypto/seal-context.js";
import { openOrUndefined, type SecretBox } from "../crypto/secret-box.js";
import { operatorActor } from "../domain/actors.js";
import { notFound, type Refusal, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import type { OperatorRow } from "../store/operators/operators.js";
import { renewSession, type SessionRef } from "./console-sessions.js";
import { sessionDeviceCounter } from "./devices.js";
import { replaceRecoveryCodes } from "./recovery-codes.js";
import { type Guess, guessFrom, takeCode, takeCodeOrRecovery } from "./sign-in-attempts.js";
import { base32, fromBase32, newTotpSecret, otpauthUri } from "./totp.js";

/**
 * An authenticator secret as kept: base32 text, sealed with the master key for its operator.
 * Undefined when it does not open for this operator (copied from another's row or altered): then no
 * code from an authenticator is right, and a recovery code or an admin's reset is the way back in.
 */
export function openSecret(box: SecretBox, sealed: string, operatorId: number): Buffer | undefined {
  const text = openOrUndefined(box, sealed, sealContext.operatorTotp(operatorId));
  return text === undefined ? undefined : fromBase32(text);
}

type Failure = Refusal;
const ON_ALREADY = "two-step sign-in is on already: turn it off first";
const REQUIRED = "this console requires two-step sign-in: it cannot be turned off (an admin can reset it)";

interface SecondFactorDeps {
  repos: Repositories;
  box: SecretBox;
  now(): number;
  guess: Guess;
  /** The console requires a second factor: an operator cannot turn theirs off (an admin resets it). */
  required: boolean;
}

/**
 * The password and a code, counted against the lockout as at sign-in (the session's browser's
 * lock first, then the account's: a stranger's lock on the account does not stop the operator);
 * the lockout ends sessions. `pending`: a code from the secret being set up; `on`: from the one
 * that is on, or a recovery code (audited).
 */
async function checkPasswordAndCode(
  deps: SecondFactorDeps,
  operatorId: number,
  password: string,
  code: string,
  which: "pending" | "on",
  missing: string,
  session: SessionRef,
) {
  const { repos, box, guess } = deps;
  const row = await repos.operators.get(operatorId);
  if (!row) return notFound("operator");
  const secret = which === "pending" ? row.totp_pending_sealed : row.totp_sealed;
  if (secret === null)
    return refusal(which === "pending" ? "second_factor_not_started" : "second_factor_off", missing);
  const now = deps.now();
  let taken: "totp" | "recovery" | undefined;
  const second = async () => {
    const key = openSecret(box, secret, row.id);
    if (which === "pending") return takeCode(repos, row, key, code, now);
    taken = await takeCodeOrRecovery(repos, row, key, code, now);
    return taken !== undefined;
  };
  const device = await sessionDeviceCounter(repos, session.deviceHash, row.id, now);
  const { outcome } = await guessFrom(guess, row, now, password, second, device);
  if (taken === "recovery") await auditRecoveryCodeUsed(repos, row, now, {});
  if (outcome === "locked" || outcome === "locking") {
    await repos.operators.deleteSessionsOf(row.id);
    return refusal("password_locked", "too many wrong passwords or codes: signed out; try again later");
  }
  if (outcome === "wrong") return refusal("wrong_password_or_code", "password or code is wrong");
  return { ok: true as const, row, secret, now };
}

/**
 * Makes `secret` (null: none) the operator's second factor, audited; ends their sessions, and the
 * one it was done in goes on under a new token and CSRF token (returned); forgets their browsers
 * but that session's.
 */
async function switchSecondFactor(
  repos: Repositories,
  checked: { row: OperatorRow; now: number },
  secret: string | null,
  keep: SessionRef,
): Promise<{ token: string | null; csrf: string }> {
  const { row, now } = checked;
  await repos.audited.update(
    "operators",
    row.id,
    { totp_sealed: secret, totp_pending_sealed: null, updated_at: now },
    { actor: operatorActor(row.email), action: "operator.second_factor", at: now },
  );
  await repos.operators.deleteSessionsOf(row.id);
  await repos.operatorDevices.forgetOf(row.id, keep.deviceHash);
  return renewSession(repos, row.id, keep, { passwordHash: row.password_hash, totpSealed: secret }, now);
}

/**
 * An operator's second factor for console sign-in (a code from an authenticator app, RFC 6238),
 * set up and removed by the operator, reset by an admin (operators/operator-accounts.ts updateOperator). Setting
 * one up or removing it takes the password and a code, counted like sign-ins: a stolen session
 * alone can do neither, nor guess past the lockout. While one is on, no other can be set up (it
 * must be removed first, with a code from it): a session and the password alone would otherwise
 * swap in the attacker's authenticator. Setting one up or removing it ends the operator's other
 * sessions, as a password change does (OWASP ASVS 5.0, 7.4.3). Turning it on gives ten recovery
 * codes (operators/recovery-codes.ts), shown once; removing it deletes them. Where the second factor
 * that is on is asked for (removing it, new recovery codes) a recovery code stands in for the
 * authenticator's code, as at sign-in: an operator who lost their phone signs in with one and can
 * then turn the second factor off and set it up on a new phone without an admin.
 */
export function createSecondFactor(deps: SecondFactorDeps) {
  const { repos, box } = deps;

  return {
    /** A new secret to scan or type in; it takes effect only once `confirm` gets a code from it. */
    async start(
      operatorId: number,
      email: string,
    ): Promise<Failure | { ok: true; value: { secret: string; uri: string } }> {
      const secret = newTotpSecret();
      const text = base32(secret);
      if (
        !(await repos.operators.setTotpPending(
          operatorId,
          box.seal(text, sealContext.operatorTotp(operatorId)),
        ))
      )
        return refusal("second_factor_on_already", ON_ALREADY);
      return { ok: true, value: { secret: text, uri: otpauthUri(secret, email) } };
    },

    async confirm(
      operatorId: number,
      password: string,
      code: string,
      keep: SessionRef,
    ): Promise<
      | Failure
      | {
          ok: true;
          value: { second_factor: true; csrf_token: string; recovery_codes: string[] };
          token: string | null;
        }
    > {
      const checked = await checkPasswordAndCode(
        deps,
        operatorId,
        password,
        code,
        "pending",
        "start setting up the second factor first",
        keep,
      );
      if (!checked.ok) return checked;
      // A secret left pending beside one already on (start refuses to make one then) replaces nothing.
      if (checked.row.totp_sealed !== null) return refusal("second_factor_on_already", ON_ALREADY);
      // Shown here only: the store keeps their hashes. Any left from an earlier second factor go.
      // Made first: should turning it on then fail, codes without a second factor are never asked
      // for, and the next confirmation replaces them; the other way round, a failure after turning
      // it on would leave it on with no codes ever shown.
      const codes = await replaceRecoveryCodes(repos, operatorId, checked.now);
      // Sessions opened with the password alone end; this one goes on, under a new token.
      const { token, csrf } = await switchSecondFactor(repos, checked, checked.secret, keep);
      return { ok: true, value: { second_factor: true, csrf_token: csrf, recovery_codes: codes }, token };
    },

    async remove(
      operatorId: number,
      password: string,
      code: string,
      keep: SessionRef,
    ): Promise<
      Failure | { ok: true; value: { second_factor: false; csrf_token: string }; token: string | null }
    > {
      if (deps.required) return refusal("second_factor_required", REQUIRED);
      const checked = await checkPasswordAndCode(
        deps,
        operatorId,
        password,
        code,
        "on",
        "there is no second factor to remove",
        keep,
      );
      if (!checked.ok) return checked;
      // Any change to how the operator signs in ends their other sessions (someone who turns it off
      // may be answering a break-in); this one goes on, under a new token.
      const { token, csrf } = await switchSecondFactor(repos, checked, null, keep);
      await repos.recoveryCodes.deleteOf(operatorId);
      return { ok: true, value: { second_factor: false, csrf_token: csrf }, token };
    },

    /**
     * Ten new recovery codes (the old ones, used or not, stop working), with the password and a code,
     * as removing takes: a stolen session alone cannot read out a fresh set. Sessions go on: how the
     * operator signs in has not changed.
     */
    async replaceRecoveryCodes(
      operatorId: number,
      password: string,
      code: string,
      session: SessionRef,
    ): Promise<Failure | { ok: true; value: { recovery_codes: string[] } }> {
      const checked = await checkPasswordAndCode(
        deps,
        operatorId,
        password,
        code,
        "on",
        "two-step sign-in is off",
        session,
      );
      if (!checked.ok) return checked;
      const codes = await replaceRecoveryCodes(repos, operatorId, checked.now);
      await repos.audited.event(
        { actor: operatorActor(checked.row.email), action: "operator.recovery_codes", at: checked.now },
        "operator",
        String(operatorId),
        null,
        { recovery_codes: "replaced" },
      );
      return { ok: true, value: { recovery_codes: codes } };
    },

    /** How many of the operator's recovery codes are unused. */
    recoveryCodesLeft(operatorId: number): Promise<number> {
      return repos.recoveryCodes.countLeft(operatorId);
    },
  };
}

export type SecondFactor = ReturnType<typeof createSecondFactor>;

/** A sign-in (or a check) took one of the operator's recovery codes: audited, never the code. */
export async function auditRecoveryCodeUsed(
  repos: Repositories,
  op: OperatorRow,
  now: number,
  details: Record<string, unknown>,
): Promise<void> {
  await repos.audited.event(
    { actor: operatorActor(op.email), action: "operator.recovery_code_used", at: now },
    "operator",
    String(op.id),
    null,
    { ...details, recovery_codes_left: await repos.recoveryCodes.countLeft(op.id) },
  );
}
