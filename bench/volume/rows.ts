import type { Transaction } from "../../src/domain/transaction.js";
import { AUTO_CANCEL_ACTOR } from "../../src/jobs/auto-cancel.js";
import { createPeople, draws, mix, type Person, pick, USERS_PER_FIRM } from "./people.js";

/**
 * The volume benchmark's transactions, one per position `k` counted back from the newest (k = 0).
 * The store's history runs back from `end` at `perDay` a day, so a store of n rows holds the newest n
 * positions whatever the largest size of the run; growing it adds older rows. Ids follow time as
 * they do in production (id = ID_BASE + maxSize - 1 - k): older rows get lower ids, below every row
 * already there, so a search walking ids from the newest sees the store a real one would be.
 */
export interface FirmFixture {
  id: number;
  webhook: string;
  /** Its provider auto-cancels pending deposits after AUTO_CANCEL_MINUTES. */
  autoCancel: boolean;
  sandbox: boolean;
  /** Share of the traffic. */
  weight: number;
}

export interface AccountFixture {
  id: number;
  bank_name: string;
  holder_name: string;
  iban: string;
  daily_cap: number | null;
}

export interface Fixture {
  seed: number;
  /** The newest row's time (epoch ms). */
  end: number;
  gapMs: number;
  maxSize: number;
  /** The newest rows among which the pending ones are, and the share of them pending. */
  pendingWindow: number;
  pendingShare: number;
  firms: FirmFixture[];
  liveAccounts: AccountFixture[];
  sandboxAccount: AccountFixture;
}

/**
 * Ids start here: rows written through HTTP on the empty store take the ids below it (each step
 * writes about 2 × (warm-up + calls) of them).
 */
export const ID_BASE = 1_000_000;
/** Longer than a run takes: no seeded pending deposit falls due while it is measured. */
export const AUTO_CANCEL_MINUTES = 10_080;
/** Withdrawals left pending for days (someone has to look at them): one in this many rows of the last 30 days. */
const STUCK_EVERY = 2_000;
const DAY_MS = 86_400_000;

export const DECIDERS = [
  "operator:ayse.kaya@ops.example",
  "operator:mert.demir@ops.example",
  "operator:selin.aydin@ops.example",
  "operator:emre.sahin@ops.example",
  "operator:gizem.ozturk@ops.example",
  "admin-api:reconcile",
] as const;
const REJECT_NOTES = ["ödeme gelmedi", "isim eşleşmedi", "tutar eşleşmedi", "mükerrer talep", null, null];
const DEPOSIT_TL = [50, 100, 100, 150, 200, 250, 300, 500, 500, 500, 750, 1000, 1000, 1500, 2000, 2500, 5000];
const WITHDRAWAL_TL = [100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 20000, 50000];

/**
 * The history's shape: `perDay` rows a day back from `end`; the pending ones among the newest half
 * day's rows (so that none is older than auto-cancel's time while the run lasts).
 */
export function fixtureFor(
  cfg: { seed: number; perDay: number; pending: number; sizes: number[] },
  parts: Pick<Fixture, "firms" | "liveAccounts" | "sandboxAccount">,
  end: number,
): Fixture {
  const pendingWindow = Math.max(1, Math.round(cfg.perDay / 2));
  return {
    seed: cfg.seed,
    end,
    gapMs: DAY_MS / cfg.perDay,
    maxSize: Math.max(...cfg.sizes),
    pendingWindow,
    pendingShare: Math.min(1, cfg.pending / pendingWindow),
    firms: parts.firms,
    liveAccounts: parts.liveAccounts,
    sandboxAccount: parts.sandboxAccount,
  };
}

export type SeedTransaction = Transaction & { nationalId: string | null };

export const idOf = (fx: Fixture, k: number): number => ID_BASE + fx.maxSize - 1 - k;

/** The rows' generator for one fixture; the same k always gives the same row. */
export function createRows(fx: Fixture): (k: number) => SeedTransaction {
  const people = createPeople(fx.seed);
  const totalWeight = fx.firms.reduce((a, f) => a + f.weight, 0);
  const firmAt = (r: number) => {
    let left = r * totalWeight;
    for (const [index, firm] of fx.firms.entries()) {
      left -= firm.weight;
      if (left < 0) return { index, firm };
    }
    return { index: fx.firms.length - 1, firm: fx.firms[fx.firms.length - 1] as FirmFixture };
  };
  const stuckSpan = 30 * Math.round(DAY_MS / fx.gapMs);
  return (k) => {
    const r = draws(mix(k, fx.seed));
    const created = Math.round(fx.end - (k + 1) * fx.gapMs + r() * fx.gapMs);
    const { index, firm } = firmAt(r());
    const stuck = k >= fx.pendingWindow && k < stuckSpan && k % STUCK_EVERY === STUCK_EVERY - 1;
    const pending = stuck || (k < fx.pendingWindow && r() < fx.pendingShare);
    const deposit = !stuck && r() < 0.65;
    // One pending transaction per firm, user and type (transactions_one_pending_uq): pending rows
    // take users no other pending row has.
    const user = stuck
      ? 2_000_000 + Math.floor(k / STUCK_EVERY)
      : pending
        ? k < USERS_PER_FIRM
          ? k
          : 1_000_000 + k
        : Math.floor(r() * USERS_PER_FIRM);
    const person = people(index, user);
    const base = basics(fx, k, r, created, firm, person, deposit);
    return pending ? base : decide(base, r, firm, fx.end);
  };
}

function amountOf(r: () => number, deposit: boolean): number {
  const tl = pick(deposit ? DEPOSIT_TL : WITHDRAWAL_TL, r());
  if (r() >= 0.3) return tl * 100;
  return (tl + Math.floor(r() * tl * 0.3)) * 100 + Math.floor(r() * 100);
}

const dayNames = new Map<number, string>();

/** A merchant's reference: unique, since k → k × an odd number is one to one below 2^32. */
function referenceOf(k: number, created: number, deposit: boolean): string {
  const dayIndex = Math.floor(created / DAY_MS);
  let day = dayNames.get(dayIndex);
  if (day === undefined) {
    day = new Date(dayIndex * DAY_MS).toISOString().slice(0, 10).replaceAll("-", "");
    dayNames.set(dayIndex, day);
  }
  const tail = (Math.imul(k, 0x9e3779b1) >>> 0).toString(36).toUpperCase().padStart(7, "0");
  return `${deposit ? "DEP" : "WD"}-${day}-${tail}`;
}

/**
 * A withdrawal IBAN as merchants send it: mostly compact, some grouped or in lower case, a few
 * mistyped in their last digit. The mod-97 check catches every change of one digit, so only the
 * mistyped ones are invalid (isValidTurkishIban would say the same, at a cost per row).
 */
function ibanAsSent(r: () => number, iban: string): { text: string; valid: 0 | 1 } {
  const form = r();
  if (form < 0.7) return { text: iban, valid: 1 };
  if (form < 0.88) return { text: iban.replace(/(.{4})/g, "$1 ").trim(), valid: 1 };
  if (form < 0.95) return { text: iban.toLowerCase(), valid: 1 };
  return { text: `${iban.slice(0, -1)}${(Number(iban.slice(-1)) + 1) % 10}`, valid: 0 };
}

function basics(
  fx: Fixture,
  k: number,
  r: () => number,
  created: number,
  firm: FirmFixture,
  person: Person,
  deposit: boolean,
): SeedTransaction {
  const account = firm.sandbox ? fx.sandboxAccount : pick(fx.liveAccounts, r());
  const method = deposit
    ? pick(["fast", "fast", "havale", "havale", "eft"], r())
    : pick([null, "fast", "fast", "fast", "eft", "eft"], r());
  const iban = deposit ? undefined : ibanAsSent(r, person.iban);
  return {
    id: idOf(fx, k),
    firm_id: firm.id,
    reference: referenceOf(k, created, deposit),
    type: deposit ? "deposit" : "withdrawal",
    status: "pending",
    amount: amountOf(r, deposit),
    method,
    first_name: person.first,
    last_name: person.last,
    middle_name: person.middle,
    username: person.username,
    user_id: person.userId,
    national_id_masked: person.nationalIdMasked,
    national_id_sealed: null,
    nationalId: person.nationalId,
    bank_code: person.bank.code,
    iban: iban?.text ?? null,
    iban_valid: iban?.valid ?? null,
    account_id: deposit ? account.id : null,
    assigned_bank_name: deposit ? account.bank_name : null,
    assigned_holder_name: deposit ? account.holder_name : null,
    assigned_iban: deposit ? account.iban : null,
    callback_url: firm.webhook,
    routing_log: deposit
      ? `[{"account_id":${account.id},"channel":null,"outcome":"accepted","ms":${Math.floor(r() * 4)}}]`
      : null,
    payer_name_key: person.nameKey,
    ignored_fields: null,
    created_at: created,
    updated_at: created,
    decided_at: null,
    decided_by: null,
    decision_note: null,
    original_amount: null,
  };
}

/** Most rows are decided: by an operator minutes to hours later, or by auto-cancel a week later. */
function decide(tx: SeedTransaction, r: () => number, firm: FirmFixture, end: number): SeedTransaction {
  const deposit = tx.type === "deposit";
  const approved = r() < (deposit ? 0.72 : 0.86);
  const delay = deposit ? 60_000 + r() * 40 * 60_000 : 5 * 60_000 + r() * 3 * 3_600_000;
  let decidedAt = Math.min(end, Math.round(tx.created_at + delay));
  let decidedBy: string = pick(DECIDERS, r());
  let note: string | null = approved ? null : pick(REJECT_NOTES, r());
  let amount = tx.amount;
  let original: number | null = null;
  const cancelAt = tx.created_at + AUTO_CANCEL_MINUTES * 60_000 + Math.floor(r() * 15_000);
  if (!approved && deposit && firm.autoCancel && r() < 0.4 && cancelAt <= end) {
    decidedAt = cancelAt;
    decidedBy = AUTO_CANCEL_ACTOR;
    note = `auto-cancelled: pending for more than ${AUTO_CANCEL_MINUTES} minutes`;
  }
  if (approved && deposit && r() < 0.04) {
    // The payer sent less than asked, and the operator approved what came.
    original = amount;
    amount = Math.max(100, Math.round((amount * (0.6 + r() * 0.35)) / 100) * 100);
    if (amount === original) original = null;
  }
  // Changed in place: the row is new, and a spread per row costs seconds over ten million of them.
  tx.status = approved ? "approved" : "rejected";
  tx.amount = amount;
  tx.original_amount = original;
  tx.decided_at = decidedAt;
  tx.decided_by = decidedBy;
  tx.decision_note = note;
  tx.updated_at = decidedAt;
  return tx;
}
