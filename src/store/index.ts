import { type AccountRepository, createAccountRepository } from "./accounts.js";
import { type AuditedChanges, createAuditedChanges } from "./audited.js";
import { type CallbackRepository, createCallbackRepository } from "./callbacks.js";
import { type CapHoldRepository, createCapHoldRepository } from "./cap-holds.js";
import { type ChannelRepository, createChannelRepository } from "./channels.js";
import { createDecisionRepository, type DecisionRepository } from "./decisions.js";
import type { Store } from "./engine/open.js";
import { createFirmPendingRepository, type FirmPendingRepository } from "./firm-pending.js";
import { createFirmRepository, type FirmRepository } from "./firms.js";
import { createLoginLockRepository, type LoginLockRepository } from "./login-locks.js";
import { createLoginWindowRepository, type LoginWindowRepository } from "./login-windows.js";
import { createNonceRepository, type NonceRepository } from "./nonces.js";
import { createOperatorDeviceRepository, type OperatorDeviceRepository } from "./operator-devices.js";
import { createOperatorRepository, type OperatorRepository } from "./operators.js";
import { createSessionRepository, type SessionRepository } from "./payment-sessions.js";
import { createPayoutClaimRepository, type PayoutClaimRepository } from "./payout-claims.js";
import { createRateWindowRepository, type RateWindowRepository } from "./rate-windows.js";
import { createRecoveryCodeRepository, type RecoveryCodeRepository } from "./recovery-codes.js";
import { createFeedRepository, type FeedRepository } from "./statement-feeds.js";
import { createStatementRepository, type StatementRepository } from "./statement-lines.js";
import { createTransactionRepository, type TransactionRepository } from "./transactions.js";
import { createUsualAmountRepository, type UsualAmountRepository } from "./usual-amounts.js";

export interface Repositories {
  firms: FirmRepository;
  firmPending: FirmPendingRepository;
  accounts: AccountRepository;
  nonces: NonceRepository;
  transactions: TransactionRepository;
  decisions: DecisionRepository;
  callbacks: CallbackRepository;
  channels: ChannelRepository;
  sessions: SessionRepository;
  operators: OperatorRepository;
  recoveryCodes: RecoveryCodeRepository;
  audited: AuditedChanges;
  rateWindows: RateWindowRepository;
  loginWindows: LoginWindowRepository;
  loginLocks: LoginLockRepository;
  operatorDevices: OperatorDeviceRepository;
  payoutClaims: PayoutClaimRepository;
  capHolds: CapHoldRepository;
  statements: StatementRepository;
  feeds: FeedRepository;
  usualAmounts: UsualAmountRepository;
}

export function createRepositories(store: Store): Repositories {
  return {
    firms: createFirmRepository(store.db),
    firmPending: createFirmPendingRepository(store.db),
    accounts: createAccountRepository(store.db),
    nonces: createNonceRepository(store.db, store.statements),
    transactions: createTransactionRepository(store.db, store.statements, store.dialect, {
      batched: store.batched,
    }),
    decisions: createDecisionRepository(store.db, store.dialect),
    callbacks: createCallbackRepository(store.db, store.dialect),
    channels: createChannelRepository(store.db),
    sessions: createSessionRepository(store.db),
    operators: createOperatorRepository(store.db, store.dialect),
    recoveryCodes: createRecoveryCodeRepository(store.db),
    audited: createAuditedChanges(store.db, store.dialect),
    rateWindows: createRateWindowRepository(store.db),
    loginWindows: createLoginWindowRepository(store.db),
    loginLocks: createLoginLockRepository(store.db),
    operatorDevices: createOperatorDeviceRepository(store.db),
    payoutClaims: createPayoutClaimRepository(store.db),
    capHolds: createCapHoldRepository(store.db, store.dialect),
    statements: createStatementRepository(store.db),
    feeds: createFeedRepository(store.db),
    usualAmounts: createUsualAmountRepository(store.db),
  };
}
