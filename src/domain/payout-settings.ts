/**
 * Payout settings, as an admin sets them per scope (the whole service, a firm, a paying account) and
 * as a batch is judged by them. Amounts are minor units; `null` is "no such rule".
 *
 * - `payouts`: the firm's withdrawals are paid in batches and approved by the bank's statement;
 *   off (the default) they are paid by hand as before. At an account's scope: whether the account
 *   may pay out (on unless an admin says otherwise).
 * - The two-person rules apply at every scope that sets one, and the lowest amount wins: a firm's
 *   own rule can make a batch of its payouts stricter, never looser than the service's.
 * - `channelFinalApproves`: a payout channel's final "paid" approves the withdrawal without waiting
 *   for the statement (account scope: the channel is the account's).
 * - `balanceGuard`: the ledger's guard (docs/payouts.md): a firm's payouts are held to its balance
 *   (less what its unsent batches hold, plus its overdraft). On by default; a firm's own setting
 *   wins over the service's; an account sets none.
 */
import { formatMinor } from "./money.js";

export interface PayoutSettings {
  payouts: boolean;
  twoPersonBatchAbove: number | null;
  twoPersonPayoutAbove: number | null;
  /** What one operator batches in a Türkiye day, above which each further batch needs a second. */
  twoPersonDayAbove: number | null;
  channelFinalApproves: boolean;
  /** FAST's most per transfer; above it a payout goes by EFT. */
  fastLimit: number;
  balanceGuard: boolean;
}

/** What one scope sets: the keys present are set there, the rest inherited. */
export type ScopeSettings = Partial<PayoutSettings>;

export type PayoutScope = { kind: "all" } | { kind: "firm"; id: number } | { kind: "account"; id: number };

export const DEFAULT_PAYOUT_SETTINGS: PayoutSettings = {
  payouts: false,
  twoPersonBatchAbove: 10_000_000,
  twoPersonPayoutAbove: null,
  twoPersonDayAbove: null,
  channelFinalApproves: false,
  fastLimit: 10_000_000,
  balanceGuard: true,
};

export function scopeKey(scope: PayoutScope): string {
  return scope.kind === "all" ? "all" : `${scope.kind}:${scope.id}`;
}

const lowest = (values: (number | null | undefined)[]): number | null => {
  const set = values.filter((v): v is number => typeof v === "number");
  return set.length === 0 ? null : Math.min(...set);
};

/** A rule set at the service's scope, or inherited from the defaults there. */
function serviceWide<K extends keyof PayoutSettings>(all: ScopeSettings, key: K): PayoutSettings[K] {
  const v = all[key];
  return v === undefined ? DEFAULT_PAYOUT_SETTINGS[key] : (v as PayoutSettings[K]);
}

/** The settings in force for one firm's payouts from one account. */
export function settingsFor(all: ScopeSettings, firm: ScopeSettings, account: ScopeSettings): PayoutSettings {
  const rule = (key: "twoPersonBatchAbove" | "twoPersonPayoutAbove" | "twoPersonDayAbove") =>
    lowest([serviceWide(all, key), firm[key], account[key]]);
  return {
    payouts: firm.payouts ?? serviceWide(all, "payouts"),
    twoPersonBatchAbove: rule("twoPersonBatchAbove"),
    twoPersonPayoutAbove: rule("twoPersonPayoutAbove"),
    twoPersonDayAbove: rule("twoPersonDayAbove"),
    channelFinalApproves: account.channelFinalApproves ?? serviceWide(all, "channelFinalApproves"),
    fastLimit: account.fastLimit ?? serviceWide(all, "fastLimit"),
    balanceGuard: firm.balanceGuard ?? serviceWide(all, "balanceGuard"),
  };
}

/** A scope's settings as the API answers them: what is set there, and what is in force there. */
export function settingsView(scope: PayoutScope, own: ScopeSettings, inForce: PayoutSettings) {
  const amount = (v: number | null) => (v === null ? null : formatMinor(v));
  return {
    scope: scopeKey(scope),
    payouts: inForce.payouts,
    two_person_batch_above: amount(inForce.twoPersonBatchAbove),
    two_person_payout_above: amount(inForce.twoPersonPayoutAbove),
    two_person_day_above: amount(inForce.twoPersonDayAbove),
    channel_final_approves: inForce.channelFinalApproves,
    fast_limit: formatMinor(inForce.fastLimit),
    balance_guard: inForce.balanceGuard,
    set_here: Object.keys(own).sort(),
  };
}

const AMOUNT_KEYS = [
  "twoPersonBatchAbove",
  "twoPersonPayoutAbove",
  "twoPersonDayAbove",
  "fastLimit",
] as const;
const FLAG_KEYS = ["payouts", "channelFinalApproves", "balanceGuard"] as const;

/**
 * A scope's stored JSON read back. It is the service's own (written from checked input), read
 * defensively all the same: a key of the wrong type is taken as unset.
 */
export function readScope(json: Record<string, unknown> | undefined): ScopeSettings {
  const out: ScopeSettings = {};
  if (!json) return out;
  for (const key of FLAG_KEYS) if (typeof json[key] === "boolean") out[key] = json[key] as boolean;
  for (const key of AMOUNT_KEYS) {
    const v = json[key];
    if (v === null && key !== "fastLimit") out[key] = null;
    else if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) out[key] = v as never;
  }
  return out;
}

/** Whether a firm's withdrawals are paid in batches and approved by the bank's statement. */
export function firmPaysInBatches(
  stored: ReadonlyMap<string, Record<string, unknown>>,
  firmId: number,
): boolean {
  return settingsFor(readScope(stored.get("all")), readScope(stored.get(`firm:${firmId}`)), {}).payouts;
}
