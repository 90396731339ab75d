/** The operators' accounts as admins keep them: add, list, change, reset a lost second factor. */
import { notFound, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import { type ConsoleOperator, operatorView, type Role } from "./operator.js";
import { hashPassword, newPassword } from "./passwords.js";

export interface AccountDeps {
  repos: Repositories;
  now(): number;
}

export async function createOperator(
  deps: AccountDeps,
  email: string,
  role: Role,
  password: string | null,
  actor = "admin-api",
) {
  const { repos } = deps;
  const normalised = email.trim().toLowerCase();
  if (await repos.operators.byEmail(normalised)) {
    return refusal("operator_exists", `operator ${normalised} exists already`);
  }
  const plain = password ?? newPassword();
  const now = deps.now();
  const row = await repos.audited.insertUnique(
    "operators",
    {
      email: normalised,
      role,
      password_hash: await hashPassword(plain),
      failed_logins: 0,
      locked_until: 0,
      active: 1,
      created_at: now,
      updated_at: now,
    },
    { actor, action: "operator.create", at: now },
  );
  // Another request created the same email between the check above and this insert.
  if (!row) {
    return refusal("operator_exists", `operator ${normalised} exists already`);
  }
  return {
    ok: true as const,
    value: { ...operatorView(row), ...(password === null ? { password: plain } : {}) },
  };
}

/**
 * An operator's second factor removed (they lost their phone), from the admin API. Their
 * sessions end, as with the console's reset: the lost phone may still be signed in.
 */
export async function resetSecondFactor(deps: AccountDeps, email: string, actor: string) {
  const { repos } = deps;
  const row = await repos.operators.byEmail(email.trim().toLowerCase());
  if (!row) return notFound("operator");
  const now = deps.now();
  const after = await repos.audited.update(
    "operators",
    row.id,
    { totp_sealed: null, totp_pending_sealed: null, updated_at: now },
    { actor, action: "operator.update", at: now },
  );
  await repos.operators.deleteSessionsOf(row.id);
  await repos.operatorDevices.forgetOf(row.id, null);
  await repos.recoveryCodes.deleteOf(row.id);
  return { ok: true as const, value: operatorView(after ?? row) };
}

export async function listOperators(deps: AccountDeps) {
  const { repos } = deps;
  return (await repos.operators.list()).map((o) => ({
    ...operatorView(o),
    active: o.active === 1,
    locked: o.locked_until > deps.now(),
  }));
}

/**
 * An admin changes another operator's role, switches them off or resets their second factor
 * (their sessions end with either of the last two).
 * Not oneself: an admin who demoted themselves by mistake could leave nobody to undo it.
 */
export async function updateOperator(
  deps: AccountDeps,
  by: ConsoleOperator,
  id: number,
  changes: { role?: Role; active?: boolean; unlock?: boolean; reset_second_factor?: boolean },
  actor: string,
) {
  const { repos } = deps;
  if (id === by.id) {
    return refusal("own_role_unchangeable", "you cannot change your own role or access");
  }
  const row = await repos.audited.updateOperator(
    id,
    {
      role: changes.role,
      active: changes.active === undefined ? undefined : changes.active ? 1 : 0,
      ...(changes.unlock ? { failed_logins: 0, locked_until: 0 } : {}),
      // An operator who lost their phone signs in with their password alone, then sets it up again.
      ...(changes.reset_second_factor ? { totp_sealed: null, totp_pending_sealed: null } : {}),
      updated_at: deps.now(),
    },
    { actor, action: "operator.update", at: deps.now() },
  );
  if (row === "last_admin") {
    return refusal("last_admin", "the last active admin cannot be removed");
  }
  if (!row) return notFound("operator");
  // Switched off, or the second factor reset (the lost phone may still be signed in): the
  // operator's sessions end.
  // Their browsers are forgotten with them: one a phisher signed in from would otherwise keep
  // counting its guesses apart from the account's.
  if (row.active === 0 || changes.reset_second_factor) {
    await repos.operators.deleteSessionsOf(id);
    await repos.operatorDevices.forgetOf(id, null);
  }
  // The recovery codes belonged to the second factor reset: a new one comes with new codes.
  if (changes.reset_second_factor) await repos.recoveryCodes.deleteOf(id);
  return { ok: true as const, value: { ...operatorView(row), active: row.active === 1 } };
}
