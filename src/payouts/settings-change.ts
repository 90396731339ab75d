/** An admin's change to a scope's payout settings, and what is in force there afterwards. */

import { type PayoutScope, type ScopeSettings, scopeKey, settingsView } from "../domain/payout-settings.js";
import { notFound, type Outcome, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import { settingsSnapshot } from "./settings-store.js";

/** What a paying account's scope (or the service's) sets: meaningless for a firm (settingsFor). */
const ACCOUNT_KEYS = ["fastLimit", "channelFinalApproves"] as const;

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
  const own = snapshot.scope(scope);
  // At an account's scope `payouts` says whether the account may pay out (on unless set off there).
  const shown = scope.kind === "account" ? { ...inForce, payouts: own.payouts ?? true } : inForce;
  return { ok: true as const, value: settingsView(scope, own, shown) };
}

export async function updateSettings(
  deps: { repos: Repositories; now(): number },
  scope: PayoutScope,
  change: SettingsChange,
  actor: string,
): Promise<Outcome<ReturnType<typeof settingsView>>> {
  if (!(await scopeExists(deps.repos, scope))) return notFound(scope.kind === "firm" ? "firm" : "account");
  const misplaced = ACCOUNT_KEYS.filter((key) => scope.kind === "firm" && change[key] !== undefined);
  if (misplaced.length > 0)
    return refusal(
      "invalid_input",
      "fast_limit and channel_final_approves are set for the service or a paying account, not a firm",
    );
  if (scope.kind === "account" && change.balanceGuard !== undefined)
    return refusal("invalid_input", "balance_guard is set for the service or a firm, not an account");
  await deps.repos.payoutSettings.change(scopeKey(scope), { ...change }, actor, deps.now());
  return settingsIn(deps, scope);
}
