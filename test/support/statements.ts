import { FIRST_NAMES, LAST_NAMES } from "../../bench/shared/names.js";
import { newPaymentCode } from "../../src/domain/payment-code.js";
import type { DepositCandidate } from "../../src/reconciliation/matching.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";
import { seeded } from "./seed.js";

/**
 * Realistic statements for one payment account with the true answer for every line (issue 34):
 * deposits are made through the day, and each is paid, or not, the way payers and banks do it.
 * The mix of hazards is fixed so that figures compare from run to run:
 *   own_name 50 %: the payer's own name and the exact amount, as banks write names (ASCII-folded,
 *     upper case, surname first, middle name there or not, cut at 35 characters);
 *   code_other_name 10 %: the payment code (spaced, lower case), someone else's name;
 *   same_amount 10 %: two payers, the same amount, the same account, within the hour;
 *   over_under 8 %: more or less than asked;
 *   after_cancel 5 %: paid after auto-cancel took the deposit;
 *   mistyped_code 5 %: the code one character off, or missing, and a name that is not the payer's;
 *   repeated 7 %: a line seen before again (overlapping statements);
 *   debit 5 %: money going out, and fees.
 * Amounts are drawn so that no two pending deposits of the account share one, except in the
 * same_amount hazard, which is that case.
 */
export type Hazard =
  | "own_name"
  | "code_other_name"
  | "same_amount"
  | "over_under"
  | "after_cancel"
  | "mistyped_code"
  | "repeated"
  | "debit";

export type Truth =
  | { expect: "approve"; depositId: number }
  | { expect: "suggest_first"; depositId: number }
  | { expect: "after_cancellation"; depositId: number }
  | { expect: "duplicate" }
  | { expect: "debit" };

export interface GeneratedLine {
  line: StatementLine;
  hazard: Hazard;
  truth: Truth;
}

export interface GeneratedDay {
  /** Every deposit made, with its status as of its making (the run decides from there). */
  deposits: DepositCandidate[];
  /** In booking order. */
  lines: GeneratedLine[];
}

const MIX: [Hazard, number][] = [
  ["own_name", 50],
  ["code_other_name", 10],
  ["same_amount", 10],
  ["over_under", 8],
  ["after_cancel", 5],
  ["mistyped_code", 5],
  ["repeated", 7],
  ["debit", 5],
];
export const PENDING_WINDOW_MS = 60 * 60_000;
const START = Date.UTC(2026, 10, 2, 6, 0, 0);

type Rng = () => number;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)] as T;
const ascii = (s: string) =>
  s.replaceAll("ı", "i").replaceAll("İ", "I").normalize("NFKD").replace(/\p{M}/gu, "");

function hazardOf(rng: Rng): Hazard {
  let r = rng() * 100;
  for (const [h, w] of MIX) {
    r -= w;
    if (r < 0) return h;
  }
  return "own_name";
}

/** A name as one bank or another writes the sender. */
export function bankWritten(rng: Rng, first: string, middle: string | null, last: string): string {
  const withMiddle = middle !== null && rng() < 0.5 ? `${first} ${middle}` : first;
  let name = rng() < 0.4 ? `${last} ${withMiddle}` : `${withMiddle} ${last}`;
  if (rng() < 0.5) name = ascii(name);
  if (rng() < 0.7) name = name.toLocaleUpperCase(rng() < 0.5 ? "tr" : "en");
  if (name.length > 35 && rng() < 0.7) name = name.slice(0, 35);
  return name;
}

function spacedCode(rng: Rng, code: string): string {
  const forms = [
    code,
    code.toLowerCase(),
    `${code.slice(0, 4)} ${code.slice(4)}`,
    `${code.slice(0, 4)}-${code.slice(4)}`,
  ];
  return pick(rng, forms);
}

function mistyped(rng: Rng, code: string): string {
  const at = Math.floor(rng() * code.length);
  const others = [..."ACEFHJKMNPRTWXY34679"].filter((c) => c !== code[at]);
  return code.slice(0, at) + pick(rng, others) + code.slice(at + 1);
}

export function generateDay(seed: number, lineCount: number, accountId = 1): GeneratedDay {
  const rng = seeded(seed);
  const deposits: DepositCandidate[] = [];
  const lines: GeneratedLine[] = [];
  const pendingAmounts = new Map<number, number>();
  let now = START;
  let nextId = seed * 1_000_000 + 1;
  let ref = 0;

  const person = () => {
    const middle = rng() < 0.3 ? pick(rng, FIRST_NAMES) : null;
    return { firstName: pick(rng, FIRST_NAMES), middleName: middle, lastName: pick(rng, LAST_NAMES) };
  };
  const freshAmount = () => {
    for (;;) {
      const a = rng() < 0.3 ? (5 + Math.floor(rng() * 2_000)) * 1_000 : 5_000 + Math.floor(rng() * 2_000_000);
      if (!pendingAmounts.has(a)) return a;
    }
  };
  const deposit = (amountMinor: number, at: number): DepositCandidate => {
    const d: DepositCandidate = {
      id: nextId++,
      firmId: 1 + (nextId % 3),
      accountId,
      status: "pending",
      amountMinor,
      createdAt: at,
      payer: person(),
      paymentCode: newPaymentCode((max) => Math.floor(rng() * max)),
      userId: `u${Math.floor(rng() * 1e9)}`,
      reference: `ord-${Math.floor(rng() * 1e9)}`,
      sandbox: false,
      settled: false,
    };
    deposits.push(d);
    pendingAmounts.set(amountMinor, d.id);
    return d;
  };
  const emit = (
    line: Omit<StatementLine, "currency" | "dateOnly" | "bankRef">,
    hazard: Hazard,
    truth: Truth,
  ) => {
    lines.push({
      line: { ...line, currency: "TRY", dateOnly: false, bankRef: `B${seed}-${++ref}` },
      hazard,
      truth,
    });
  };
  const paidBy = (d: DepositCandidate, at: number) => {
    pendingAmounts.delete(d.amountMinor);
    return { bookedAt: at, direction: "credit" as const, senderIban: null };
  };

  while (lines.length < lineCount) {
    now += Math.floor(rng() * 90_000);
    // Unpaid deposits around: the candidates a line has to be told from.
    if (rng() < 0.5) deposit(freshAmount(), now - Math.floor(rng() * 20 * 60_000));
    const h = hazardOf(rng);
    const { firstName: f, middleName: m, lastName: l } = person();
    if (h === "debit") {
      emit(
        {
          bookedAt: now,
          direction: "debit",
          amountMinor: 100 + Math.floor(rng() * 500_000),
          senderName: null,
          senderIban: null,
          description: pick(rng, ["EFT MASRAFI", "HAVALE UCRETI", "GIDEN FAST"]),
        },
        h,
        { expect: "debit" },
      );
      continue;
    }
    if (h === "repeated") {
      const earlier = lines.filter((x) => x.hazard !== "repeated");
      if (earlier.length === 0) continue;
      const again = pick(rng, earlier);
      lines.push({ line: { ...again.line }, hazard: h, truth: { expect: "duplicate" } });
      continue;
    }
    const d = deposit(freshAmount(), now - Math.floor(rng() * 20 * 60_000));
    const own = () => bankWritten(rng, d.payer.firstName, d.payer.middleName, d.payer.lastName);
    const other = bankWritten(rng, f, m, l);
    const filler = pick(rng, ["", "ODEME", "FAST", "HAVALE", "yatirim", "Bakiye yukleme"]);
    if (h === "own_name") {
      emit({ ...paidBy(d, now), amountMinor: d.amountMinor, senderName: own(), description: filler }, h, {
        expect: "approve",
        depositId: d.id,
      });
    } else if (h === "code_other_name") {
      emit(
        {
          ...paidBy(d, now),
          amountMinor: d.amountMinor,
          senderName: other,
          description: `${filler} ${spacedCode(rng, d.paymentCode as string)}`.trim(),
        },
        h,
        { expect: "approve", depositId: d.id },
      );
    } else if (h === "same_amount") {
      const twin = deposit(d.amountMinor, now - Math.floor(rng() * 50 * 60_000));
      emit({ ...paidBy(d, now), amountMinor: d.amountMinor, senderName: own(), description: filler }, h, {
        expect: "suggest_first",
        depositId: d.id,
      });
      pendingAmounts.set(twin.amountMinor, twin.id);
    } else if (h === "over_under") {
      const factor = rng() < 0.5 ? 1 + (0.01 + rng() * 0.19) : 1 - (0.01 + rng() * 0.19);
      emit(
        {
          ...paidBy(d, now),
          amountMinor: Math.round(d.amountMinor * factor),
          senderName: own(),
          description: filler,
        },
        h,
        { expect: "suggest_first", depositId: d.id },
      );
    } else if (h === "after_cancel") {
      // Made more than the window ago, cancelled, then paid.
      d.createdAt = now - PENDING_WINDOW_MS - Math.floor(rng() * 3 * 60 * 60_000);
      const byCode = rng() < 0.5;
      emit(
        {
          ...paidBy(d, now),
          amountMinor: d.amountMinor,
          senderName: byCode ? other : own(),
          description: byCode ? spacedCode(rng, d.paymentCode as string) : filler,
        },
        h,
        { expect: "after_cancellation", depositId: d.id },
      );
    } else {
      const description = rng() < 0.6 ? `${filler} ${mistyped(rng, d.paymentCode as string)}`.trim() : filler;
      emit({ ...paidBy(d, now), amountMinor: d.amountMinor, senderName: other, description }, h, {
        expect: "suggest_first",
        depositId: d.id,
      });
    }
  }
  return { deposits, lines };
}
