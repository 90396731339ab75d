/**
 * Deciding pending transactions (approve, reject) and marking a payout as being paid: the
 * refusals operators are given, and the consoles told at once. The rule is plan.ts's; the decision,
 * its audit entry and its callback are written in one database transaction by the store.
 */
import { callbackDraft } from "../callbacks/message.js";
import { formatMinor } from "../domain/money.js";
import { firmPaysInBatches } from "../domain/payout-settings.js";
import { notFound, type Outcome, type Refusal, refusal } from "../domain/refusal.js";
import { approvalPosting } from "../ledger/approval-posting.js";
import type { Repositories } from "../store/index.js";
import type { RoomOf } from "../store/payouts/payout-guard.js";
import { operatorTransactionView } from "../transactions/views.js";
import { type Decision, decidedAlready, planDecision, planRefusal } from "./plan.js";

export interface DecisionDeps {
  repos: Repositories;
  now(): number;
  /** Called after a decision queued its callback, so it goes out at once. */
  callbackQueued(): void;
  /** Called after a decision, so the consoles' queues drop it at once. */
  decided(): void;
}

/** A payout someone else is paying out: who, and since when (the consoles name them). */
export interface PayingElsewhere extends Refusal {
  paying_by: string;
  paying_since: string;
}

function claimedBy(operator: string, claimedAt: number): PayingElsewhere {
  const since = new Date(claimedAt).toISOString();
  return {
    ok: false as const,
    code: "paid_out_elsewhere" as const,
    // Nobody in particular: taken and let go of twice while this claim was being made.
    message: operator
      ? `being paid out by ${operator} since ${since}`
      : "being marked by another operator; try again",
    paying_by: operator,
    paying_since: since,
  };
}

const inPayoutBatch = refusal(
  "payout_in_batch",
  "the withdrawal is in a payout batch: the bank's statement decides it (cancel the batch first if it was never sent)",
);

const paidByStatement = refusal(
  "payout_paid_by_statement",
  "this firm's withdrawals are approved when the bank's statement shows them paid; approving one by hand needs an admin",
);

/**
 * A firm paid in batches has its withdrawals approved by the bank's debit; an admin (console or
 * admin API) may still approve one by hand, as the record of a payout made outside the batches.
 */
function mayApproveWithoutBank(decision: Decision): boolean {
  if (decision.kind !== "approve") return true;
  const by = decision.by ?? { kind: "operator", role: "operator" };
  return by.kind !== "operator" || by.role === "admin";
}

/**
 * The ledger's guard on a payout paid by hand (docs/payouts.md, "The ledger's guard"): an
 * operator's approval of a withdrawal its firm's balance (less its unsent batches, plus its
 * overdraft) does not cover is refused; an admin's is the record of money that left anyway, and
 * stands, as the bank's statement's and a channel's proof do.
 */
function overBalance(room: RoomOf, amount: number): Refusal {
  const available = room.balance - room.held;
  return refusal(
    "payout_over_balance",
    `the firm's balance does not cover this withdrawal: ${formatMinor(amount)} asked, ${formatMinor(available)} available (balance ${formatMinor(room.balance)}, ${formatMinor(room.held)} held in batches not yet sent), overdraft ${formatMinor(room.overdraft)}; an admin may approve it, or give the firm an overdraft`,
  );
}

const LIVE_STAGES: readonly string[] = ["second_approval", "batched", "sent"];

async function inLiveBatch(repos: Repositories, id: number): Promise<boolean> {
  const attempts = await repos.payoutBatches.attemptsOfTransactions([id]);
  return attempts.some((a) => LIVE_STAGES.includes(a.stage));
}

const testFirmsOwn = refusal(
  "test_firm_decides_itself",
  "a test firm's transactions are decided by the firm itself, with the sandbox helpers",
);

export function createDecisionService(deps: DecisionDeps) {
  const { repos } = deps;
  return {
    /** Decisions written elsewhere (a bank statement's lines): callbacks out now, queues told. */
    decisionsMade(): void {
      deps.callbackQueued();
      deps.decided();
    },

    decide: (id: number, decision: Decision, actor: string, by: "operator" | "sandbox" = "operator") =>
      decide(deps, id, decision, actor, by),

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
  };
}

export type DecisionService = ReturnType<typeof createDecisionService>;

/**
 * Marks a pending withdrawal as being paid out by `operator` (store/decisions/payout-claims.ts), or lets go
 * of the mark (`paying` false) if `holder` holds it (any holder when undefined). The consoles'
 * queues show it at once.
 */
export async function payingOut(
  deps: DecisionDeps,
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
    return refusal("not_pending_withdrawal", "only a pending withdrawal can be marked as being paid");
  if (outcome.reason === "in_payout_batch") return inPayoutBatch;
  return claimedBy(outcome.operator, outcome.claimedAt);
}

/**
 * Approves or rejects a pending transaction; the decision and its callback are written together.
 * A test firm's transactions are decided by that firm with its sandbox helpers (`by: "sandbox"`),
 * never by an operator: a test withdrawal approved by mistake could be paid out for real.
 */
export async function decide(
  deps: DecisionDeps,
  id: number,
  decision: Decision,
  actor: string,
  by: "operator" | "sandbox" = "operator",
) {
  const { repos } = deps;
  const tx = await repos.transactions.get(id);
  if (!tx) return notFound("transaction");
  const planned = planDecision(tx, decision);
  if (!planned.ok) return planRefusal(planned.refusal, tx.status);
  const firm = await repos.firms.get(tx.firm_id);
  if (!firm) return notFound("firm");
  if (firm.sandbox === 1 && by === "operator") return testFirmsOwn;
  if (
    tx.type === "withdrawal" &&
    planned.plan.status === "approved" &&
    !mayApproveWithoutBank(decision) &&
    firmPaysInBatches(await repos.payoutSettings.all(), firm.id)
  )
    // In a live batch, nobody decides it (the trigger's word): that is the answer to give first.
    return (await inLiveBatch(repos, id)) ? inPayoutBatch : paidByStatement;
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
    posting: approvalPosting,
    guardBalance: tx.type === "withdrawal" && !mayApproveWithoutBank(decision),
  });
  if (!result.ok) {
    if (result.reason === "not_found") return notFound("transaction");
    if (result.reason === "in_payout_batch") return inPayoutBatch;
    if (result.reason === "over_balance") return overBalance(result.room, plan.amount);
    const now = await repos.transactions.get(id);
    return now ? decidedAlready(now.status) : notFound("transaction");
  }
  deps.callbackQueued();
  // A test firm's transactions are in no operator's queue.
  if (firm.sandbox !== 1) deps.decided();
  return {
    ok: true as const,
    value: { transaction: operatorTransactionView(result.tx), callback_id: result.callbackId },
  };
}
