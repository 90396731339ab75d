import type { AccountCandidate } from "../../src/routing/account-order.js";

/** A manual account as routing sees it, active, without limits; tests change what they need. */
export function accountCandidate(id = 1, overrides: Partial<AccountCandidate> = {}): AccountCandidate {
  return {
    id,
    bankName: "Ziraat Bankası",
    holderName: "Ödeme Hizmetleri A.Ş.",
    iban: "TR330006100519786457841326",
    minAmount: null,
    maxAmount: null,
    active: true,
    lastAssignedAt: 0,
    ...overrides,
  };
}
