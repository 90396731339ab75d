import { callbackDraft } from "../callbacks/message.js";
import { createOutboxService } from "../callbacks/outbox-service.js";
import type { SecretBox } from "../crypto/secret-box.js";
import type { ReceiverReport } from "../domain/receiver-report.js";
import { bad, notFound, type Outcome } from "../domain/refusal.js";
import type { AuditFilter } from "../store/audited.js";
import type { TransactionFilter } from "../store/transactions/transactions.js";
import { dashboard } from "./dashboard.js";
import { type Decision, planDecision } from "./decisions.js";
import { createManagement, type ManagementDeps, type Refusal } from "./management.js";
import { revealNationalId, transactionDetail } from "./transaction-detail.js";
import { exportOf } from "./transaction-export.js";
import { operatorTransactionView } from "./views.js";

export type { Outcome, Refusal } from "./management.js";

/**
 * What operators can do, with no HTTP in it: management (management.ts), decisions, transaction
 * (transaction-detail.ts) and callback views (callbacks/outbox-service.ts), the dashboard (dashboard.ts) and the audit log.
 * Inputs arrive already shaped by the HTTP
 * schemas; the outcomes that are expected (unknown id, URL not allowed) come back as values.
 */
const aboveAsked: Refusal = {
  ok: false,
  reason: "forbidden",
  message: "approving more than the amount asked for needs an admin",
};
const notPending = (status: string): Refusal => ({
  ok: false,
  reason: "conflict",
  message: `transaction is not pending (status: ${status}); it was decided already`,
});

/** A payout someone else is paying out: who, and since when (the consoles name them). */
export interface PayingElsewhere extends Refusal {
  paying_by: string;
  paying_since: string;
}

function claimedBy(operator: string, claimedAt: number): PayingElsewhere {
  const since = new Date(claimedAt).toISOString();
  return {
    ok: false as const,
    reason: "conflict" as const,
    // Nobody in particular: taken and let go of twice while this claim was being made.
    message: operator
      ? `being paid out by ${operator} since ${since}`
      : "being marked by another operator; try again",
    paying_by: operator,
    paying_since: since,
  };
}

const testFirmsOwn: Refusal = {
  ok: false,
  reason: "conflict",
  message: "a test firm's transactions are decided by the firm itself, with the sandbox helpers",
};

export interface BackofficeDeps extends ManagementDeps {
  box: SecretBox;
  /** Called after a decision queued its callback, so it goes out at once. */
  callbackQueued(): void;
  /** Called after a decision, so the consoles' queues drop it at once. */
  decided(): void;
  /** Receivers this instance's callback worker sends to, with their speed (callbacks/worker.ts). */
  callbackReceivers(): ReceiverReport[];
}

export function createBackoffice(deps: BackofficeDeps) {
  const { repos } = deps;
  const management = createManagement(deps);

  return {
    ...management,
    ...createOutboxService(deps),

    /** Decisions written elsewhere (a bank statement's lines): callbacks out now, queues told. */
    decisionsMade(): void {
      deps.callbackQueued();
      deps.decided();
    },

    /** The service's clock: a search's default dates count from it (search-window.ts). */
    now: () => deps.now(),

    async listTransactions(filter: TransactionFilter) {
      return (await repos.transactions.list(filter)).map(operatorTransactionView);
    },

    exportOf: (
      filter: TransactionFilter,
      limit: number,
      pageSize: number,
      firmName: (id: number) => string,
    ) => exportOf(repos, filter, limit, pageSize, firmName),

    /**
     * A page of the filter's transactions and how many it selects in all: counted only when the
     * page is full (a shorter page is all of them).
     */
    async pageOfTransactions(filter: TransactionFilter & { limit: number }) {
      const search = repos.transactions.search(filter);
      const rows = await search.list();
      // Counted after the page: rows decided in between may make it smaller than the page.
      const total = rows.length < filter.limit ? rows.length : Math.max(rows.length, await search.count());
      return { rows: rows.map(operatorTransactionView), total };
    },

    payingOut: (
      id: number,
      operator: string,
      change: { paying: boolean; holder?: string | undefined },
      actor: string,
    ) => payingOut(deps, id, operator, change, actor),

    /** Who is paying out each of these transactions now, for the withdrawal queue. */
    async payingOf(ids: number[]) {
      return repos.payoutClaims.of(ids);
    },

    async showTransaction(id: number) {
      const row = await repos.transactions.get(id);
      return row ? { ok: true as const, value: operatorTransactionView(row) } : notFound("transaction");
    },

    decide: (id: number, decision: Decision, actor: string, by: "operator" | "sandbox" = "operator") =>
      decide(deps, id, decision, actor, by),

    transactionDetail: (id: number) => transactionDetail(deps, id),
    revealNationalId: (id: number, actor: string) => revealNationalId(deps, id, actor),

    /**
     * An export of transactions (personal data: names, full IBANs) is logged with what it asked
     * for and how many rows it carried, before it is sent.
     */
    async recordExport(
      actor: string,
      details: { filter: Record<string, unknown>; rows: number; format: "csv" | "excel" },
    ) {
      await repos.audited.event(
        { actor, action: "transactions.exported", at: deps.now() },
        "export",
        "transactions",
        null,
        details,
      );
    },

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

/**
 * Marks a pending withdrawal as being paid out by `operator` (store/decisions/payout-claims.ts), or lets go
 * of the mark (`paying` false) if `holder` holds it (any holder when undefined). The consoles'
 * queues show it at once.
 */
export async function payingOut(
  deps: BackofficeDeps,
  id: number,
  operator: string,
  change: { paying: boolean; holder?: string | undefined },
  actor: string,
): Promise<Outcome<{ paying_by: string | null; paying_since: string | null }> | PayingElsewhere> {
  const { repos } = deps;
  const at = deps.now();
  if (!change.paying) {
    if (!(await repos.transactions.get(id))) return notFound("transaction");
    const outcome = await repos.payoutClaims.release(id, change.holder, at, actor);
    if (outcome.released) deps.decided();
    if ("heldBy" in outcome) return claimedBy(outcome.heldBy.operator, outcome.heldBy.claimedAt);
    return { ok: true as const, value: { paying_by: null, paying_since: null } };
  }
  const outcome = await repos.payoutClaims.claim(id, operator, at, actor);
  if (outcome.ok) {
    if (outcome.fresh) deps.decided();
    return {
      ok: true as const,
      value: { paying_by: operator, paying_since: new Date(outcome.claimedAt).toISOString() },
    };
  }
  if (outcome.reason === "not_found") return notFound("transaction");
  if (outcome.reason === "not_pending_withdrawal")
    return {
      ok: false as const,
      reason: "conflict" as const,
      message: "only a pending withdrawal can be marked as being paid",
    };
  return claimedBy(outcome.operator, outcome.claimedAt);
}

/**
 * Approves or rejects a pending transaction; the decision and its callback are written together.
 * A test firm's transactions are decided by that firm with its sandbox helpers (`by: "sandbox"`),
 * never by an operator: a test withdrawal approved by mistake could be paid out for real.
 */
export async function decide(
  deps: BackofficeDeps,
  id: number,
  decision: Decision,
  actor: string,
  by: "operator" | "sandbox" = "operator",
) {
  const { repos } = deps;
  const tx = await repos.transactions.get(id);
  if (!tx) return notFound("transaction");
  const planned = planDecision(tx, decision);
  if (!planned.ok) {
    if (planned.refusal === "not_pending") return notPending(tx.status);
    return planned.refusal === "above_asked"
      ? aboveAsked
      : bad("only a deposit can be approved with another amount");
  }
  const firm = await repos.firms.get(tx.firm_id);
  if (!firm) return notFound("firm");
  if (firm.sandbox === 1 && by === "operator") return testFirmsOwn;
  const { plan } = planned;
  const result = await repos.decisions.decide({
    transactionId: id,
    status: plan.status,
    amount: plan.amount,
    originalAmount: plan.originalAmount,
    decidedBy: actor,
    note: plan.note,
    now: deps.now(),
    callback: (decided) => callbackDraft(decided, { callbackMiddleName: firm.callback_middle_name === 1 }),
  });
  if (!result.ok) {
    if (result.reason === "not_found") return notFound("transaction");
    const now = await repos.transactions.get(id);
    return notPending(now?.status ?? "decided");
  }
  deps.callbackQueued();
  // A test firm's transactions are in no operator's queue.
  if (firm.sandbox !== 1) deps.decided();
  return {
    ok: true as const,
    value: { transaction: operatorTransactionView(result.tx), callback_id: result.callbackId },
  };
}
