/**
 * What operators can do, with no HTTP in it, put together for the admin API and the console:
 * management (management/), decisions (decisions/), transactions (transactions/), callbacks
 * (callbacks/outbox-service.ts), the dashboard (dashboard/), payouts (payouts/), the ledger's balances
 * (ledger/) and the audit log. Inputs arrive
 * already shaped by the HTTP schemas; the outcomes that are expected (unknown id, URL not allowed)
 * come back as values.
 */
import { createOutboxService } from "../callbacks/outbox-service.js";
import { dashboard } from "../dashboard/summary.js";
import { createDecisionService } from "../decisions/service.js";
import type { ReceiverReport } from "../domain/receiver-report.js";
import type { Outcome } from "../domain/refusal.js";
import { createMerchantBalances } from "../ledger/merchant-balance.js";
import { createLedgerOverview } from "../ledger/overview.js";
import { createLedgerService } from "../ledger/service.js";
import { createManagement, type ManagementDeps } from "../management/service.js";
import type { ReleaseView } from "../payouts/channel-release.js";
import { createPayoutService } from "../payouts/service.js";
import type { AuditFilter } from "../store/audited.js";
import { createTransactionService } from "../transactions/service.js";

export type { Outcome, Refusal } from "../domain/refusal.js";
// The ledger's views as the console's Bakiyeler reads them (its compile follows a changed view).
export type { AccountCheckView } from "../ledger/accounts.js";
export type { DayPosting, DayTotals } from "../ledger/day-report.js";
export type {
  BalancesView,
  BankAccountLine,
  BankAccountState,
  FirmBalanceLine,
  FirmDaysView,
} from "../ledger/overview.js";
export type { FirmDayView } from "../ledger/service.js";

export interface BackofficeDeps extends ManagementDeps {
  /** Called after a decision queued its callback, so it goes out at once. */
  callbackQueued(): void;
  /** Called after a decision, so the consoles' queues drop it at once. */
  decided(): void;
  /** Receivers this instance's callback worker sends to, with their speed (callbacks/worker.ts). */
  callbackReceivers(): ReceiverReport[];
  /** Releases a batch through its paying account's payout channel (payouts/channel-release.ts). */
  releasePayouts(batchId: number, actor: string): Promise<Outcome<ReleaseView>>;
}

export function createBackoffice(deps: BackofficeDeps) {
  const { repos } = deps;
  const management = createManagement(deps);
  const ledger = createLedgerService({ repos, now: deps.now });

  return {
    ...management,
    ...createOutboxService(deps),
    ...createDecisionService(deps),
    ...createTransactionService(deps),

    /** Withdrawals paid in batches (payouts/): the Ödemeler screen and `payintake payout`. */
    payouts: {
      ...createPayoutService({ repos, now: deps.now, changed: deps.decided }),
      release: deps.releasePayouts,
    },

    /** What the service owes each firm (ledger/): `payintake ledger balance`. */
    ledger,
    /**
     * The same figures as a firm's merchant asks for its own (the merchant API's balance routes,
     * intake/http/balance.ts), shaped for it: nothing of other firms, no posting or account keys.
     */
    merchantBalances: createMerchantBalances({ ledger, repos, now: deps.now }),
    /** Every firm's balance and every bank account's check at once, and a firm's days: the console's Bakiyeler. */
    ledgerOverview: createLedgerOverview({ repos, ledger, now: deps.now }),

    /** The service's clock: a search's default dates count from it (transactions/search-window.ts). */
    now: () => deps.now(),

    dashboard: () => dashboard(deps),

    async audit(filter: AuditFilter) {
      return (await repos.audited.list(filter)).map((a) => ({
        id: a.id,
        actor: a.actor,
        action: a.action,
        entity_type: a.entity_type,
        entity_id: a.entity_id,
        before: a.before_json === null ? null : JSON.parse(a.before_json),
        after: a.after_json === null ? null : JSON.parse(a.after_json),
        at: new Date(a.at).toISOString(),
      }));
    },
  };
}

export type Backoffice = ReturnType<typeof createBackoffice>;
/** An audit entry as the audit log answers it (`audit`). */
export type AuditEntryView = Awaited<ReturnType<Backoffice["audit"]>>[number];
