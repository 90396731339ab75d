/**
 * A firm's own ledger figures as the merchant API answers them (GET /paymentapi/v1/balance and
 * /balance/days/{date}): the operators' figures (service.ts, `firmBalance` and `firmDay`), never
 * other ones, with the day's postings shaped as a merchant reads a balance's movements (Stripe's
 * balance transactions: gross, fee, net, and the transaction each belongs to). What stays inside:
 * the firm's id, posting keys, account keys (a bank account's IBAN), memos and entry kinds.
 */
import type { PostingKind } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import type { Outcome } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import type { MovementTransactions } from "../store/ledger/movement-transactions.js";
import type { DayPosting, DayTotals } from "./day-report.js";
import type { LedgerService } from "./service.js";

export const CURRENCY = "TRY";

export interface MerchantBalanceView {
  /** What the service owes the firm (deposits less commissions, less withdrawals paid or on their way). */
  balance: string;
  /** Withdrawals that left the balance and are not yet seen leaving the bank. */
  in_transit: string;
  /** The balance less what payouts in live batches, not yet sent, hold back. */
  available: string;
  currency: typeof CURRENCY;
  /** The moment the figures are of: the one asked for, or now. */
  as_of: string;
}

/** What a movement was, in the merchant's words: one per posting kind, so a new kind must be named. */
export const MOVEMENT_TYPES = {
  deposit_approved: "deposit",
  withdrawal_sent: "withdrawal_sent",
  withdrawal_paid: "withdrawal_paid",
  withdrawal_returned: "withdrawal_returned",
  settlement: "settlement",
  adjustment: "adjustment",
  opening_balance: "opening_balance",
  correction: "correction",
  // Postings of the company's own accounts: none reaches a firm's balance.
  line_held: "other",
  refund_due: "other",
  refund_paid: "other",
  bank_fee: "other",
} as const satisfies { [k in PostingKind]: string };

export type MovementType = (typeof MOVEMENT_TYPES)[PostingKind];

/** One movement of the firm's balance: one posting, as it moved that balance. */
export interface MerchantMovement {
  /** The movement's own id: stable, unique, in the order movements happened. */
  id: number;
  type: MovementType;
  /** The firm's transaction it belongs to; null for one of no transaction (a settlement, an adjustment). */
  transaction_id: number | null;
  /** That transaction's reference, the merchant's own; null with `transaction_id`. */
  reference: string | null;
  /** Gross: what moved the balance before the commission (a withdrawal negative). */
  amount: string;
  /** The commission taken (negative when one is given back); `net` is `amount − fee`. */
  fee: string;
  net: string;
  at: string;
}

export type MerchantDayView = DayTotals & {
  currency: typeof CURRENCY;
  in_transit: { opening: string; closing: string };
  movements: MerchantMovement[];
  /** Where the next page of movements starts (`after`); null on the day's last page. */
  next: string | null;
};

/** Where a posting's transaction is found, by the prefix of its idempotency key (ledger/postings.ts). */
const KEY_SOURCES: Record<string, keyof MovementTransactions> = {
  "deposit-approved": "byTransaction",
  "withdrawal-paid": "byTransaction",
  "payout-sent": "byAttempt",
  "payout-paid": "byAttempt",
  "payout-returned": "byAttempt",
};

function sourceOf(key: string): { via: keyof MovementTransactions; id: number } | undefined {
  const m = /^([a-z-]+):([1-9][0-9]{0,14})$/.exec(key);
  const via = m ? KEY_SOURCES[m[1] as string] : undefined;
  return via && m ? { via, id: Number(m[2]) } : undefined;
}

/** "−12.50" as kuruş, read digit by digit (the day report's parts are the contract's money form). */
function minorOf(text: string | undefined): number {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(text ?? "0.00");
  if (!m) throw new RangeError(`not an amount in the contract's form: ${text}`);
  const minor = Number(m[2]) * 100 + Number(m[3]);
  return m[1] === "-" ? -minor : minor;
}

/** A posting of the firm's day as its merchant sees it, with the transaction found for it (if any). */
export function merchantMovement(posting: DayPosting, found: MovementTransactions): MerchantMovement {
  const net = minorOf(posting.amount);
  // The firm's commission moved its balance down: as a fee it is the charge, positive.
  const fee = -minorOf(posting.parts.commission);
  const source = sourceOf(posting.key);
  const tx = source ? found[source.via].get(source.id) : undefined;
  return {
    id: posting.id,
    type: MOVEMENT_TYPES[posting.kind as PostingKind] ?? "other",
    transaction_id: tx?.transactionId ?? null,
    reference: tx?.reference ?? null,
    amount: formatMinor(net + fee),
    fee: formatMinor(fee),
    net: formatMinor(net),
    at: posting.at,
  };
}

export function createMerchantBalances(deps: {
  ledger: Pick<LedgerService, "firmBalance" | "firmDay">;
  repos: Pick<Repositories, "movementTransactions">;
  now(): number;
}) {
  return {
    /** The firm's balance now, or as of `at` (epoch ms): the operators' figures. */
    async balance(firmId: number, at: number | undefined): Promise<Outcome<MerchantBalanceView>> {
      // Read once: `as_of` names the moment the figures were read for.
      const asOf = at ?? deps.now();
      const read = await deps.ledger.firmBalance(firmId, at);
      if (!read.ok) return read;
      const { balance, in_transit, available } = read.value;
      return {
        ok: true,
        value: { balance, in_transit, available, currency: CURRENCY, as_of: new Date(asOf).toISOString() },
      };
    },

    /**
     * The firm's Türkiye day: its totals, whole on every page, and a page of at most `limit` of its
     * movements, each with its transaction.
     */
    async day(
      firmId: number,
      date: string,
      page: { after?: string; limit: number },
    ): Promise<Outcome<MerchantDayView>> {
      const read = await deps.ledger.firmDay(firmId, date, page);
      if (!read.ok) return read;
      const { firm: _firm, postings, next, in_transit, ...totals } = read.value;
      const sources = { transactions: [] as number[], attempts: [] as number[] };
      for (const p of postings) {
        const source = sourceOf(p.key);
        if (source) (source.via === "byAttempt" ? sources.attempts : sources.transactions).push(source.id);
      }
      const found = await deps.repos.movementTransactions.of(firmId, sources);
      return {
        ok: true,
        value: {
          ...totals,
          currency: CURRENCY,
          in_transit,
          movements: postings.map((p) => merchantMovement(p, found)),
          next,
        },
      };
    },
  };
}

export type MerchantBalances = ReturnType<typeof createMerchantBalances>;
