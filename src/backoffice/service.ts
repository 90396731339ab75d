import { sealContext } from "../crypto/seal-context.js";
import { openOrUndefined, type SecretBox } from "../crypto/secret-box.js";
import { callbackDraft, type Decision, planDecision } from "../domain/decisions.js";
import { formatMinor } from "../domain/money.js";
import { startOfIstanbulDay } from "../domain/routing.js";
import type { AuditFilter } from "../store/audited.js";
import type { TransactionFilter } from "../store/transactions.js";
import {
  ADMIN_API,
  bad,
  createManagement,
  type ManagementDeps,
  notFound,
  type Refusal,
} from "./management.js";
import { callbackAttemptView, callbackView, operatorTransactionView } from "./views.js";

export type { Outcome, Refusal } from "./management.js";

/**
 * What operators can do, with no HTTP in it: management (management.ts), decisions, transaction
 * and callback views, the dashboard and the audit log. Inputs arrive already shaped by the HTTP
 * schemas; the outcomes that are expected (unknown id, URL not allowed) come back as values.
 */
const aboveAsked: Refusal = {
  ok: false,
  status: 403,
  message: "approving more than the amount asked for needs an admin",
};
const notPending = (status: string): Refusal => ({
  ok: false,
  status: 409,
  message: `transaction is not pending (status: ${status}); it was decided already`,
});

/** A payout someone else is paying out: who, and since when (the consoles name them). */
function claimedBy(operator: string, claimedAt: number) {
  const since = new Date(claimedAt).toISOString();
  return {
    ok: false as const,
    status: 409,
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
  status: 409,
  message: "a test firm's transactions are decided by the firm itself, with the sandbox helpers",
};

export interface BackofficeDeps extends ManagementDeps {
  box: SecretBox;
  /** Called after a decision queued its callback, so it goes out at once. */
  callbackQueued(): void;
  /** Called after a decision, so the consoles' queues drop it at once. */
  decided(): void;
}

export function createBackoffice(deps: BackofficeDeps) {
  const { repos, box } = deps;
  const management = createManagement(deps);

  return {
    ...management,

    async listTransactions(filter: TransactionFilter) {
      return (await repos.transactions.list(filter)).map(operatorTransactionView);
    },

    /**
     * A page of the filter's transactions and how many it selects in all: counted only when the
     * page is full (a shorter page is all of them).
     */
    async pageOfTransactions(filter: TransactionFilter & { limit: number }) {
      const rows = await repos.transactions.list(filter);
      // Counted after the page: rows decided in between may make it smaller than the page.
      const total =
        rows.length < filter.limit
          ? rows.length
          : Math.max(rows.length, await repos.transactions.count(filter));
      return { rows: rows.map(operatorTransactionView), total };
    },

    /**
     * Marks a pending withdrawal as being paid out by `operator` (store/payout-claims.ts), or lets go
     * of the mark (`paying` false) if `holder` holds it (any holder when undefined). The consoles'
     * queues show it at once.
     */
    async payingOut(
      id: number,
      operator: string,
      change: { paying: boolean; holder?: string | undefined },
      actor: string,
    ) {
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
          status: 409,
          message: "only a pending withdrawal can be marked as being paid",
        };
      return claimedBy(outcome.operator, outcome.claimedAt);
    },

    /** Who is paying out each of these transactions now, for the withdrawal queue. */
    async payingOf(ids: number[]) {
      return repos.payoutClaims.of(ids);
    },

    async showTransaction(id: number) {
      const row = await repos.transactions.get(id);
      return row ? { ok: true as const, value: operatorTransactionView(row) } : notFound("transaction");
    },

    /**
     * Approves or rejects a pending transaction; the decision and its callback are written together.
     * A test firm's transactions are decided by that firm with its sandbox helpers (`by: "sandbox"`),
     * never by an operator: a test withdrawal approved by mistake could be paid out for real.
     */
    async decide(id: number, decision: Decision, actor: string, by: "operator" | "sandbox" = "operator") {
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
        callback: (decided) =>
          callbackDraft(decided, { callbackMiddleName: firm.callback_middle_name === 1 }),
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
    },

    /**
     * Everything operators may see about one transaction: its fields and routing attempts, the
     * decision history, and the callback with every attempt. The national id masked: the full one
     * is `revealNationalId`'s, an admin's, asked for and logged each time.
     */
    async transactionDetail(id: number) {
      const row = await repos.transactions.get(id);
      if (!row) return notFound("transaction");
      const [history, callbacks, paying] = await Promise.all([
        repos.audited.list({ entityType: "transaction", entityId: String(id) }),
        repos.callbacks.list({ transactionId: id }),
        // A pending payout's mark, so that deciding it from the detail names who is paying it.
        row.type === "withdrawal" && row.status === "pending"
          ? repos.payoutClaims.of([id]).then((claims) => claims.get(id))
          : undefined,
      ]);
      const deliveries = await Promise.all(
        callbacks.map(async (c) => ({
          ...callbackView(c),
          attempts: (await repos.callbacks.attempts(c.id)).map(callbackAttemptView),
        })),
      );
      return {
        ok: true as const,
        value: {
          ...operatorTransactionView(row),
          ...(row.type === "withdrawal" && {
            paying_by: paying?.operator ?? null,
            paying_since: paying ? new Date(paying.claimedAt).toISOString() : null,
          }),
          history: history.map((a) => ({
            actor: a.actor,
            action: a.action,
            before: a.before_json === null ? null : JSON.parse(a.before_json),
            after: a.after_json === null ? null : JSON.parse(a.after_json),
            at: new Date(a.at).toISOString(),
          })),
          callbacks: deliveries,
        },
      };
    },

    /**
     * A transaction's full national id, for an admin who asked for it: logged first
     * (`transaction.national_id_viewed`, in its history), so no one sees one unrecorded. Null when
     * it has none, or when its sealed value does not open for this transaction (moved from another
     * row or altered in the database): never another's, nor a 500.
     */
    async revealNationalId(id: number, actor: string) {
      const row = await repos.transactions.get(id);
      if (!row) return notFound("transaction");
      await repos.audited.event(
        { actor, action: "transaction.national_id_viewed", at: deps.now() },
        "transaction",
        String(id),
        null,
        null,
      );
      const full =
        row.national_id_sealed === null
          ? undefined
          : openOrUndefined(box, row.national_id_sealed, sealContext.nationalId(row.firm_id, row.reference));
      return { ok: true as const, value: { national_id_full: full ?? null } };
    },

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

    /** Today's figures (day in Türkiye) for the console's dashboard. */
    async dashboard() {
      const since = startOfIstanbulDay(deps.now());
      const [totals, queues, times, callbacks, retrying, channels] = await Promise.all([
        repos.transactions.totalsSince(since),
        repos.transactions.pendingQueues(),
        repos.transactions.decisionTimesSince(since),
        repos.callbacks.countByStatus(),
        repos.callbacks.countRetrying(),
        repos.channels.list(),
      ]);
      const of = (type: string) => {
        const rows = totals.filter((t) => t.type === type);
        const sum = (status?: string) =>
          rows.filter((r) => status === undefined || r.status === status).reduce((a, r) => a + r.count, 0);
        const volume = (status?: string) =>
          rows.filter((r) => status === undefined || r.status === status).reduce((a, r) => a + r.volume, 0);
        const decided = sum("approved") + sum("rejected");
        const hourly = Array.from({ length: 24 }, () => 0);
        for (const r of rows) {
          const h = Math.floor(r.hour);
          if (h >= 0 && h < 24) hourly[h] = (hourly[h] ?? 0) + r.count;
        }
        const queue = queues.find((q) => q.type === type);
        return {
          count: sum(),
          volume: formatMinor(volume()),
          pending: sum("pending"),
          // Today's figures leave out what is still pending from earlier days; the queue does not.
          pending_all: queue?.count ?? 0,
          oldest_pending_at:
            queue === undefined || queue.oldestAt === null ? null : new Date(queue.oldestAt).toISOString(),
          approved: sum("approved"),
          rejected: sum("rejected"),
          approved_volume: formatMinor(volume("approved")),
          approval_rate: decided === 0 ? null : Math.round((sum("approved") / decided) * 1000) / 1000,
          /** How many were created in each hour of the day so far (Türkiye's hours, 00–23). */
          hourly,
        };
      };
      const sorted = [...times].sort((a, b) => a - b);
      const median = sorted.length === 0 ? null : (sorted[Math.floor((sorted.length - 1) / 2)] ?? null);
      const health = deps.channelHealth();
      return {
        since: new Date(since).toISOString(),
        deposits: of("deposit"),
        withdrawals: of("withdrawal"),
        median_seconds_to_decision: median === null ? null : Math.round(median / 1000),
        callbacks: {
          pending: callbacks.pending ?? 0,
          delivered: callbacks.delivered ?? 0,
          failed: callbacks.failed ?? 0,
          // Of the pending ones, those whose receiver failed them already: a merchant refusing
          // every callback shows here at once, not only when they fail for good 45 hours later.
          retrying,
        },
        channels: channels.map((c) => ({
          code: c.code,
          kind: c.kind,
          active: c.active === 1,
          breaker: health.get(c.id) ?? "closed",
        })),
      };
    },

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

    async listCallbacks(filter: {
      status?: "pending" | "delivered" | "failed";
      firmId?: number;
      limit?: number;
    }) {
      return (await repos.callbacks.list(filter)).map(callbackView);
    },

    async showCallback(id: number) {
      const row = await repos.callbacks.get(id);
      if (!row) return notFound("callback");
      // Attempts are read after the row; one recorded in between is left out, so the two agree.
      const attempts = (await repos.callbacks.attempts(id)).filter((a) => a.attempt <= row.attempts);
      return {
        ok: true as const,
        value: { ...callbackView(row), payload: row.payload, attempts: attempts.map(callbackAttemptView) },
      };
    },

    /** Sends a callback again with a fresh retry schedule (whatever its status). */
    async redeliver(id: number, actor = ADMIN_API) {
      const row = await repos.audited.redeliver(id, { actor, action: "callback.redeliver", at: deps.now() });
      if (!row) return notFound("callback");
      deps.callbackQueued();
      return { ok: true as const, value: callbackView(row) };
    },

    /** After a merchant outage: every callback that failed at or after `since` goes out again. */
    async redeliverFailedSince(since: number, actor = ADMIN_API) {
      const ids = await repos.audited.redeliverFailedSince(since, {
        actor,
        action: "callback.redeliver_failed",
        at: deps.now(),
      });
      if (ids.length > 0) deps.callbackQueued();
      return { ok: true as const, value: { redelivered: ids.length, callback_ids: ids } };
    },
  };
}

export type Backoffice = ReturnType<typeof createBackoffice>;
