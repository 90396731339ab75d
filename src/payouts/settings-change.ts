/** An admin's change to a scope's payout settings, and what is in force there afterwards. */

import { type PayoutScope, type ScopeSettings, scopeKey, settingsView } from "../domain/payout-settings.js";
import { notFound, type Outcome } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import { settingsSnapshot } from "./settings-store.js";

/** The keys an admin sets; an amount's `null` is "no such rule here" (the CLI's `none`). */
export type SettingsChange = ScopeSettings;

async function scopeExists(repos: Repositories, scope: PayoutScope) {
  if (scope.kind === "firm") return (await repos.firms.get(scope.id)) !== undefined;
  if (scope.kind === "account") return (await repos.accounts.get(scope.id)) !== undefined;
  return true;
}

export async function settingsIn(deps: { repos: Repositories }, scope: PayoutScope) {
  if (!(await scopeExists(deps.repos, scope))) return notFound(scope.kind === "firm" ? "firm" : "account");
  const snapshot = await settingsSnapshot(deps.repos);
  const inForce = snapshot.inForce(
    scope.kind === "firm" ? scope.id : null,
    scope.kind === "account" ? scope.id : null,
  );
  return { ok: true as const, value: settingsView(scope, snapshot.scope(scope), inForce) };
}

export async function updateSettings(
  deps: { repos: Repositories; now(): number },
  scope: PayoutScope,
  change: SettingsChange,
  actor: string,
): Promise<Outcome<ReturnType<typeof settingsView>>> {
  if (!(await scopeExists(deps.repos, scope))) return notFound(scope.kind === "firm" ? "firm" : "account");
  const snapshot = await settingsSnapshot(deps.repos);
  const next = { ...snapshot.scope(scope), ...change };
  await deps.repos.payoutSettings.put(scopeKey(scope), next, actor, deps.now());
  return settingsIn(deps, scope);
}
