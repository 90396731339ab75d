import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { newPaymentCode } from "../../src/domain/payment-code.js";
import { indexWindow, lookUp } from "../../src/reconciliation/candidate-index.js";
import { type DepositCandidate, LINE_BUDGET, matchLine } from "../../src/reconciliation/matching.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";
import { generateDay, PENDING_WINDOW_MS } from "../support/statements.js";

/**
 * A line matched against its stretch of a pool window looked up by what it says
 * (src/reconciliation/candidate-index.ts) comes out exactly as when it asks every deposit of the
 * stretch: over the generated days of the matching rule's figures (every hazard), and over
 * arbitrary payers, amounts, codes and cut names.
 */
const DAY_MS = 86_400_000;
const ctx = {
  pendingWindowMs: PENDING_WINDOW_MS,
  clockToleranceMs: 60_000,
  policyOf: () => ({ autoApprove: true, nameMayApprove: true }),
};

/** The stretch of `window` (in order of creation) a line may pay: what candidate-pool.ts hands it. */
function stretchOf(window: readonly DepositCandidate[], line: StatementLine): DepositCandidate[] {
  const from = line.bookedAt - DAY_MS;
  const to = line.bookedAt + (line.dateOnly ? DAY_MS : 0) + ctx.clockToleranceMs;
  return window.filter((c) => c.createdAt >= from && c.createdAt <= to);
}

describe("matching through the window's index", () => {
  it("decides every generated line as asking each deposit does", () => {
    for (const seed of [4501, 4502, 4503]) {
      const day = generateDay(seed, 1_500);
      const window = day.deposits.map((d) => ({ ...d })).sort((a, b) => a.createdAt - b.createdAt);
      for (const { line } of day.lines) {
        const stretch = stretchOf(window, line);
        const asked = matchLine(line, stretch, ctx);
        expect(matchLine(line, stretch, { ...ctx, window })).toEqual(asked);
        if (asked.kind === "approve" || asked.kind === "settles") {
          const d = window.find((c) => c.id === asked.depositId) as DepositCandidate;
          if (asked.kind === "approve") d.status = "approved";
          d.settled = true;
        }
      }
    }
  });

  it("and for arbitrary payers, amounts, codes and cut names", () => {
    const NOW = Date.parse("2026-12-05T12:00:00Z");
    const word = fc.constantFrom(
      "AYSE",
      "AYŞE",
      "MEHMET",
      "ABDURRAHIM",
      "ABDURRAH",
      "KAYA",
      "YILMAZ",
      "ALI",
      "AL",
    );
    const payer = fc.record({
      firstName: word,
      middleName: fc.option(word, { nil: null }),
      lastName: word,
    });
    const candidate = fc.record({
      amountMinor: fc.integer({ min: 1, max: 5_000 }),
      ago: fc.integer({ min: 0, max: 2 * DAY_MS }),
      payer,
      code: fc.option(fc.constantFrom("ACE47KMX", "ACE47KMY", "HJK34679", "NPRTWXY3"), { nil: null }),
      status: fc.constantFrom("pending", "approved", "rejected"),
      ref: fc.constantFrom("REF-1", "ORDER77", "X"),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { maxLength: 40 }),
        fc.record({
          amountMinor: fc.integer({ min: 1, max: 5_000 }),
          name: fc.option(
            fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(" ")),
            { nil: null },
          ),
          cut: fc.boolean(),
          description: fc.array(fc.constantFrom("ACE47KMX", "ACE47KNX", "ORDER77", "ODEME", "REF-1"), {
            maxLength: 3,
          }),
        }),
        (made, said) => {
          const window: DepositCandidate[] = made
            .map((m, i) => ({
              id: i + 1,
              firmId: 1,
              accountId: 1,
              status: m.status,
              amountMinor: m.amountMinor,
              createdAt: NOW - m.ago,
              payer: m.payer,
              paymentCode: m.code,
              userId: `u-${i}`,
              reference: m.ref,
              sandbox: false,
              settled: false,
            }))
            .sort((a, b) => a.createdAt - b.createdAt);
          // A cut name: at least 35 characters, as a bank cuts it.
          const senderName = said.name === null ? null : said.cut ? said.name.padStart(36, "X ") : said.name;
          const line: StatementLine = {
            bookedAt: NOW,
            dateOnly: false,
            amountMinor: said.amountMinor,
            direction: "credit",
            currency: "TRY",
            senderName,
            senderIban: null,
            description: said.description.join(" "),
            bankRef: null,
          };
          const stretch = stretchOf(window, line);
          expect(matchLine(line, stretch, { ...ctx, window })).toEqual(matchLine(line, stretch, ctx));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("a line's work is bounded, and a name proves no one where the bound cut the deposits short", () => {
  const NOW = Date.parse("2026-12-05T12:00:00Z");
  let id = 0;
  const deposit = (
    payer: { firstName: string; middleName?: string | null; lastName: string },
    amountMinor: number,
    extra: Partial<DepositCandidate> = {},
  ): DepositCandidate => {
    id += 1;
    return {
      id,
      firmId: 1,
      accountId: 1,
      status: "pending",
      amountMinor,
      createdAt: NOW - 3_600_000 + id,
      payer: { middleName: null, ...payer },
      paymentCode: null,
      userId: `u-${id}`,
      reference: `r-${id}`,
      sandbox: false,
      settled: false,
      ...extra,
    };
  };
  const lineOf = (senderName: string, amountMinor: number, description = "ODEME"): StatementLine => ({
    bookedAt: NOW,
    dateOnly: false,
    amountMinor,
    direction: "credit",
    currency: "TRY",
    senderName,
    senderIban: null,
    description,
    bankRef: null,
  });
  const windowOf = (deposits: DepositCandidate[]) => deposits.sort((a, b) => a.createdAt - b.createdAt);
  const viaIndex = (line: StatementLine, window: DepositCandidate[]) =>
    matchLine(line, stretchOf(window, line), { ...ctx, window });

  it("a line naming the payer and the amount of thousands of deposits meets the budget's worth", () => {
    const window = windowOf(
      Array.from({ length: 20_000 }, () => deposit({ firstName: "Ayşe", lastName: "Yılmaz" }, 15_000)),
    );
    const index = indexWindow(window, (c) => ({
      amountMinor: c.amountMinor,
      keys: [],
      words: ["ayse", "yilmaz"],
    }));
    const looked = lookUp(
      index,
      window,
      {
        keys: [],
        amount: 15_000,
        byAmount: () => true,
        words: ["ayse", "yilmaz"],
        beginnings: [],
        byWord: () => true,
        near: { keeps: () => true, time: (c) => c.createdAt, count: 5 },
      },
      LINE_BUDGET,
    );
    expect(looked.found.length).toBeLessThanOrEqual(LINE_BUDGET.taken + 5);
    expect(looked.complete).toEqual({ amount: false, words: false });
    // The newest first: the last deposit made is among those met.
    expect(looked.found.at(-1)).toBe(window.at(-1));
    const outcome = viaIndex(lineOf("AYSE YILMAZ", 15_000), window);
    expect(outcome.kind).toBe("suggest");
  });

  // HACIMUSTAFAOGULLARI MEHMET ABDURRAH: 35 characters, cut inside Abdurrahim's name.
  const CUT = "HACIMUSTAFAOGULLARI MEHMET ABDURRAH";
  const proven = () => deposit({ firstName: "Mehmet Abdurrahim", lastName: "Hacımustafaoğulları" }, 15_000);

  it("a cut name proves its payer where every deposit with its words was met", () => {
    const target = proven();
    const window = windowOf([
      target,
      ...Array.from({ length: 50 }, (_, i) =>
        deposit({ firstName: "Mehmet", lastName: `Demir${i}` }, 99_900),
      ),
    ]);
    expect(viaIndex(lineOf(CUT, 15_000), window)).toMatchObject({ kind: "approve", depositId: target.id });
  });

  it("but not where more deposits share its words than a line meets: held as crowded", () => {
    const target = proven();
    const window = windowOf([
      target,
      ...Array.from({ length: LINE_BUDGET.taken + 100 }, (_, i) =>
        deposit({ firstName: "Mehmet", lastName: `Demir${i}` }, 99_900),
      ),
    ]);
    const outcome = viaIndex(lineOf(CUT, 15_000), window);
    expect(outcome).toMatchObject({ kind: "suggest", held: { code: "crowded" } });
    expect(outcome.kind === "suggest" && outcome.suggestions[0]?.depositId).toBe(target.id);
  });

  it("a payment code still proves its deposit among thousands with the line's amount", () => {
    const code = newPaymentCode();
    const target = deposit({ firstName: "Ali", lastName: "Kaya" }, 15_000, { paymentCode: code });
    const window = windowOf([
      ...Array.from({ length: 2_000 }, () => deposit({ firstName: "Ayşe", lastName: "Yılmaz" }, 15_000)),
      target,
      ...Array.from({ length: 2_000 }, () => deposit({ firstName: "Ayşe", lastName: "Yılmaz" }, 15_000)),
    ]);
    expect(viaIndex(lineOf("AYSE YILMAZ", 15_000, `ODEME ${code}`), window)).toMatchObject({
      kind: "approve",
      depositId: target.id,
      proof: "code",
    });
  });
});
