import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidatePool, reachOf } from "../../src/reconciliation/candidate-pool.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";
import type { CandidateRow } from "../../src/store/statements/statement-lines.js";

/**
 * The deposits a run of lines is compared with, read a window at a time (issue 45): whatever the
 * span of the lines and their order, a line told its window is complete has every deposit of its
 * reach and no other, and a line past the ceiling is told it is not.
 */
const HOUR = 3_600_000;
const T0 = Date.parse("2026-12-01T00:00:00Z");

const line = (bookedAt: number, dateOnly: boolean): StatementLine => ({
  bookedAt,
  dateOnly,
  amountMinor: 100,
  direction: "credit",
  currency: "TRY",
  senderName: null,
  senderIban: null,
  description: "",
  bankRef: null,
});

/** The store's answer, from a sorted list of creation times: the first `limit` within [from, to]. */
function store(times: number[]) {
  let loads = 0;
  return {
    get loads() {
      return loads;
    },
    load: async (from: number, to: number, limit: number) => {
      loads++;
      return times
        .filter((t) => t >= from && t <= to)
        .slice(0, limit)
        .map((t, i) => ({ id: i, created_at: t }) as unknown as CandidateRow);
    },
  };
}

const pooled = (row: CandidateRow) => ({ createdAt: row.created_at });

describe("the candidate pool", () => {
  it("a complete window holds exactly the deposits of a line's reach, in any order of lines", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 400 * HOUR }), { maxLength: 300 }),
        fc.array(fc.tuple(fc.integer({ min: -HOUR, max: 420 * HOUR }), fc.boolean()), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.integer({ min: 2, max: 60 }),
        async (offsets, lineSpecs, ceiling) => {
          const times = offsets.map((o) => T0 + o).sort((a, b) => a - b);
          const lines = lineSpecs.map(([o, d]) => line(T0 + o, d));
          const db = store(times);
          const last = Math.max(...lines.map((l) => l.bookedAt));
          const pool = candidatePool({ load: db.load, toCandidate: pooled }, last, ceiling);
          for (const l of lines) {
            const got = await pool.around(l);
            const reach = reachOf(l);
            const expected = times.filter((t) => t >= reach.from && t <= reach.to);
            if (got.complete) expect(got.candidates.map((c) => c.createdAt)).toEqual(expected);
            else expect(expected.length).toBeGreaterThanOrEqual(Math.floor(ceiling / 2));
            // Never a deposit from outside the line's reach.
            for (const c of got.candidates)
              expect(c.createdAt >= reach.from && c.createdAt <= reach.to).toBe(true);
          }
          if (times.length <= ceiling / 2) expect(db.loads).toBeLessThanOrEqual(lines.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("lines in order of booking over a week read a few windows, not one per line", async () => {
    const times = Array.from({ length: 1_000 }, (_, i) => T0 + i * 10 * 60_000);
    const db = store(times);
    const lines = times.map((t) => line(t + 60_000, false));
    const pool = candidatePool({ load: db.load, toCandidate: pooled }, lines.at(-1)?.bookedAt ?? null);
    for (const l of lines) expect((await pool.around(l)).complete).toBe(true);
    expect(db.loads).toBeLessThanOrEqual(5);
  });

  it("lines newest first over a week read a few windows too", async () => {
    const times = Array.from({ length: 1_000 }, (_, i) => T0 + i * 10 * 60_000);
    const db = store(times);
    const lines = times.map((t) => line(t + 60_000, false)).reverse();
    const pool = candidatePool({ load: db.load, toCandidate: pooled }, lines[0]?.bookedAt ?? null);
    for (const l of lines) expect((await pool.around(l)).complete).toBe(true);
    expect(db.loads).toBeLessThanOrEqual(6);
  });

  it("a newer-first line whose window back is full of older deposits reads its own reach", async () => {
    // Five deposits long before, one within the second line's reach, a ceiling of two.
    const times = [...Array.from({ length: 5 }, () => T0), T0 + 30 * HOUR];
    const pool = candidatePool({ load: store(times).load, toCandidate: pooled }, T0 + 40 * HOUR, 2);
    await pool.around(line(T0 + 40 * HOUR, false));
    const second = await pool.around(line(T0 + 31 * HOUR, false));
    expect(second).toEqual({ candidates: [{ createdAt: T0 + 30 * HOUR }], complete: true });
  });

  it("a line whose reach holds more deposits than the ceiling is told so, and reads no window of its own", async () => {
    const times = Array.from({ length: 500 }, (_, i) => T0 + i * 1_000);
    const db = store(times);
    const pool = candidatePool({ load: db.load, toCandidate: pooled }, T0 + 600_000, 100);
    const first = await pool.around(line(T0 + 500_000, false));
    expect(first.complete).toBe(false);
    expect(first.candidates.length).toBeLessThanOrEqual(100);
    await pool.around(line(T0 + 500_001, false));
    expect(db.loads).toBe(1);
  });
});
