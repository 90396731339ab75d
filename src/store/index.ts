import { type AuditedChanges, createAuditedChanges } from "./audited.js";
import { type CallbackRepository, createCallbackRepository } from "./callbacks/callbacks.js";
import { createDecisionRepository, type DecisionRepository } from "./decisions/decisions.js";
import { createPayoutClaimRepository, type PayoutClaimRepository } from "./decisions/payout-claims.js";
import type { Store } from "./engine/open.js";
import { type CallbackMoves, createCallbackMoves } from "./firms/callback-moves.js";
import { createFirmPendingRepository, type FirmPendingRepository } from "./firms/firm-pending.js";
import { createFirmRepository, type FirmRepository } from "./firms/firms.js";
import { type BankCheckRepository, createBankCheckRepository } from "./ledger/bank-checks.js";
import { type CommissionRepository, createCommissionRepository } from "./ledger/commissions.js";
import { createLedgerRepository, type LedgerRepository } from "./ledger/ledger.js";
import {
  createMovementTransactionRepository,
  type MovementTransactionRepository,
} from "./ledger/movement-transactions.js";
import { createLedgerOverviewRepository, type LedgerOverviewRepository } from "./ledger/overview.js";
import { createLoginLockRepository, type LoginLockRepository } from "./operators/login-locks.js";
import { createLoginWindowRepository, type LoginWindowRepository } from "./operators/login-windows.js";
import {
  createOperatorDeviceRepository,
  type OperatorDeviceRepository,
} from "./operators/operator-devices.js";
import { createOperatorRepository, type OperatorRepository } from "./operators/operators.js";
import { createRecoveryCodeRepository, type RecoveryCodeRepository } from "./operators/recovery-codes.js";
import { createSessionRepository, type SessionRepository } from "./payment-page/payment-sessions.js";
import { createUsualAmountRepository, type UsualAmountRepository } from "./payment-page/usual-amounts.js";
import { createPayoutBatchRepository, type PayoutBatchRepository } from "./payouts/payout-batches.js";
import { createPayoutOutcomeRepository, type PayoutOutcomeRepository } from "./payouts/payout-outcomes.js";
import { createPayoutSettingsRepository, type PayoutSettingsRepository } from "./payouts/payout-settings.js";
import { createPayoutWatchRepository, type PayoutWatchRepository } from "./payouts/payout-watch.js";
import { createRateWindowRepository, type RateWindowRepository } from "./rate-windows.js";
import { type AccountRepository, createAccountRepository } from "./routing/accounts.js";
import { type CapHoldRepository, createCapHoldRepository } from "./routing/cap-holds.js";
import { type ChannelRepository, createChannelRepository } from "./routing/channels.js";
import {
  createSampleStatementRepository,
  type SampleStatementRepository,
} from "./statements/sample-statements.js";
import { createFeedRepository, type FeedRepository } from "./statements/statement-feeds.js";
import { createStatementRepository, type StatementRepository } from "./statements/statement-lines.js";
import { createNonceRepository, type NonceRepository } from "./transactions/nonces.js";
import {
  createSummaryFigureRepository,
  type SummaryFigureRepository,
} from "./transactions/summary-figures.js";
import { createTransactionRepository, type TransactionRepository } from "./transactions/transactions.js";

export interface Repositories {
  firms: FirmRepository;
  /** A firm's callbacks still going to an earlier webhook, counted and moved (firm update). */
  callbackMoves: CallbackMoves;
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
  payoutBatches: PayoutBatchRepository;
  payoutSettings: PayoutSettingsRepository;
  payoutOutcomes: PayoutOutcomeRepository;
  payoutWatch: PayoutWatchRepository;
  capHolds: CapHoldRepository;
  statements: StatementRepository;
  feeds: FeedRepository;
  sampleStatements: SampleStatementRepository;
  usualAmounts: UsualAmountRepository;
  ledger: LedgerRepository;
  bankChecks: BankCheckRepository;
  commissions: CommissionRepository;
  /** The transactions behind a page of a firm's ledger movements (the merchant API's balance days). */
  movementTransactions: MovementTransactionRepository;
  /** Every live firm's balance in one statement (the console's Bakiyeler). */
  ledgerOverview: LedgerOverviewRepository;
  /** What the console's summary reads: the hours' buckets, the queues, the medians. */
  summaryFigures: SummaryFigureRepository;
}

export function createRepositories(store: Store): Repositories {
  return {
    firms: createFirmRepository(store.db),
    callbackMoves: createCallbackMoves(store.db),
    firmPending: createFirmPendingRepository(store.db),
    accounts: createAccountRepository(store.db),
    nonces: createNonceRepository(store.db, store.prepared),
    transactions: createTransactionRepository(store.db, store.prepared, store.dialect, {
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
    payoutBatches: createPayoutBatchRepository(store.db, store.dialect),
    payoutSettings: createPayoutSettingsRepository(store.db),
    payoutOutcomes: createPayoutOutcomeRepository(store.db),
    payoutWatch: createPayoutWatchRepository(store.db),
    capHolds: createCapHoldRepository(store.db, store.dialect),
    statements: createStatementRepository(store.db),
    feeds: createFeedRepository(store.db),
    sampleStatements: createSampleStatementRepository(store.db),
    usualAmounts: createUsualAmountRepository(store.db),
    ledger: createLedgerRepository(store.db),
    bankChecks: createBankCheckRepository(store.db),
    commissions: createCommissionRepository(store.db),
    movementTransactions: createMovementTransactionRepository(store.db),
    ledgerOverview: createLedgerOverviewRepository(store.db),
    summaryFigures: createSummaryFigureRepository(store.db, store.dialect),
  };
}
