import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type DepositCandidate, matchLine } from "../../src/reconciliation/matching.js";
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
