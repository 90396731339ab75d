import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withinRooms } from "../../src/payouts/rules.js";

/** The ledger's guard as a batching takes it (docs/payouts.md, "The ledger's guard"). */
describe("payouts within their firms' rooms", () => {
  const p = (firmId: number, amount: number, id: number) => ({ firmId, amount, id });

  it("oldest first: each fits what the older ones that fit left; a later smaller one may still fit", () => {
    const payouts = [p(1, 400, 1), p(1, 150, 2), p(1, 100, 3), p(2, 900, 4)];
    const { fit, over } = withinRooms(
      payouts,
      new Map([
        [1, 500],
        [2, null],
      ]),
    );
    expect(fit.map((x) => x.id)).toEqual([1, 3, 4]);
    expect(over.map((x) => x.id)).toEqual([2]);
  });

  it("a room below zero (an overdraft used up, commissions) fits nothing; exactly the room fits", () => {
    expect(withinRooms([p(1, 1, 1)], new Map([[1, -5]])).fit).toEqual([]);
    expect(withinRooms([p(1, 500, 1)], new Map([[1, 500]])).fit).toHaveLength(1);
  });

  it("never more than a firm's room, whatever the payouts", () => {
    const arb = fc.record({
      rooms: fc.array(fc.option(fc.integer({ min: -10_000, max: 100_000 }), { nil: null }), {
        minLength: 3,
        maxLength: 3,
      }),
      payouts: fc.array(
        fc.record({ firmId: fc.integer({ min: 0, max: 2 }), amount: fc.integer({ min: 1, max: 50_000 }) }),
      ),
    });
    fc.assert(
      fc.property(arb, ({ rooms, payouts }) => {
        const byFirm = new Map(rooms.map((r, i) => [i, r]));
        const { fit, over } = withinRooms(payouts, byFirm);
        expect(fit.length + over.length).toBe(payouts.length);
        for (const [firm, room] of byFirm) {
          const taken = fit.filter((x) => x.firmId === firm).reduce((s, x) => s + x.amount, 0);
          if (room === null) expect(over.filter((x) => x.firmId === firm)).toEqual([]);
          else {
            expect(taken).toBeLessThanOrEqual(Math.max(room, 0));
            // Nothing left out would have fitted what was left when its turn came (greedy, in order).
            let left = room;
            for (const x of payouts.filter((y) => y.firmId === firm)) {
              if (x.amount <= left) {
                expect(fit).toContain(x);
                left -= x.amount;
              } else expect(over).toContain(x);
            }
          }
        }
      }),
    );
  });
});
