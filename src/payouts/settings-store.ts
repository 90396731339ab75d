/** The payout settings as stored per scope, read once into what domain/payout-settings.ts merges. */
import {
  type PayoutScope,
  type PayoutSettings,
  readScope,
  type ScopeSettings,
  scopeKey,
  settingsFor,
} from "../domain/payout-settings.js";
import type { Repositories } from "../store/index.js";

/** Every scope's settings, read once for a batching or a screen. */
export interface SettingsSnapshot {
  scope(scope: PayoutScope): ScopeSettings;
  inForce(firmId: number | null, accountId: number | null): PayoutSettings;
}

export async function settingsSnapshot(repos: Repositories): Promise<SettingsSnapshot> {
  const stored = await repos.payoutSettings.all();
  const scope = (s: PayoutScope) => readScope(stored.get(scopeKey(s)));
  return {
    scope,
    inForce: (firmId, accountId) =>
      settingsFor(
        scope({ kind: "all" }),
        firmId === null ? {} : scope({ kind: "firm", id: firmId }),
        accountId === null ? {} : scope({ kind: "account", id: accountId }),
      ),
  };
}
