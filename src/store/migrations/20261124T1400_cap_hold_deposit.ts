import type { Migration } from "./migration.js";

/**
 * Each hold names the deposit it is for, so that a deposit already written no longer counts its
 * hold as well: summed in one snapshot, the deposit or its hold counts, never both and never
 * neither (store/routing/cap-holds.ts). Holds written without them (by an instance not yet upgraded) keep
 * counting until released or expired, as before.
 */
const script = (bigint: string) => `
ALTER TABLE cap_holds ADD COLUMN firm_id ${bigint};
ALTER TABLE cap_holds ADD COLUMN reference TEXT;
`;

export const capHoldDeposit: Migration = {
  version: "20261124T1400_cap_hold_deposit",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
};
