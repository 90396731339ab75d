/**
 * Creating deposits and withdrawals: the business rules in the order decisions.md fixes, then the
 * insert. The database has the last word on the two money invariants (one transaction per
 * reference, one pending per user and type): a conflicting insert comes back as a value and is
 * reported exactly like the pre-check would have.
 */
import type { Firm } from "../domain/firm.js";
import { isValidTurkishIban } from "../domain/iban.js";
import { maskNationalId } from "../domain/masking.js";
import { payerNameKey } from "../domain/name-search.js";
import type { BusinessFacts, InsertResult, NewTransaction, WriteFailure } from "../domain/transaction.js";
import type { AccountCandidate } from "../routing/account-order.js";
import type { DepositRoute, RouteInput } from "../routing/deposit-routing.js";
import type { BusinessRejection } from "./rejections.js";
import type { DepositRequest, WithdrawalRequest } from "./requests.js";

export interface IntakePorts {
  businessFacts(
    firmId: number,
    reference: string,
    userId: string,
    type: "deposit" | "withdrawal",
  ): Promise<BusinessFacts>;
  /**
   * Routes the deposit to an account whose channel accepts it (routing/router.ts): the account and
   * the routing log, or why none took it.
   */
  route(input: RouteInput): Promise<DepositRoute>;
  /** Writes the row: its id, the invariant that refused it, or how the write failed. */
  insert(tx: NewTransaction): Promise<InsertResult | WriteFailure>;
  /** The transaction that holds a reference: its account (deposits) and amount. */
  holderOf(
    firmId: number,
    reference: string,
  ): Promise<{ accountId: number | null; amountMinor: number } | undefined>;
  /** Sealed for the transaction it goes in: its firm and reference, fixed before its id is known. */
  sealNationalId(value: string, firmId: number, reference: string): string;
  /**
   * A deposit was refused because its firm is at a bound of pending deposits: operators are told
   * (at most once in a while, not once per deposit). Not awaited.
   */
  pendingBoundReached?(firmId: number): void;
  /** A live firm's transaction now waits for an operator (the consoles' queues show it at once). */
  queued?(type: "deposit" | "withdrawal"): void;
  now(): number;
}

export type DepositOutcome =
  | { ok: true; id: number; account: AccountCandidate }
  | { ok: false; rejection: BusinessRejection };

export type WithdrawalOutcome = { ok: true; id: number } | { ok: false; rejection: BusinessRejection };

function conflictRejection(conflict: InsertConflict): BusinessRejection {
  if (conflict === "pending_bound") return "pending_bound";
  return conflict === "reference" ? "duplicate_reference" : "pending_exists";
}

type InsertConflict = Extract<InsertResult, { ok: false }>["conflict"];

/**
 * Whether one more deposit of this amount takes the firm past a bound of its pending deposits, as
 * the facts read with the request have them. A pre-check: deposits in flight are not in them, and
 * the insert's trigger has the last word (store/migrations/20261129T1000_firm_pending_bounds.ts).
 */
export function pastPendingBound(firm: Firm, pending: BusinessFacts["firmPending"], amountMinor: number) {
  return (
    (firm.maxPendingCount !== null && pending.count + 1 > firm.maxPendingCount) ||
    (firm.maxPendingAmount !== null && pending.amountMinor + amountMinor > firm.maxPendingAmount)
  );
}

/** The columns that differ between a deposit and a withdrawal. */
type KindColumns = Pick<
  NewTransaction,
  | "type"
  | "amount"
  | "method"
  | "iban"
  | "iban_valid"
  | "account_id"
  | "assigned_bank_name"
  | "assigned_holder_name"
  | "assigned_iban"
  | "routing_log"
>;

/**
 * The whole row in one object literal. Not `{ ...common, ...kind }`: on Node 20's V8, adding
 * properties after a spread is slow enough to show per deposit (docs/BENCHMARKS.md, "What holds
 * deposits back", keeps the figures), and this runs on every request.
 */
function newRecord(
  ports: IntakePorts,
  firm: Firm,
  req: DepositRequest | WithdrawalRequest,
  callbackUrl: string,
  kind: KindColumns,
): NewTransaction {
  const now = ports.now();
  return {
    firm_id: firm.id,
    reference: req.reference,
    type: kind.type,
    status: "pending",
    amount: kind.amount,
    method: kind.method,
    first_name: req.firstName,
    last_name: req.lastName,
    middle_name: req.middleName,
    username: req.username,
    user_id: req.userId,
    national_id_masked: req.nationalId === null ? null : maskNationalId(req.nationalId),
    national_id_sealed:
      req.nationalId === null ? null : ports.sealNationalId(req.nationalId, firm.id, req.reference),
    bank_code: req.bankCode,
    iban: kind.iban,
    iban_valid: kind.iban_valid,
    account_id: kind.account_id,
    assigned_bank_name: kind.assigned_bank_name,
    assigned_holder_name: kind.assigned_holder_name,
    assigned_iban: kind.assigned_iban,
    callback_url: callbackUrl,
    routing_log: kind.routing_log,
    payer_name_key: payerNameKey(req.firstName, req.middleName, req.lastName),
    // A hosted request sealed by an instance without the field has none (undefined).
    ignored_fields: req.ignoredFields ? JSON.stringify(req.ignoredFields) : null,
    created_at: now,
    updated_at: now,
  };
}

/** The business facts, when the caller read them already (with the nonce, in one round trip). */
export type KnownFacts = Awaited<ReturnType<IntakePorts["businessFacts"]>> | null;

export async function createDeposit(
  ports: IntakePorts,
  firm: Firm,
  req: DepositRequest & { amountMinor: number },
  callbackUrl: string,
  known: KnownFacts = null,
): Promise<DepositOutcome> {
  const facts = known ?? (await ports.businessFacts(firm.id, req.reference, req.userId, "deposit"));
  if (facts.referenceUsed) return { ok: false, rejection: "duplicate_reference" };
  if (!firm.depositsOpen) return { ok: false, rejection: "deposits_closed" };
  if (facts.userBanned) return { ok: false, rejection: "user_banned" };
  if (
    (firm.depositMin !== null && req.amountMinor < firm.depositMin) ||
    (firm.depositMax !== null && req.amountMinor > firm.depositMax)
  ) {
    return { ok: false, rejection: "amount_out_of_limits" };
  }
  if (facts.pendingExists) return { ok: false, rejection: "pending_exists" };
  // Where routing runs, after every other check: to the merchant, a firm at its bound looks like
  // a pool with no account for the amount, which is what it would meet once it filled the caps.
  if (pastPendingBound(firm, facts.firmPending, req.amountMinor)) {
    ports.pendingBoundReached?.(firm.id);
    return { ok: false, rejection: "pending_bound" };
  }

  const routed = await ports.route({
    firmId: firm.id,
    sandbox: firm.sandbox,
    reference: req.reference,
    amountMinor: req.amountMinor,
    bankCode: req.bankCode,
    method: req.method,
    userId: req.userId,
    capShare: firm.maxCapShare,
    // The payment side's name is first + middle + last when a valid middle name came (the contract's
    // middle_name rule); callbacks keep first + last.
    fullName:
      req.middleName === null
        ? `${req.firstName} ${req.lastName}`
        : `${req.firstName} ${req.middleName} ${req.lastName}`,
  });
  if (!routed.ok) return { ok: false, rejection: routed.rejection };
  const { account } = routed;

  const record = newRecord(ports, firm, req, callbackUrl, {
    type: "deposit",
    amount: req.amountMinor,
    method: req.method,
    iban: null,
    iban_valid: null,
    account_id: account.id,
    assigned_bank_name: account.bankName,
    assigned_holder_name: account.holderName,
    assigned_iban: account.iban,
    routing_log: JSON.stringify(routed.log),
  });
  // An accepted ask whose deposit the store refused is released: the channel holds nothing for a
  // deposit that does not exist. Except when the deposit that holds the reference asked the same
  // account for the same amount: that is the same ask (the same ask_id), and its reservation is the
  // winner's. A failed insert is released the same way when it certainly wrote nothing; when its
  // outcome is unknown (the merchant, told to look the reference up, then shows the payer this
  // account), the ask and the daily cap's hold are kept, to lapse, rather than freed under a
  // deposit that exists. Either way the failure is the request's: its cause is thrown on.
  const inserted = await ports.insert(record);
  if (!inserted.ok && "failed" in inserted) {
    if (inserted.failed === "nothing_written") {
      routed.written?.();
      await routed.release();
    } else if (!firm.sandbox) ports.queued?.("deposit");
    throw inserted.cause;
  }
  routed.written?.();
  if (!inserted.ok && inserted.conflict === "pending_bound") {
    // Deposits of the firm in flight together took its last places first (the trigger's refusal).
    await routed.release();
    ports.pendingBoundReached?.(firm.id);
    return { ok: false, rejection: "pending_bound" };
  }
  if (!inserted.ok) {
    // Both indexes may have refused the row (same reference, same user) and the store names one.
    // If the reference is taken, that is the answer the order of checks gives, and the ask belongs
    // to the deposit that holds it.
    const holder = await ports.holderOf(firm.id, req.reference);
    const referenceTaken = inserted.conflict === "reference" || holder !== undefined;
    const sameAsk = holder?.accountId === account.id && holder.amountMinor === req.amountMinor;
    if (!sameAsk) await routed.release();
    return { ok: false, rejection: referenceTaken ? "duplicate_reference" : "pending_exists" };
  }
  if (!firm.sandbox) ports.queued?.("deposit");
  return { ok: true, id: inserted.id, account };
}

export async function createWithdrawal(
  ports: IntakePorts,
  firm: Firm,
  req: WithdrawalRequest,
  callbackUrl: string,
  known: KnownFacts = null,
): Promise<WithdrawalOutcome> {
  const facts = known ?? (await ports.businessFacts(firm.id, req.reference, req.userId, "withdrawal"));
  if (facts.referenceUsed) return { ok: false, rejection: "duplicate_reference" };
  if (!firm.withdrawalsOpen) return { ok: false, rejection: "withdrawals_closed" };
  if (facts.userBanned) return { ok: false, rejection: "user_banned" };
  if (facts.pendingExists) return { ok: false, rejection: "pending_exists" };

  const record = newRecord(ports, firm, req, callbackUrl, {
    type: "withdrawal",
    amount: req.amountMinor,
    method: req.method,
    iban: req.iban,
    iban_valid: req.iban === null ? 0 : isValidTurkishIban(req.iban) ? 1 : 0,
    account_id: null,
    assigned_bank_name: null,
    assigned_holder_name: null,
    assigned_iban: null,
    routing_log: null,
  });
  const inserted = await ports.insert(record);
  if (!inserted.ok && "failed" in inserted) {
    // The row may yet be written: the consoles look once more (a look costs them little).
    if (inserted.failed === "outcome_unknown" && !firm.sandbox) ports.queued?.("withdrawal");
    throw inserted.cause;
  }
  if (!inserted.ok) return { ok: false, rejection: conflictRejection(inserted.conflict) };
  if (!firm.sandbox) ports.queued?.("withdrawal");
  return { ok: true, id: inserted.id };
}
