import { init } from "./20261122T0500_init.js";
import { rotationInMemory } from "./20261122T1400_rotation_in_memory.js";
import { lifecycle } from "./20261122T1500_lifecycle.js";
import { channels } from "./20261122T1600_channels.js";
import { dailyCaps } from "./20261122T1700_daily_caps.js";
import { paymentSessions } from "./20261122T1800_payment_sessions.js";
import { operators } from "./20261122T1900_operators.js";
import { sandbox } from "./20261123T1000_sandbox.js";
import { rateWindows } from "./20261123T1100_rate_windows.js";
import { callbackScheduleVersion } from "./20261124T1000_callback_schedule_version.js";
import { capHolds } from "./20261124T1200_cap_holds.js";
import { capHoldDeposit } from "./20261124T1400_cap_hold_deposit.js";
import { loginWindows } from "./20261124T1900_login_windows.js";
import { operatorTotp } from "./20261124T2000_operator_totp.js";
import { keyCheck } from "./20261124T2100_key_check.js";
import { recoveryCodes } from "./20261124T2200_recovery_codes.js";
import { knownDevices } from "./20261124T2300_known_devices.js";
import { payerNameKey } from "./20261125T0600_payer_name_key.js";
import { sessionActivity } from "./20261125T1200_session_activity.js";
import { payoutClaims } from "./20261125T1800_payout_claims.js";
import { operatorIndexes } from "./20261128T1000_operator_indexes.js";
import { purgeIndexes } from "./20261128T1100_purge_indexes.js";
import { nameSearch } from "./20261128T1200_name_search.js";
import { statementLines } from "./20261128T1300_statement_lines.js";
import { ignoredFields } from "./20261128T1400_ignored_fields.js";
import { firmPendingBounds } from "./20261129T1000_firm_pending_bounds.js";
import { firmPageSettings } from "./20261130T1000_firm_page_settings.js";
import { amountDayIndexes } from "./20261201T1000_amount_day_indexes.js";
import { accountDayUse } from "./20261201T1100_account_day_use.js";
import { nameDayIndex } from "./20261201T1200_name_day_index.js";
import { transactionDays } from "./20261202T1000_transaction_days.js";
import { nameTerms } from "./20261202T1100_name_terms.js";
import { summaryHours } from "./20261203T1000_summary_hours.js";
import { paymentCodeKey } from "./20261204T1000_payment_code_key.js";
import { statementSequences } from "./20261205T1000_statement_sequences.js";
import { payouts } from "./20261206T1000_payouts.js";
import { statementLinePayouts } from "./20261206T1100_statement_line_payouts.js";
import { ledger } from "./20261206T1200_ledger.js";
import { bankChecks } from "./20261207T1200_bank_checks.js";
import { firmOverdraft } from "./20261207T1500_firm_overdraft.js";
import { summaryBusyDay } from "./20261208T1000_summary_busy_day.js";
import { callbackClaims } from "./20261209T1000_callback_claims.js";
import { refundLines } from "./20261210T1000_refund_lines.js";
import type { Migration } from "./migration.js";

/** In the order they apply. Never edit one that has shipped; add a new one. */
export const migrations: readonly Migration[] = [
  init,
  rotationInMemory,
  lifecycle,
  channels,
  dailyCaps,
  paymentSessions,
  operators,
  sandbox,
  rateWindows,
  callbackScheduleVersion,
  capHolds,
  capHoldDeposit,
  loginWindows,
  operatorTotp,
  keyCheck,
  recoveryCodes,
  knownDevices,
  payerNameKey,
  sessionActivity,
  payoutClaims,
  operatorIndexes,
  purgeIndexes,
  nameSearch,
  statementLines,
  ignoredFields,
  firmPendingBounds,
  firmPageSettings,
  amountDayIndexes,
  accountDayUse,
  nameDayIndex,
  transactionDays,
  nameTerms,
  summaryHours,
  paymentCodeKey,
  statementSequences,
  payouts,
  statementLinePayouts,
  ledger,
  bankChecks,
  firmOverdraft,
  summaryBusyDay,
  callbackClaims,
  refundLines,
];

export type { Migration };
