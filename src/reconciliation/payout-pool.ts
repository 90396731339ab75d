/**
 * The payouts a run of debit lines is compared with, and the indexes the rule reads them by
 * (payout-matching.ts). A pool is a value: the store builds a new one when a payout's stage
 * changes, and the indexes of a pool are built once, on its first use.
 */
import { MIN_SEEN, PAYMENT_ID } from "./payment-ids.js";

export interface SentPayout {
  attemptId: number;
  transactionId: number;
  batchId: number;
  paymentId: string;
  amountMinor: number;
  payeeIban: string;
  payeeName: string;
  /** live (sent and not yet proven), paid (proven or approved), returned, or superseded (an earlier attempt of a withdrawal that has a later one) */
  stage: "sent" | "paid" | "returned" | "superseded";
  sentAt: number;
}

export interface SentBatch {
  batchId: number;
  totalMinor: number;
  attemptIds: readonly number[];
  sentAt: number;
}

export interface PayoutPool {
  payouts: readonly SentPayout[];
  batches: readonly SentBatch[];
}

export interface PoolIndex {
  byId: Map<string, SentPayout>;
  /** Every payment id, sorted: the ids a cut one begins are a range of it. */
  sortedIds: string[];
  byIbanAmount: Map<string, SentPayout[]>;
  byAmount: Map<number, SentPayout[]>;
  /** A batch's sent payouts, for batches with two or more of them, by their sum. */
  batchesBySum: Map<number, SentPayout[][]>;
}

export const normalIban = (iban: string | null): string => (iban ?? "").replace(/\s+/g, "").toUpperCase();

/** A name as names are compared: Turkish capitals, only letters, single spaces. */
export const normalName = (name: string | null): string =>
  (name ?? "")
    .toLocaleUpperCase("tr")
    .replace(/[^\p{L}]+/gu, " ")
    .trim();

const ibanAmount = (iban: string, amountMinor: number) => `${iban}\u001f${amountMinor}`;

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function batchesBySum(pool: PayoutPool): Map<number, SentPayout[][]> {
  const sentByBatch = new Map<number, SentPayout[]>();
  for (const p of pool.payouts) if (p.stage === "sent") push(sentByBatch, p.batchId, p);
  const bySum = new Map<number, SentPayout[][]>();
  for (const sent of sentByBatch.values())
    if (sent.length >= 2)
      push(
        bySum,
        sent.reduce((sum, p) => sum + p.amountMinor, 0),
        sent,
      );
  return bySum;
}

function buildIndex(pool: PayoutPool): PoolIndex {
  const byId = new Map<string, SentPayout>();
  const byIbanAmount = new Map<string, SentPayout[]>();
  const byAmount = new Map<number, SentPayout[]>();
  for (const p of pool.payouts) {
    byId.set(p.paymentId, p);
    push(byIbanAmount, ibanAmount(normalIban(p.payeeIban), p.amountMinor), p);
    push(byAmount, p.amountMinor, p);
  }
  const sortedIds = [...byId.keys()].sort();
  return { byId, sortedIds, byIbanAmount, byAmount, batchesBySum: batchesBySum(pool) };
}

const INDEXES = new WeakMap<PayoutPool, PoolIndex>();

export function indexOf(pool: PayoutPool): PoolIndex {
  let index = INDEXES.get(pool);
  if (!index) {
    index = buildIndex(pool);
    INDEXES.set(pool, index);
  }
  return index;
}

export function fitsByIbanAmount(index: PoolIndex, iban: string, amountMinor: number): SentPayout[] {
  return index.byIbanAmount.get(ibanAmount(normalIban(iban), amountMinor)) ?? [];
}

/** The payouts whose id begins with `seen` (at most three: more than one is already too many). */
function startingWith(index: PoolIndex, seen: string): SentPayout[] {
  const ids = index.sortedIds;
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ids[mid] as string) < seen) lo = mid + 1;
    else hi = mid;
  }
  const found: SentPayout[] = [];
  for (let i = lo; i < ids.length && found.length < 3 && (ids[i] as string).startsWith(seen); i++)
    found.push(index.byId.get(ids[i] as string) as SentPayout);
  return found;
}

/**
 * The payouts a token of a line may name: the one whose id it is, else those whose id begins with
 * it when at least MIN_SEEN characters are seen (a bank that cuts a description keeps its start).
 */
export function payoutsSeenAs(index: PoolIndex, token: string): SentPayout[] {
  const seen = token.trim().toUpperCase();
  const whole = index.byId.get(seen);
  if (whole) return [whole];
  if (seen.length < MIN_SEEN || !PAYMENT_ID.test(seen)) return [];
  return startingWith(index, seen);
}
